/** What the gate needs from the module options, resolved (defaults filled) once. */
export interface WorkflowGateOptions {
  /** Lease of a claimed instance, in milliseconds. */
  leaseMs: number;
  /** Retention of instances; `undefined` fields keep instances forever. */
  retention: { finishedMs?: number; idleHandleMs?: number; intervalMs: number; batchSize: number };
}

/** Injection token of the resolved {@link WorkflowGateOptions}. */
export const WORKFLOW_GATE_OPTIONS = Symbol('nestjs-mcp-fsm:WorkflowGateOptions');

/** @deprecated Use {@link WorkflowGateOptions}; the old name goes in 0.4. */
export type FsmGateOptions = WorkflowGateOptions;
/** @deprecated Use {@link WORKFLOW_GATE_OPTIONS}; the old name goes in 0.4. */
export const FSM_GATE_OPTIONS = WORKFLOW_GATE_OPTIONS;
