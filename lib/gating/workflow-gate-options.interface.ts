import type { Type } from '@nestjs/common';
import type { WorkflowDeadlineOptions } from './deadline-options.interface.js';
import type { WorkflowIdempotencyOptions } from './idempotency-options.interface.js';

/** The module's `gate` options, resolved (defaults filled) once: what the gate, its sweeper and the menus read. */
export interface WorkflowGateOptions {
  /** The gate class the module creates: `WorkflowGate` or the app's subclass of it (the resolver checks which). */
  useClass: Type<object>;
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
  /** How the deadline scheduler polls and retries. */
  deadlines: WorkflowDeadlineOptions;
  /** How long the receipts of keyed calls are kept, and how often expired ones are swept. */
  idempotency: WorkflowIdempotencyOptions;
}

/** Injection token of the resolved {@link WorkflowGateOptions}. */
export const WORKFLOW_GATE_OPTIONS = Symbol.for('nestjs-mcp-fsm:WorkflowGateOptions');
