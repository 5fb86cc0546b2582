import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { MutableToolContext, WorkflowCaller } from '../gating/workflow-call.js';
import type { WorkflowCallOutcome } from '../gating/workflow-call-outcome.js';
import { WorkflowCutoff } from '../gating/workflow-cutoff.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowDueTimer } from '../stores/workflow-timer.interface.js';
import * as messages from './deadlines.messages.js';
import { WorkflowDeadlines } from './workflow-deadlines.js';

/** The longest wait between two attempts of a failing timer. */
const MAX_RETRY_MS = 300_000;
/** The longest wait between two polls while the store keeps failing them. */
const MAX_POLL_BACKOFF_MS = 60_000;
/** Refusals that mean the timer can never fire: the instance left the state (or is gone), or a guard said no. */
const DROPPED = new Set(['FORBIDDEN', 'UNKNOWN_HANDLE', 'UNKNOWN_STATE', 'GUARD_REJECTED', 'STALE_REQUEST']);

/** What the deadline scheduler of this process knows of its polls, for health checks (`McpHealthService.checkDeadlines`). */
export interface WorkflowDeadlinePolling {
  /** Whether this process polls for due timers (a machine has `after`, or an approval expires). */
  readonly active: boolean;
  /** When a poll last succeeded, epoch milliseconds. */
  readonly lastPollOkAt?: number;
  /** Since when polls fail, without a success between (epoch milliseconds); `undefined` while they succeed. */
  readonly failingSince?: number;
  /** Polls failed in a row. */
  readonly failedPolls: number;
  /** Why the last poll failed, while they fail. */
  readonly lastError?: string;
  /** Timers given up since the process started (their firing failed `maxAttempts` times; each was dropped and its instance left where it was). */
  readonly gaveUp: number;
}

/**
 * Fires due durable timers (`after` transitions) in every process: each poll claims up to
 * `batchSize` due timers in one indexed store query (exactly one process claims a timer at a
 * time), then fires each through the gate runner as a call of its deadline definition, whose
 * caller is the deadline: the instance is claimed, guards run, the effect runs, the commit
 * stores the state with its history row (`deadline:<timer id>`), deletes the fired timer under
 * the claim's token, and the sessions that follow the instance get `list_changed`. A timer the
 * gate refuses (its state was left) is dropped; a failing one is retried with backoff, at most
 * `maxAttempts` times. The first poll runs at bootstrap, so a timer that fell due while no
 * process ran fires within one call of the start (and later ones within `pollMs` of falling due).
 */
