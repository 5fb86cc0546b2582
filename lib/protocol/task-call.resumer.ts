import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { commitsStep } from '../gating/workflow-receipts.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { McpTaskRecord } from '../stores/mcp-task-store.interface.js';
import { McpTasks } from '../tasks/mcp-tasks.js';
import { MCP_TASK_OPTIONS, type McpResolvedTaskOptions } from '../tasks/task-options.interface.js';
import * as taskMessages from '../tasks/tasks.messages.js';
import { McpShutdownDrain } from './mcp-shutdown.drain.js';
import { replayedCaller } from './task-caller.js';
import { ToolCallHandler } from './tool-call.handler.js';

/** Orphaned tasks one sweep takes at most (the next sweep takes more). */
const SWEEP_BATCH = 100;

/**
 * Carries on the tasks whose process stopped (a crash, a SIGKILL: their lease ran out), at boot
 * and every `tasks.sweepIntervalMs`, on any process sharing the task store: each is adopted by
 * one process ({@link McpTasks.adopt}) and its call run again as its recorded caller with the
 * task's idempotency key, so a step the first process stored answers from its receipt (a step
 * parked for approval keeps the task `working` until its decision) and a step it did not store
 * runs here, once. A task no process can carry on safely (its workflow store keeps no receipts,
 * it was recorded before 0.5, its tool is outside any workflow) fails, saying so.
 */
@Injectable()
export class TaskCallResumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    @Inject(MCP_TASK_OPTIONS) private readonly options: McpResolvedTaskOptions,
    private readonly tasks: McpTasks,
    private readonly calls: ToolCallHandler,
    private readonly tools: McpToolRegistry,
    private readonly access: McpAccessPolicy,
    private readonly sessions: McpSessionRegistry,
    private readonly store: FsmStoreAdapter,
    private readonly drain: McpShutdownDrain,
  ) {}

  /** Sweeps at once (tasks a stopped process left are carried on from the first moments of a restart), then every interval. */
  onApplicationBootstrap(): void {
    const sweep = () => {
      this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    };
    sweep();
    this.timer = setInterval(sweep, this.options.sweepIntervalMs).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Adopts the orphaned tasks it finds and carries each on, or fails it; a failure is logged and tried again at the next interval. */
  private async sweep(): Promise<void> {
    try {
      for (const orphan of await this.tasks.orphans(SWEEP_BATCH)) {
        if (this.drain.closing) return;
        const adopted = await this.tasks.adopt(orphan);
        if (adopted) await this.carryOn(adopted);
      }
    } catch (error) {
      this.logger.warn(taskMessages.taskOrphanSweepFailed(error));
    }
  }

  /** Runs an adopted task's call again as its recorded caller, or fails the task when that would not be safe. */
  private async carryOn(record: McpTaskRecord): Promise<void> {
    const caller = record.request.caller;
    const tool = this.tools.get(record.request.name);
    const safe = caller && this.store.supports.receipts && (!tool || tool.role.kind === 'read' || commitsStep(tool.role));
    if (!safe) {
      await this.tasks.lose(record);
      return;
    }
    const live = record.sessionId === undefined ? undefined : this.sessions.get(record.sessionId);
    const { session, extra } = replayedCaller(record, caller, live);
    if (!live) session.grants = await this.access.grantsOf(extra.authInfo);
    this.logger.log(taskMessages.taskAdopted(record.taskId, record.request.name));
    this.calls.carryOn(record, session, extra);
  }
}
