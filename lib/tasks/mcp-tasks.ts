import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { WorkflowTaskResults, WorkflowTaskWithdrawal } from '../gating/workflow-task.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { JSON_RPC_INTERNAL_ERROR, JSON_RPC_INVALID_PARAMS, MCP_STATE_UNAVAILABLE_CODE } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { MCP_TASK_ACTIVE_STATUSES, type McpTaskChange, type McpTaskRecord, McpTaskStore } from '../stores/mcp-task-store.interface.js';
import { MCP_TASK_OPTIONS, type McpResolvedTaskOptions } from './task-options.interface.js';
import { decodeTaskCursor, encodeTaskCursor, legacyTask } from './task-wire.js';
import * as messages from './tasks.messages.js';

/** Tasks one `tasks/list` page holds. */
const LIST_PAGE = 50;
/** Tasks one sweep deletes per store call, and store calls per sweep. */
const SWEEP_BATCH = 500;
const SWEEP_CALLS = 20;
/** The shortest `ttl` a client may ask for. */
const MIN_TTL_MS = 1_000;

/**
 * The requester a task belongs to: the authenticated principal, else the session (or the one
 * in-process attachment) of a 2025-era connection; an anonymous 2026-07-28 caller is
 * `anonymous` (the unguessable id is all its task has); `undefined` for an anonymous
 * stateless call, which nobody could tell apart from another.
 */
export function taskRequesterOf(session: McpSession, principal: string | undefined): string | undefined {
  if (principal !== undefined) return `principal:${principal}`;
  if (session.kind === 'modern') return 'anonymous';
  return session.scope ? `${session.scope.scope}:${session.scope.id}` : undefined;
}

/** The principal a task's requester names (see {@link taskRequesterOf}); `undefined` for a session's or an anonymous requester. */
export function taskPrincipalOf(requester: string): string | undefined {
  return requester.startsWith('principal:') ? requester.slice('principal:'.length) : undefined;
}

/**
 * MCP tasks, whichever era asks: creates them (at most `maxActivePerRequester` unfinished per
 * requester, kept `ttl` capped at `maxTtlMs`), answers them to their requester only (to anyone
 * else a task is not found), moves them once from `working` whichever process does it, tells
 * the requester's session when it is on this process (elsewhere, `tasks/get` polling sees the
 * store), cancels the calls this process runs for them, and deletes expired ones when
 * `McpTaskSweeper` asks (the module builds it only when a tool can make tasks). It is the
 * module's `WorkflowTaskResults`: the step that ends a wait settles the task from any process.
 */
@Injectable()
export class McpTasks implements WorkflowTaskResults {
  private readonly logger = new Logger('McpTasks');
  /** Calls this process runs for tasks, by task id: aborted when the task is cancelled. */
  private readonly running = new Map<string, AbortController>();
  /** How a cancelled task's waiting request is withdrawn (`McpApprovalsService` registers it). */
  private withdrawal?: WorkflowTaskWithdrawal;

  constructor(
    @Inject(MCP_TASK_OPTIONS) private readonly options: McpResolvedTaskOptions,
    @Inject(McpTaskStore) private readonly store: McpTaskStore,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    private readonly sessions: McpSessionRegistry,
  ) {}

