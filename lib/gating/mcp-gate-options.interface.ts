import type { Type } from '@nestjs/common';
import type { WorkflowGate } from './workflow-gate.js';
import type { McpDeadlineOptions } from './deadline-options.interface.js';
import type { McpRetentionOptions } from './retention-options.interface.js';
import type { McpIdempotencyOptions } from './idempotency-options.interface.js';

/** How workflow calls are claimed, refused, listed and kept (`McpModuleOptions.gate`). */
export interface McpGateOptions {
  /**
   * A subclass of `WorkflowGate` to run every workflow call with (override its protected methods);
   * created by Nest's injector, so it can inject your providers.
   * @default WorkflowGate
   */
  useClass?: Type<WorkflowGate>;
  /**
   * Lease of a claimed instance, in milliseconds. The lease is renewed every third of it
   * while the handler runs (stores with `renew`); after a crash, the instance is free again
   * once it runs out.
   * @default 15_000
   */
  leaseMs?: number;
  /**
   * Run every claim as a row lock in a transaction the handler joins (stores that support it).
   * @default false
   */
  transactional?: boolean;
  /**
   * How a refusal reaches the client: a tool result with `isError: true` (what hosts show the
   * model), or a JSON-RPC error -32602 for strict clients.
   * @default 'result'
   */
  refusal?: 'result' | 'jsonrpc';
  /**
   * Which bound tools of handle-keyed machines a session's menu lists: those allowed for a
   * handle the session started or used (`'used'`), or all of them, gated at call time
   * (`'all'`), for clients that list before every call and keep no session, such as the
   * MCP Inspector CLI. Stateless HTTP always lists all of them.
   * @default 'used'
   */
  handleToolsMenu?: 'used' | 'all';
  /**
   * Retention of workflow instances in the store (stores with `sweep`: both shipped ones). A
   * sweep runs every `intervalMs` in batches of `batchSize`, safe with several processes on
   * one store.
   * @default off: nothing is deleted
   */
  retention?: McpRetentionOptions;
  /**
   * How the deadline scheduler fires the durable timers of `after` transitions (it runs in
   * every process when a machine has `after`; each timer fires once across them).
   * @default { pollMs: 1_000, batchSize: 100, concurrency: 4, maxAttempts: 5, retryMs: 1_000 }
   */
  deadlines?: McpDeadlineOptions;
  /**
   * How long the receipts of keyed calls answer their repeats (a `tools/call` with
   * `_meta["nestjs-mcp-fsm/idempotency-key"]`, a task's call; stores that keep receipts: both
   * shipped ones). See docs/failures-and-retries.md.
   * @default { retentionMs: 86_400_000, sweepIntervalMs: 60_000 }
   */
  idempotency?: McpIdempotencyOptions;
}
