import type { Type } from '@nestjs/common';
import type { FsmGate } from './fsm-gate.js';

/** The module's `gate` options, resolved (defaults filled) once: what the gate, its sweeper and the menus read. */
export interface FsmGateOptions {
  /** The gate class the module creates (`FsmGate` or a subclass of the app's). */
  useClass: Type<FsmGate>;
  /** Lease of a claimed instance, in milliseconds. */
  leaseMs: number;
  /** Whether claims are row locks in a transaction the handler joins, unless a binding says otherwise. */
  transactional: boolean;
  /** How a refusal reaches the client. */
  refusal: 'result' | 'jsonrpc';
  /** Which bound tools of handle-keyed machines a session's menu lists. */
  handleToolsMenu: 'used' | 'all';
  /** Retention of instances; `undefined` fields keep instances forever. */
  retention: { finishedMs?: number; idleHandleMs?: number; intervalMs: number; batchSize: number };
}

/** Injection token of the resolved {@link FsmGateOptions}. */
export const FSM_GATE_OPTIONS = Symbol('nestjs-mcp-fsm:FsmGateOptions');
