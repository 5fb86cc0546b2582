import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { WorkflowTaskRef } from '../gating/workflow-task.js';
import type { WorkflowIdempotency } from '../gating/workflow-call.js';
import { WorkflowCutoff } from '../gating/workflow-cutoff.js';
import type { McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { isInputRequired, type McpInputRequired } from '../results/input-required.js';
import type { McpSession } from '../sessions/mcp-session.js';
import type { McpTaskChange, McpTaskError, McpTaskRecord } from '../stores/mcp-task-store.interface.js';
import { McpTasks, taskRequesterOf } from '../tasks/mcp-tasks.js';
import * as taskMessages from '../tasks/tasks.messages.js';
import { JSON_RPC_INTERNAL_ERROR, JSON_RPC_INVALID_PARAMS } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { McpShutdownDrain } from './mcp-shutdown.drain.js';
import { recordedCaller } from './task-caller.js';

/** What a call run as a task is handed: where it sends to its client, when it must stop, the task it runs as, and how it says it waits. */
export interface TaskCallScope {
  /** The request's extra, for a call that outlives its request: its notifications and requests go on the session's own stream, its signal is the task's. */
  extra: McpToolContext['extra'];
  /** Aborted when the task is cancelled here or the server stops waiting for running calls. */
  cutoff: WorkflowCutoff;
  task: WorkflowTaskRef;
  /** The call's idempotency key (the client's, else the task's id), the task's requester's: the call commits its step once, whichever process runs it. */
  idempotency: WorkflowIdempotency;
  /** Whether this process carries the task on after the process running it stopped. */
  adopted: boolean;
  /** Called when the gate answers that the call waits (another principal decides): the task stays `working` with that message. */
  waits: (statusMessage: string | undefined) => void;
  /** Called when the call could not run yet (its store is down; an adopted call's instance is still claimed): a later sweep runs it again. */
  later: () => void;
}

/** One run of a call as a task: its result, or the question it asks the client (2026-07-28, through `tasks/update`). */
export type TaskCallRun = (scope: TaskCallScope) => Promise<CallToolResult | McpInputRequired>;

/**
 * Runs task-augmented calls: records the task (its requester's; refused for a caller nobody
 * could tell apart), answers it at once, and runs the call in the background exactly as an
 * in-band call (the same gate, claim and commit). Its result (a refusal: a tool error, as
 * in-band) completes the task; a call that waits leaves it `working` with the wait's message,
 * for the step that ends the wait to settle; a failure inside the server fails it with its
 * JSON-RPC error; a cancelled task's call is abandoned unless it already began to commit.
 */
@Injectable()
export class TaskCallRunner {
  private readonly logger = new Logger('McpTasks');

  constructor(
    private readonly tasks: McpTasks,
    private readonly drain: McpShutdownDrain,
  ) {}

  /**
   * Creates the task of `tool`'s call with `args` by `session`'s caller (with the client's
   * idempotency key, if any, and the caller's authority, for a process that carries it on),
   * starts `run` in the background, and answers the task.
   */
  async start(
    session: McpSession,
    tool: McpToolDefinition,
    args: Record<string, unknown>,
    extra: McpToolContext['extra'],
    ttlMs: number | undefined,
    run: TaskCallRun,
    idempotencyKey?: string,
  ): Promise<McpTaskRecord> {
    const requester = taskRequesterOf(session, extra.authInfo?.clientId);
    if (requester === undefined) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskNeedsRequester(tool.name));
    }
    const caller = recordedCaller(session, extra.authInfo);
    const request = { name: tool.name, arguments: args, caller, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) };
    const record = await this.tasks.create(requester, session, request, ttlMs);
    void this.runInBackground(record, session, extra, run, false);
    return record;
  }

  /** Runs a task's call again in the background (a new round, once the client answered what it asked). */
  resume(record: McpTaskRecord, session: McpSession, extra: McpToolContext['extra'], run: TaskCallRun): void {
    void this.runInBackground(record, session, extra, run, false);
  }

  /** Runs in the background the call of a task this process adopted after the process running it stopped (with the task's idempotency key). */
  carryOn(record: McpTaskRecord, session: McpSession, extra: McpToolContext['extra'], run: TaskCallRun): void {
    void this.runInBackground(record, session, extra, run, true);
  }

  /** Runs the call and moves the task as it ends; never rejects. */
  private async runInBackground(
    record: McpTaskRecord,
    session: McpSession,
    extra: McpToolContext['extra'],
    run: TaskCallRun,
    adopted: boolean,
  ): Promise<void> {
    const { taskId } = record;
    const { signal, done } = this.tasks.track(taskId);
    let waiting: { statusMessage: string | undefined } | undefined;
    let later = false;
    let result: CallToolResult | McpInputRequired;
    try {
      result = await run({
        extra: backgroundExtra(session, extra, signal),
        cutoff: new WorkflowCutoff(AbortSignal.any([this.drain.calls.signal, signal])),
        task: { taskId },
        idempotency: { key: record.request.idempotencyKey ?? taskId, requester: record.requester },
        adopted,
        waits: (statusMessage) => (waiting = { statusMessage }),
        later: () => (later = true),
      });
    } catch (error) {
      done();
      if (!signal.aborted) await this.fail(record, error);
      return;
    }
    done();
    try {
      const kept = await this.tasks.change(taskId, later ? this.tryLater() : endOf(result, waiting));
      // Cancelled while its call was parking the request: withdraw it, so a cancelled task's request never runs.
      if (!kept && waiting && !later) await this.tasks.withdrawCancelled(record);
    } catch (error) {
      // How the call ended is not recorded: the task keeps the lease it has until it runs out, and a
      // sweep of any process then carries it on (a step it stored answers from its receipt).
      this.logger.warn(taskMessages.taskEndNotRecorded(taskId, record.request.name, error));
    }
  }

  /** A task whose call could not run yet: still working, its lease run out, so the next sweep of any process takes it again. */
  private tryLater(): McpTaskChange {
    return { status: 'working', statusMessage: taskMessages.taskTriedAgain(), leaseUntil: Date.now() - 1 };
  }

  /** Fails the task with the call's JSON-RPC error, or an internal error (logged) for anything else. */
  private async fail(record: McpTaskRecord, error: unknown): Promise<void> {
    let failure: McpTaskError;
    if (error instanceof JsonRpcError) {
      failure = { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
    } else {
      this.logger.error(
        taskMessages.taskRunFailed(record.taskId, record.request.name, error),
        error instanceof Error ? error.stack : undefined,
      );
      failure = { code: JSON_RPC_INTERNAL_ERROR, message: taskMessages.taskFailedInternally() };
    }
    try {
      await this.tasks.change(record.taskId, { status: 'failed', statusMessage: failure.message, error: failure, leaseUntil: null });
    } catch (stored) {
      this.logger.error(taskMessages.taskRunFailed(record.taskId, record.request.name, stored));
    }
  }
}