@Injectable()
export class WorkflowDeadlineScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpDeadlines');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** How polls went: what {@link WorkflowDeadlineScheduler.polling} answers (the next poll after a failure waits longer). */
  private state: WorkflowDeadlinePolling = { active: false, failedPolls: 0, gaveUp: 0 };
  /** Aborted at shutdown: a firing not yet committing is abandoned, as any call is. */
  private readonly cutoff = new AbortController();
  /** The firings' cutoff, as the gate's calls see it. */
  private readonly calls = new WorkflowCutoff(this.cutoff.signal);

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly deadlines: WorkflowDeadlines,
    private readonly gate: WorkflowGate,
  ) {}

  /** Starts polling when a machine has `after` transitions; a store that keeps no timers fails the bootstrap. */
  async onApplicationBootstrap(): Promise<void> {
    const machines = this.deadlines.machinesWithDeadlines();
    if (machines.length === 0) return;
    if (!this.store.supports.timers) throw new Error(messages.deadlinesNeedTimerStore(this.store.name, machines));
    await this.store.timers.assertTimerSchema?.();
    this.state = { ...this.state, active: true };
    this.schedule(0);
  }

  /** How this process's polls went, at once (no round trip). */
  polling(): WorkflowDeadlinePolling {
    return this.state;
  }

  /** Stops polling and waits for the poll in flight. */
  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.cutoff.abort(new Error('The server is shutting down.'));
    await this.running;
  }

  /**
   * One poll: claims a batch of due timers and fires them, `concurrency` instances at a time
   * (earliest first; the timers of one instance one after the other, as a second call would
   * find the instance claimed); answers how many it claimed.
   */
  async poll(now = Date.now()): Promise<number> {
    const { batchSize, concurrency } = this.options.deadlines;
    const token = randomUUID();
    const due = await this.store.claimDueTimers({ now, limit: batchSize, token, leaseMs: this.options.leaseMs });
    const byInstance = new Map<string, WorkflowDueTimer[]>();
    for (const timer of due) byInstance.set(timer.key, [...(byInstance.get(timer.key) ?? []), timer]);
    const instances = [...byInstance.values()];
    let next = 0;
    const worker = async () => {
      while (next < instances.length && !this.stopped) {
        for (const timer of instances[next++]) {
          if (this.stopped) break;
          await this.fire(timer, token);
        }
      }
    };
    // Every worker is done before the poll answers (shutdown awaits it), even when one failed.
    const settled = await Promise.allSettled(Array.from({ length: Math.min(concurrency, instances.length) }, worker));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return due.length;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pollSafely().finally(() => (this.running = undefined));
    }, delayMs);
    this.timer.unref();
  }

  private async pollSafely(): Promise<void> {
    const { pollMs, batchSize } = this.options.deadlines;
    let claimed: number;
    try {
      claimed = await this.poll();
      this.state = { active: true, lastPollOkAt: Date.now(), failedPolls: 0, gaveUp: this.state.gaveUp };
    } catch (error) {
      // A store that keeps failing (down, or closed under a process that did not shut down) is polled less and less often.
      const failedPolls = this.state.failedPolls + 1;
      const lastError = error instanceof Error ? error.message : String(error);
      this.state = { ...this.state, failedPolls, failingSince: this.state.failingSince ?? Date.now(), lastError };
      const retryMs = Math.min(pollMs * 2 ** failedPolls, MAX_POLL_BACKOFF_MS);
      this.logger.warn(messages.deadlinePollFailed(error, retryMs));
      this.schedule(retryMs);
      return;
    }
    // A full batch may have more behind it: poll again at once.
    this.schedule(claimed >= batchSize ? 0 : pollMs);
  }

  private async fire(timer: WorkflowDueTimer, token: string): Promise<void> {
    const firing = this.deadlines.firingOf(timer);
    const snapshot = firing && (await this.store.load(timer.key));
    if (!firing || !snapshot) {
      await this.store.timers.dropTimer(timer.key, timer.id, token);
      return;
    }
    if (waitsForDecision(firing.target, snapshot)) {
      // Due again when this claim lapses: the decision cancels it (approved, the state is left) or brings it back (rejected, withdrawn).
      return;
    }
    const { id } = parseInstanceKey(timer.key);
    const handleKey = this.machines.machine(timer.machine).stateHandleKey;
    const caller: WorkflowCaller = {
      kind: 'stateless',
      sessionStoreKey: () => timer.key,
      deadline: { id: timer.id, token, owner: snapshot.owner, team: snapshot.team },
    };
    const outcome = await this.gate.run({
      target: firing.target,
      caller,
      args: handleKey ? { ...firing.args, [handleKey]: id } : firing.args,
      context: this.context(timer),
      transport: [{ headers: {} }, undefined],
      cutoff: this.calls,
    });
    await this.settle(timer, token, outcome);
  }

  /** After a firing: nothing to do when it was stored (the commit deleted the timer); drops a refused one; retries a failed one. */
  private async settle(timer: WorkflowDueTimer, token: string, outcome: WorkflowCallOutcome): Promise<void> {
    if (outcome.status !== 'failed' || this.stopped) return;
    const code = outcome.refusal?.data.code;
    if (code === 'BUSY') return; // Another call holds the instance: due again when the claim lapses.
    if (code !== undefined && DROPPED.has(code)) {
      await this.store.timers.dropTimer(timer.key, timer.id, token);
      return;
    }
    const attempt = timer.attempts + 1;
    const { maxAttempts, retryMs } = this.options.deadlines;
    if (attempt >= maxAttempts) {
      this.logger.error(messages.deadlineGaveUp(timer.id, timer.key, attempt, outcome.error));
      this.state = { ...this.state, gaveUp: this.state.gaveUp + 1 };
      await this.store.timers.dropTimer(timer.key, timer.id, token);
      return;
    }
    const retryAt = Date.now() + Math.min(MAX_RETRY_MS, retryMs * 2 ** timer.attempts);
    this.logger.warn(messages.deadlineFailed(timer.id, timer.key, attempt, retryAt, outcome.error));
    await this.store.timers.retryTimer(timer.key, timer.id, token, retryAt);
  }

  /** The context a deadline's effect gets: no session, no client to ask or notify. */
  private context(timer: WorkflowDueTimer): MutableToolContext {
    const logger = this.logger;
    return {
      toolName: timer.event,
      extra: {
        signal: this.cutoff.signal,
        requestId: `deadline:${timer.id}`,
        sendNotification: async () => {},
        sendRequest: async () => {
          throw new Error(`A deadline (${timer.id}) has no client to ask.`);
        },
      } as unknown as MutableToolContext['extra'],
      async log(level, data) {
        logger.log(`[${level}] ${typeof data === 'string' ? data : JSON.stringify(data)}`);
      },
      async reportProgress() {},
    };
  }
}

/**
 * Whether a deadline of the state a waiting request parked from is due while the request waits
 * (`@McpApproval`): it waits with the request, so that a requester cannot escape it by asking and
 * withdrawing. The request's own expiry (a decision tool's firing) does not wait.
 */
function waitsForDecision(target: McpHandlerDefinition, snapshot: WorkflowSnapshot): boolean {
  const { role } = target;
  return snapshot.waiting !== undefined && role.kind === 'transition' && !role.decision && !role.states.includes(snapshot.state);
}
