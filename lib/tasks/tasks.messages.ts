import { echo } from '../client-input/client-input.echo.js';

/** Messages of MCP tasks, worded once (clients and operators read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Option error: the default ttl is longer than the longest. */
export const taskDefaultTtlTooLong = (defaultTtlMs: number, maxTtlMs: number): string =>
  `tasks.defaultTtlMs (${defaultTtlMs}) is longer than tasks.maxTtlMs (${maxTtlMs}).`;

/** Client error: the requester holds as many unfinished tasks as allowed. */
export const taskLimitReached = (limit: number): string =>
  `You already have ${limit} tasks that have not ended (tasks.maxActivePerRequester); wait for one to end or cancel one, then call again.`;

/** Client error: a task-augmented call from a caller nobody could tell apart (stateless HTTP, anonymous). */
export const taskNeedsRequester = (tool: string): string =>
  `Tool "${echo(tool)}" cannot run as a task here: a task belongs to its requester, and this anonymous stateless call has none. Authenticate, or use a session.`;

/** Client error: a tool that needs a task was called without one. */
export const taskRequired = (tool: string): string =>
  `Tool "${echo(tool)}" runs only as a task: call it with params.task (for example { "task": { "ttl": 60000 } }).`;

/** Client error: a task asked of a tool that accepts none. */
export const taskNotAccepted = (tool: string): string =>
  `Tool "${echo(tool)}" does not run as a task: call it without params.task (its tools/list entry has no execution.taskSupport).`;

/** Client error (2026-07-28): a tool that runs only as a task, called without the tasks extension. */
export const taskExtensionRequired = (tool: string): string =>
  `Tool "${echo(tool)}" runs only as a task: declare the io.modelcontextprotocol/tasks extension in the request's client capabilities.`;

/** Client error (2026-07-28): a tasks method without the tasks extension. */
export const taskMethodNeedsExtension = (method: string): string =>
  `${method} needs the io.modelcontextprotocol/tasks extension: declare it in the request's client capabilities.`;

/** Client error (2026-07-28): `tasks/update` of a task that waits for no input. */
export const taskNotWaitingForInput = (taskId: string): string => `Task "${echo(taskId)}" does not wait for input: nothing to update.`;

/** Client error: no task with this id is the caller's (unknown, expired, or someone else's: the same answer). */
export const taskNotFound = (taskId: string): string => `Task "${echo(taskId)}" not found.`;

/** Client error: `tasks/result` of a cancelled task. */
export const taskCancelledNoResult = (taskId: string): string => `Task "${echo(taskId)}" was cancelled: it has no result.`;

/** Client error: `tasks/list` with a cursor it never gave. */
export const taskCursorInvalid = (): string => 'Invalid tasks/list cursor: pass the nextCursor of the previous page, unchanged.';

/** Status message of a task that is cancelled. */
export const taskCancelledByClient = (): string => 'Cancelled by the client.';

/** Status message of a task whose call failed inside the server. */
export const taskFailedInternally = (): string => 'The call failed inside the server.';

/** Status message (and error) of a task whose process stopped while its call ran. */
export const taskProcessLost = (): string =>
  'The server process running this task stopped before the call ended; whether its step was stored shows in the workflow (call a status tool).';

/** Log line: a task's call failed inside the server. */
export const taskRunFailed = (taskId: string, tool: string, error: unknown): string =>
  `Task ${taskId} (${tool}) failed: ${reasonOf(error)}`;

/** Log line: a running task's lease could not be renewed (tried again shortly). */
export const taskLeaseNotRenewed = (taskId: string, error: unknown): string =>
  `Lease of task ${taskId} not renewed (${reasonOf(error)}); tried again at the next renewal.`;

/** Log line: a status notification could not be sent (the requester polls instead). */
export const taskNotifyFailed = (taskId: string, error: unknown): string =>
  `Status notification of task ${taskId} not sent (${reasonOf(error)}); its requester sees the status on its next tasks/get.`;

/** Log line: a sweep of expired tasks failed (tried again at the next interval). */
export const taskSweepFailed = (error: unknown): string =>
  `Sweep of expired MCP tasks failed: ${reasonOf(error)}; tried again at the next interval.`;

/** -32602: `tasks/cancel` (2025-11-25) of a task that ended while the cancel ran (a decision of its waiting request settled it): it keeps that end. */
export const taskEndedFirst = (taskId: string, status: string): string =>
  `Task ${taskId} was not cancelled: it ended first (${status}), and keeps that result. tasks/result answers it.`;

/** -32602: `tasks/cancel` of a task whose waiting request another call was deciding all the while the cancel tried: nothing changed. */
export const taskRequestBeingDecided = (taskId: string): string =>
  `Task ${taskId} was not cancelled: the request its call waited with is being decided by another call right now, and nothing changed. Call tasks/get: the task ends with that decision's result, or cancel it again if it still waits.`;

/** -32602: `tasks/cancel` of a task whose waiting request was decided first: the task keeps that result. */
export const taskRequestDecided = (taskId: string): string =>
  `Task ${taskId} was not cancelled: the request its call waited with was decided first (approved or rejected), and the task keeps that result. tasks/result answers it.`;