/**
 * The request's extra for a call that outlives its request (its response is the task): on a
 * 2025 session its notifications and requests go on the session's own stream, not the
 * request's, which has ended (a notification that cannot be delivered is dropped); its signal
 * is the task's.
 */
function backgroundExtra(session: McpSession, extra: McpToolContext['extra'], signal: AbortSignal): McpToolContext['extra'] {
  const server = session.server;
  if (!server) {
    return { ...extra, signal };
  }
  return {
    ...extra,
    signal,
    // A notification that cannot reach the client any more (its connection closed) is dropped: the task's result must not depend on it.
    sendNotification: (notification) => server.notification(notification).catch(() => undefined),
    sendRequest: (request, schema, options) => server.request(request, schema, options),
  } as McpToolContext['extra'];
}

/** How a task stands once its call answered `result`: asking its client (2026-07-28), waiting for someone else, or completed. */
function endOf(result: CallToolResult | McpInputRequired, waiting: { statusMessage: string | undefined } | undefined): McpTaskChange {
  if (isInputRequired(result)) {
    // Kept by the server: tasks/get shows the requests, tasks/update brings the answers, the state never leaves.
    const input = { inputRequests: result.inputRequests, requestState: result.requestState ?? null, answered: {} };
    return { status: 'input_required', input, leaseUntil: null };
  }
  if (waiting) {
    return {
      status: 'working',
      leaseUntil: null,
      ...(waiting.statusMessage === undefined ? {} : { statusMessage: waiting.statusMessage }),
    };
  }
  return { status: 'completed', statusMessage: null, result: result as Record<string, unknown>, leaseUntil: null };
}
