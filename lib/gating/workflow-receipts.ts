import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { McpHandlerRole, McpStartRole, McpTransitionRole } from '../registry/mcp-handler-role.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowCallAnswer, WorkflowCallReceipt } from '../stores/workflow-call-receipt.interface.js';
import * as messages from './gating.messages.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { McpCallResult, WorkflowInstanceRef } from './workflow-step-values.js';
import type { WorkflowCall } from './workflow-call.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import type { WorkflowRefusal } from './workflow-refusal.js';
import { WorkflowRefusals } from './workflow-refusals.js';

/**
 * The receipts of keyed calls (Stripe's idempotency keys): a call made with an idempotency key
 * that changes a workflow (a start or a transition) commits at most once per requester and key.
 * Before it runs, {@link WorkflowReceipts.recall} looks for the receipt of its key: the same
 * tool and arguments answer the first call's result without running anything, anything else
 * under the key is IDEMPOTENCY_KEY_REUSED; its commit writes the receipt in the same write as
 * its step ({@link WorkflowReceipts.receiptOf}), so a committed call and its receipt cannot
 * disagree; and a keyed call that failed (a repeat committed first, its own commit lost the
 * race) answers the receipt it finds then. Reads and tools outside any workflow run every time.
 */
@Injectable()
export class WorkflowReceipts {
  private readonly logger = new Logger('McpGate');
  /** The store's receipt table, once checked (by the first keyed call). */
  private schema?: Promise<void>;

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    private readonly refusals: WorkflowRefusals,
  ) {}

  /**
   * What a keyed call answers without running: the replay of its receipt, or its refusal
   * (IDEMPOTENCY_KEY_REUSED; STATE_UNAVAILABLE when the receipt cannot be read), or its error
   * (a store that keeps no receipts, a receipt table not migrated); `undefined` when it runs (no
   * key, nothing kept under it, or a call that commits nothing). Never rejects.
   */
  async recall(call: WorkflowCall): Promise<WorkflowCallOutcome | undefined> {
    const { idempotency } = call;
    const { role } = call.tool;
    if (!idempotency || !commitsStep(role)) return undefined;
    const unready = await this.unready(call, role.machine);
    if (unready) return unready;
    try {
      const receipt = await this.store.receipts.findReceipt(idempotency.requester, idempotency.key, Date.now());
      return receipt && this.answerOf(call, receipt);
    } catch (error) {
      return this.unavailable(call, role.machine, error);
    }
  }

  /**
   * Why no keyed call can be answered from receipts now: the store keeps none, or its receipt
   * table is missing (an error naming the migration), or the store is away (STATE_UNAVAILABLE);
   * `undefined` when it can.
   */
  private async unready(call: WorkflowCall, machine: string): Promise<WorkflowCallOutcome | undefined> {
    if (!this.store.supports.receipts) {
      return { call, status: 'failed', error: new Error(messages.idempotencyNeedsReceipts(this.store.name)), state: undefined };
    }
    try {
      await this.schemaReady();
      return undefined;
    } catch (error) {
      // A schema check of a store that is away says nothing of its schema.
      const away = await this.store.ping().then(
        () => false,
        () => true,
      );
      return away ? this.unavailable(call, machine, error) : { call, status: 'failed', error, state: undefined };
    }
  }

  /** STATE_UNAVAILABLE for a call whose receipt could not be read (nothing ran); the cause in the log. */
  private unavailable(call: WorkflowCall, machine: string, cause: unknown): WorkflowCallOutcome {
    this.logger.error(messages.storeFailed(call.tool.name, machine, cause), cause instanceof Error ? cause.stack : undefined);
    return failed(call, this.refusals.stateUnavailable(call, machine, false));
  }

  /**
   * The outcome of a keyed call that failed: the receipt a repeat committed meanwhile (its
   * answer, or IDEMPOTENCY_KEY_REUSED), when there is one now; else the outcome as it is.
   */
  async afterFailure(call: WorkflowCall, outcome: WorkflowCallOutcome): Promise<WorkflowCallOutcome> {
    const { idempotency } = call;
    if (outcome.status !== 'failed' || !idempotency || !commitsStep(call.tool.role) || !this.store.supports.receipts) return outcome;
    const receipt = await this.store.receipts.findReceipt(idempotency.requester, idempotency.key, Date.now()).catch(() => undefined);
    return receipt ? this.answerOf(call, receipt) : outcome;
  }

  /** The receipt the commit of a keyed call writes with its step: what it answered, on `instance`, now; `undefined` for a call without a key. */
  receiptOf(call: WorkflowCall, instance: WorkflowInstanceRef, answer: WorkflowCallAnswer): WorkflowCallReceipt | undefined {
    const { idempotency } = call;
    if (!idempotency) return undefined;
    const createdAt = Date.now();
    return {
      requester: idempotency.requester,
      idempotencyKey: idempotency.key,
      tool: call.tool.name,
      fingerprint: callFingerprint(call.tool.name, call.args),
      instanceKey: instance.storeKey,
      answer,
      createdAt,
      expiresAt: createdAt + this.options.idempotency.retentionMs,
    };
  }

  /** What a receipt answers `call`: the first call's result when it is the same call, else IDEMPOTENCY_KEY_REUSED. */
  private answerOf(call: WorkflowCall, receipt: WorkflowCallReceipt): WorkflowCallOutcome {
    const { machine, scope, id } = parseInstanceKey(receipt.instanceKey);
    if (receipt.tool !== call.tool.name || receipt.fingerprint !== callFingerprint(call.tool.name, call.args)) {
      return failed(call, this.refusals.idempotencyKeyReused(call, machine, receipt.idempotencyKey, receipt.tool));
    }
    const instance: WorkflowInstanceRef = { machine, storeKey: receipt.instanceKey, scope, ...(scope === 'handle' ? { handle: id } : {}) };
    const { result, state, waiting } = receipt.answer;
    return { call, status: 'answered', replayed: true, instance, state, result: result as McpCallResult, ...(waiting && { waiting }) };
  }

  /** Resolves once the store's receipt table is there (checked once; a failed check is tried again by the next keyed call). */
  private schemaReady(): Promise<void> {
    this.schema ??= Promise.resolve(this.store.receipts.assertReceiptSchema?.()).catch((error: unknown) => {
      this.schema = undefined;
      throw error;
    });
    return this.schema;
  }
}

/** Whether calls of `role` store a step a receipt can commit with: a start or a transition (reads and tools outside any workflow run every time). */
export function commitsStep(role: McpHandlerRole): role is McpStartRole | McpTransitionRole {
  return role.kind === 'start' || role.kind === 'transition';
}

/** The failed outcome of a call refused before it ran. */
function failed(call: WorkflowCall, refusal: WorkflowRefusal): WorkflowCallOutcome {
  return { call, status: 'failed', error: refusal, refusal, state: undefined };
}

/** SHA-256 (hex) of a tool's name and its arguments, objects' keys in order: the same call gives the same fingerprint. */
export function callFingerprint(tool: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify([tool, canonical(args)]))
    .digest('hex');
}

/** `value` with every object's keys sorted, so that JSON of equal arguments is equal. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}
