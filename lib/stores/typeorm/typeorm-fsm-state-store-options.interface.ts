/** Options of `TypeOrmFsmStateStore` (and of `createFsmStateMigration`, which uses the table names). */
export interface TypeOrmFsmStateStoreOptions {
  /** Table of instance states (optionally `schema.table`). @default 'mcp_fsm_state' */
  tableName?: string;
  /** Table of transition history (optionally `schema.table`). @default 'mcp_fsm_transition' */
  historyTableName?: string;
  /** Write one history row per committed transition that carries a record. @default false */
  history?: boolean;
}

/** Default table of instance states. */
export const DEFAULT_FSM_STATE_TABLE = 'mcp_fsm_state';
/** Default table of transition history. */
export const DEFAULT_FSM_TRANSITION_TABLE = 'mcp_fsm_transition';