  /**
   * Records a new `working` task of `requester` for the call `request` of `session`, kept
   * `ttlMs` (the client's ask, between 1 s and `maxTtlMs`; `defaultTtlMs` without one).
   * Throws -32602 when the requester holds `maxActivePerRequester` unfinished tasks (the store
   * counts and inserts in one atomic step, so a burst never gets past the cap).
   */
  async create(requester: string, session: McpSession, request: McpTaskRecord['request'], ttlMs?: number): Promise<McpTaskRecord> {
    const now = Date.now();
    const ttl = ttlMs === undefined ? this.options.defaultTtlMs : Math.min(Math.max(Math.floor(ttlMs), MIN_TTL_MS), this.options.maxTtlMs);
    const sessionKey = session.id ?? (session.kind === 'stdio' ? 'stdio' : undefined);
    const record: McpTaskRecord = {
      taskId: randomUUID(),
      requester,
      ...(sessionKey === undefined ? {} : { sessionId: sessionKey }),
      serverId: this.identity.serverId,
      request,
      status: 'working',
      ttlMs: ttl,
      pollIntervalMs: this.options.pollIntervalMs,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + ttl,
      leaseUntil: now + this.options.leaseMs,
    };
    const limit = this.options.maxActivePerRequester;
    if (!(await this.stored(`tools/call of "${request.name}" as a task`, () => this.store.create(record, limit)))) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskLimitReached(limit));
    }
    return record;
  }

  /** The task when it is `requester`'s and has not expired; `undefined` otherwise (unknown, expired, someone else's alike). */
  async find(taskId: string, requester: string | undefined): Promise<McpTaskRecord | undefined> {
    if (requester === undefined) return undefined;
    const record = await this.stored(`the task "${taskId}"`, () => this.store.find(taskId));
    return record && record.requester === requester && record.expiresAt > Date.now() ? record : undefined;
  }

  /** The task of `requester`, or -32602 `Task not found`. */
  async get(taskId: string, requester: string | undefined): Promise<McpTaskRecord> {
    const record = await this.find(taskId, requester);
    if (!record) throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskNotFound(taskId));
    return record;
  }

  /** One page of `requester`'s live tasks, oldest first, and the cursor of the next when there may be one. */
  async list(requester: string | undefined, cursor?: string): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
    const after = cursor === undefined ? undefined : decodeTaskCursor(cursor);
    if (cursor !== undefined && !after) throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskCursorInvalid());
    if (requester === undefined) return { tasks: [] };
    const tasks = await this.stored('tasks/list', () => this.store.list(requester, Date.now(), LIST_PAGE, after));
    return tasks.length === LIST_PAGE ? { tasks, nextCursor: encodeTaskCursor(tasks[tasks.length - 1]) } : { tasks };
  }

  /**
   * Cancels `requester`'s task if it has not ended (the call this process runs for it is
   * aborted: abandoned unless it already began to commit) and tells its session; the task as
   * it is then. A task whose call waits for a second person's approval has its request
   * withdrawn first; when the request was decided first, the task keeps that result and this
   * throws -32602 saying so (and when a decision held it all the while the withdrawal tried,
   * -32602 saying that nothing changed). Throws -32602 for a task that is not the requester's.
   */
  async cancel(taskId: string, requester: string | undefined): Promise<McpTaskRecord> {
    const record = await this.get(taskId, requester);
    const withdrawn = record.status === 'working' ? await this.withdraw(record) : 'none';
    if (withdrawn === 'decided') {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskRequestDecided(taskId));
    }
    if (withdrawn === 'busy') {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskRequestBeingDecided(taskId));
    }
    const cancelled = await this.change(taskId, { status: 'cancelled', statusMessage: messages.taskCancelledByClient() });
    if (cancelled) {
      this.running.get(taskId)?.abort(new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.taskCancelledByClient()));
    }
    return cancelled ?? (await this.stored(`the task "${taskId}"`, () => this.store.find(taskId))) ?? record;
  }

  /**
   * An abort signal for the call this process runs for the task, until `done` runs; meanwhile
   * the task's lease is renewed every third of `leaseMs`, so no sweep takes this process for gone.
   */
  track(taskId: string): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    this.running.set(taskId, controller);
    const renewal = setInterval(
      () => {
        const now = Date.now();
        this.store
          .update(taskId, { status: 'working', leaseUntil: now + this.options.leaseMs }, ['working'], now)
          .catch((error: unknown) => {
            this.logger.warn(messages.taskLeaseNotRenewed(taskId, error));
          });
      },
      Math.max(1, Math.floor(this.options.leaseMs / 3)),
    ).unref();
    return {
      signal: controller.signal,
      done: () => {
        clearInterval(renewal);
        this.running.delete(taskId);
      },
    };
  }

  /** The lease of a call this process starts running now. */
  leaseFromNow(): number {
    return Date.now() + this.options.leaseMs;
  }

  /** @inheritdoc */
  withdrawOnCancel(withdrawal: WorkflowTaskWithdrawal): void {
    this.withdrawal = withdrawal;
  }

  /**
   * Withdraws the waiting request of a task cancelled while its call was parking it (the park
   * committed after the cancel): so a cancelled task's request never runs.
   */
  async withdrawCancelled(record: McpTaskRecord): Promise<void> {
    await this.withdraw({ ...record, leaseUntil: undefined });
  }

  /** Withdraws the request the task's call left waiting, if any; what it found. */
  private withdraw(record: McpTaskRecord) {
    const principal = taskPrincipalOf(record.requester);
    const task = {
      taskId: record.taskId,
      request: record.request,
      parked: record.leaseUntil === undefined,
      ...(principal && { principal }),
    };
    return this.withdrawal ? this.withdrawal(task) : Promise.resolve('none' as const);
  }

  /** Completes a task with a tool result (an error result too), from any process; nothing when it already ended. */
  async settle(taskId: string, result: CallToolResult): Promise<void> {
    await this.change(taskId, { status: 'completed', statusMessage: null, result: result as Record<string, unknown>, leaseUntil: null });
  }

  /** Moves a task that has not ended and tells its session; the task as changed, `undefined` when it had ended (or expired). */
  async change(taskId: string, change: McpTaskChange): Promise<McpTaskRecord | undefined> {
    const record = await this.stored(`the task "${taskId}"`, () => this.store.update(taskId, change, MCP_TASK_ACTIVE_STATUSES, Date.now()));
    if (record) await this.notify(record);
    return record;
  }

  /** `notifications/tasks/status` to the task's session when this process serves it (2025 era); elsewhere the requester polls. */
  private async notify(record: McpTaskRecord): Promise<void> {
    const session = record.sessionId === undefined ? undefined : this.sessions.get(record.sessionId);
    if (!session) return;
    try {
      await session.server.notification({ method: 'notifications/tasks/status', params: legacyTask(record) });
    } catch (error) {
      this.logger.warn(messages.taskNotifyFailed(record.taskId, error));
    }
  }

  /**
   * At most `limit` working tasks whose process stopped (their lease ran out), for the process
   * that carries tasks on; see {@link McpTasks.adopt}.
   */
  orphans(limit: number): Promise<McpTaskRecord[]> {
    return this.store.orphans(Date.now(), limit);
  }

  /**
   * Takes a working task whose process stopped for this process (a new lease, a status message
   * saying so), unless another process took it first or its own renewed it; the task as adopted.
   */
  async adopt(record: McpTaskRecord): Promise<McpTaskRecord | undefined> {
    const now = Date.now();
    const adopted = await this.store.adopt(record.taskId, now + this.options.leaseMs, messages.taskCarriedOn(), now);
    if (adopted) await this.notify(adopted);
    return adopted;
  }

  /**
   * Fails a working task whose process stopped and that no process can carry on (its store
   * keeps no receipts, or it was recorded before 0.5, or its tool is outside any workflow),
   * saying so; a task its process settled meanwhile is left alone.
   */
  async lose(record: McpTaskRecord): Promise<void> {
    const lost = messages.taskProcessLost();
    const change = {
      status: 'failed' as const,
      statusMessage: lost,
      error: { code: JSON_RPC_INTERNAL_ERROR, message: lost },
      leaseUntil: null,
    };
    const failed = await this.store.update(record.taskId, change, ['working'], Date.now());
    if (failed) await this.notify(failed);
  }

  /** The work of a request on the task store; a store that fails is STATE_UNAVAILABLE (-32000, nothing done, retry), its cause logged. */
  private async stored<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      this.logger.warn(messages.taskStoreFailed(what, error));
      throw new JsonRpcError(MCP_STATE_UNAVAILABLE_CODE, messages.taskStoreUnavailable(what), { code: 'STATE_UNAVAILABLE' });
    }
  }

  /** Deletes expired tasks, in bounded batches (`McpTaskSweeper` calls it); a failure is logged and tried again at the next sweep. */
  async sweep(): Promise<void> {
    try {
      for (let calls = 0; calls < SWEEP_CALLS; calls++) {
        if ((await this.store.sweep(Date.now(), SWEEP_BATCH)) < SWEEP_BATCH) return;
      }
    } catch (error) {
      this.logger.warn(messages.taskSweepFailed(error));
    }
  }
}
