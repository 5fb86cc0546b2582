import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import * as messages from './gating.messages.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';

/** Receipts one store call deletes, and store calls per sweep, so a backlog is worked off over several sweeps. */
const SWEEP_BATCH = 500;
const MAX_BATCHES_PER_SWEEP = 20;

/**
 * Deletes the receipts of keyed calls once they expire (`gate.idempotency.retentionMs` after
 * their commit), every `sweepIntervalMs`, in bounded batches, on a store that keeps receipts.
 * Several processes on one store may sweep at once (a delete is conditional and idempotent);
 * a failed sweep is logged and tried again at the next interval. An expired receipt is never
 * answered, swept or not.
 */
@Injectable()
export class WorkflowReceiptSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpGate');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.store.supports.receipts) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, this.options.idempotency.sweepIntervalMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep: store calls until one deletes less than a batch, at most {@link MAX_BATCHES_PER_SWEEP}. */
  private async sweep(): Promise<void> {
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
        if ((await this.store.receipts.sweepReceipts(Date.now(), SWEEP_BATCH)) < SWEEP_BATCH) return;
      }
    } catch (error) {
      this.logger.warn(messages.receiptSweepFailed(error));
    }
  }
}
