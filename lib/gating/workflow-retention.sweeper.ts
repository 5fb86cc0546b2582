import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { WorkflowSweepRequest } from '../stores/atomic-fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import * as messages from './gating.messages.js';

/** The most store calls one sweep makes, so a backlog is worked off over several sweeps. */
const MAX_BATCHES_PER_SWEEP = 20;

/**
 * Retention (`retention` option): every `intervalMs`, deletes instances in a final state
 * `finishedMs` after their last transition, with their history, and instances of handle-keyed
 * machines that have not moved for `idleHandleMs`, in bounded batches. Several processes on one
 * store may sweep at once: a delete is conditional and idempotent, and a leased instance is
 * never deleted. A failed sweep is logged and tried again at the next interval.
 */
@Injectable()
export class WorkflowRetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpRetention');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
  ) {}

  onApplicationBootstrap(): void {
    const { finishedMs, idleHandleMs, intervalMs } = this.options.retention;
    if (finishedMs === undefined && idleHandleMs === undefined) {
      return;
    }
    if (!this.store.supports.sweep) {
      this.logger.warn(messages.retentionUnsupported(this.store.name));
      return;
    }
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, intervalMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep: store calls until one deletes less than a batch, at most {@link MAX_BATCHES_PER_SWEEP}. */
  private async sweep(): Promise<void> {
    const request = this.request(Date.now());
    try {
      for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
        if ((await this.store.sweep(request)) < request.limit) {
          return;
        }
      }
    } catch (error) {
      this.logger.warn(messages.retentionFailed(error));
    }
  }

  private request(now: number): WorkflowSweepRequest {
    const { finishedMs, idleHandleMs, batchSize } = this.options.retention;
    const ids = this.machines.ids();
    const finished =
      finishedMs === undefined
        ? undefined
        : {
            machines: ids.map((machine) => {
              const engine = this.machines.engine(machine);
              return { machine, states: engine.statePaths().filter((state) => engine.knows(state) && engine.isFinal(state)) };
            }),
            before: now - finishedMs,
          };
    const idle =
      idleHandleMs === undefined
        ? undefined
        : { machines: ids.filter((machine) => this.machines.machine(machine).stateHandleKey), before: now - idleHandleMs };
    return { finished, idle, limit: batchSize };
  }
}
