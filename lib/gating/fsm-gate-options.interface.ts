/** What the gate needs from the module options, resolved (defaults filled) once. */
export interface FsmGateOptions {
  /** Lease of a claimed instance, in milliseconds. */
  leaseMs: number;
  /** Retention of instances; `undefined` fields keep instances forever. */
  retention: { finishedMs?: number; idleHandleMs?: number; intervalMs: number; batchSize: number };
}

/** Injection token of the resolved {@link FsmGateOptions}. */
export const FSM_GATE_OPTIONS = Symbol('nestjs-mcp-fsm:FsmGateOptions');
