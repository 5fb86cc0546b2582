import { echo, formatIssues } from '../client-input/client-input.echo.js';
import { reasonOf } from '../gating/gating.messages.js';

/** What a client or an operator reads from the server layer (calls, lists, sessions): worded once. */

/** Unknown tool name in `tools/call`. */
export const unknownTool = (name: string): string => `Unknown tool "${echo(name)}". Call tools/list for the tools available now.`;

/** `tools/call` without a tool name. */
export const callNeedsName = (): string => 'Invalid tools/call request: "params.name" must be the name of a tool (a non-empty string).';

/** `tools/call` whose arguments are not an object. */
export const callArgumentsNotObject = (name: string): string =>
  `Invalid tools/call request for "${echo(name)}": "params.arguments" must be an object of named arguments.`;

/** `tools/call` whose `task` is not an object. */
export const callTaskNotObject = (name: string): string =>
  `Invalid tools/call request for "${echo(name)}": "params.task" must be an object (for example { "ttl": 60000 }).`;

/** `tools/call` whose `task.ttl` is not a number of milliseconds. */
export const callTaskTtlInvalid = (name: string): string =>
  `Invalid tools/call request for "${echo(name)}": "params.task.ttl" must be a number of milliseconds, 0 or more.`;

/** Arguments that fail the tool's input schema. */
export const invalidArguments = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `Invalid arguments for "${tool}": ${formatIssues(issues)}.`;

/** What the model reads when a handler (or a guard, pipe or interceptor) threw an unexpected error. */
export const toolFailed = (tool: string, errorId: string): string =>
  `"${tool}" failed with an internal error (error id ${errorId}); nothing in this message explains it, so report the id rather than retrying blindly.`;

/** The ids a log line of a failed call carries: the one its client was told, and the trace's when there is one. */
const callIds = (errorId: string, traceId: string | undefined): string => `error id ${errorId}${traceId ? `, trace ${traceId}` : ''}`;

/** Log line: a handler (or a guard, pipe or interceptor) threw an unexpected error. */
export const handlerFailed = (tool: string, errorId: string, traceId: string | undefined, error: unknown): string =>
  `Tool "${tool}" failed (${callIds(errorId, traceId)}): ${reasonOf(error)}`;

/** Log line: the gate refused a call (the client got the same error id in `_meta["nestjs-mcp-fsm/error"].errorId`). */
export const callRefused = (tool: string, code: string, errorId: string, traceId: string | undefined): string =>
  `Tool "${tool}" refused: ${code} (${callIds(errorId, traceId)})`;

/** A list (`tools/list`, `prompts/list`, ...) failed because the store could not be read (no driver text). */
export const menuUnavailable = (method: string): string =>
  `STATE_UNAVAILABLE: ${method} could not be answered because workflow state could not be read; try again later.`;

/** Log line: a list failed. */
export const menuFailed = (method: string, error: unknown): string => `${method} failed: ${reasonOf(error)}`;

/** Unknown prompt name in `prompts/get`. */
export const unknownPrompt = (name: string): string => `Unknown prompt "${echo(name)}". Call prompts/list for the prompts available now.`;

/** A `resources/read` URI that no resource or template serves. */
export const unknownResource = (uri: string): string =>
  `Resource "${echo(uri)}" not found. Call resources/list and resources/templates/list for what this server serves.`;

/** A request whose params do not fit its method (-32602), one line: each field and what is wrong with it. */
export const invalidParams = (method: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `Invalid params for ${echo(method)}: ${formatIssues(issues)}.`;

/** A resource URI longer than the module reads (-32602). */
export const uriTooLong = (method: string, length: number, limit: number): string =>
  `Invalid ${method} request: the resource URI is ${length} characters long; this MCP server takes URIs of at most ${limit} characters.`;

/** `resources/subscribe` to a session-keyed instance on a connection without session state. */
export const subscriptionNeedsSession = (uri: string, machine: string): string =>
  `NO_SESSION: "${echo(uri)}" shows this session's ${machine}, and this connection has no session to subscribe with.`;

/** `resources/subscribe` to a handle that is unknown, malformed or someone else's. */
export const subscriptionUnknownHandle = (uri: string, machine: string, key: string): string =>
  `UNKNOWN_HANDLE: "${echo(uri)}" names no ${machine} of yours; use a ${key} returned when you started one.`;

/** A duration as people say it: "30 days", "12 hours", "15 minutes", "45 seconds". */
const duration = (ms: number): string => {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  const [size, unit] = units.find(([size]) => ms >= size && ms % size === 0) ?? [1, 'millisecond'];
  const count = Math.round(ms / size);
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
};

/** What a start tool's description adds (SEP-2567): how long the handle it returns stays valid, from the `retention` option. */
export const handleRetention = (machine: string, key: string, retention: { finishedMs?: number; idleHandleMs?: number }): string => {
  const idle = retention.idleHandleMs === undefined ? undefined : `after ${duration(retention.idleHandleMs)} without a transition`;
  const ended =
    retention.finishedMs === undefined
      ? `it stays valid until the ${machine} workflow ends`
      : `it is deleted ${duration(retention.finishedMs)} after the ${machine} workflow ends`;
  return `The ${key} it returns names this ${machine} in later calls; ${ended}${idle ? `, and expires ${idle}` : ''}.`;
};

/** A 2026-07-28 request cannot carry a request from the server to the client mid-call. */
export const modernNoServerRequests = (): string =>
  'Requests from the server to the client (sampling, elicitation, roots) are not available in MCP 2026-07-28 requests: return mcpInputRequired({ inputRequests }) from the handler instead, which serves both eras.';

/** -32021: a tool needs a client capability that the 2026-07-28 request did not declare. */
export const missingClientCapability = (method: string, capability: string): string =>
  `This tool sends ${method}, which needs the client capability "${capability}"; the request did not declare it.`;

/** Log line: the SDK v2 handler reported an error. */
export const modernHandlerError = (error: unknown): string => `MCP 2026-07-28 request failed: ${reasonOf(error)}`;

/** Log line: a graceful shutdown began with requests in flight. */
export const drainStarted = (inFlight: number, drainMs: number): string =>
  `Shutting down: ${inFlight} MCP request(s) in flight get up to ${drainMs} ms to finish; new requests get HTTP 503.`;

/** Log line: the drain ran out with requests still in flight. */
export const drainRanOut = (inFlight: number, drainMs: number): string =>
  `Shutdown drain ran out after ${drainMs} ms with ${inFlight} MCP request(s) in flight: their calls are abandoned (nothing stored) and answered with a JSON-RPC error.`;

/** Log line: requests still had no answer when the sessions closed. */
export const drainUnanswered = (inFlight: number): string =>
  `Shutdown: ${inFlight} MCP request(s) were still unanswered when the sessions closed.`;

/** JSON-RPC error of a call abandoned at shutdown: what its client reads. */
export const callAbandoned = (drainMs: number): string =>
  `Service Unavailable: this MCP server shut down before the call finished (it waited ${drainMs} ms); its workflow transition was not stored. Call it again: the session goes on with another instance, or with this one after its restart.`;

/** A 2025-11-25 call whose handler kept asking for input beyond `inputRequests.maxRounds`. */
export const tooManyRounds = (name: string, maxRounds: number): string =>
  `"${name}" asked the client for input ${maxRounds} times without answering (inputRequests.maxRounds); it was stopped.`;

/** A handler asked for input on stateless HTTP, which has no way back to the client. */
export const inputRequestsNeedStream = (name: string): string =>
  `"${name}" needs input from the client, and this stateless HTTP connection cannot carry a request to it; use a stateful session, stdio or MCP 2026-07-28.`;

/** -32602: a 2026-07-28 retry's `requestState` failed its check; `why` says how. */
export const requestStateRefused = (name: string, why: string): string =>
  `Invalid requestState for "${name}": ${why}. Call it again without requestState and inputResponses to start over.`;

/** Why a `requestState` was refused: its signature does not match (changed, or signed with another key). */
export const requestStateTampered = (): string =>
  'it was changed after the server issued it, or another server key signed it (replicas need the same inputRequests.requestStateKey)';

/** Why a `requestState` was refused: too old. */
export const requestStateExpired = (ttlMs: number): string => `it expired (a requestState is valid for ${Math.round(ttlMs / 1000)} s)`;

/** Why a `requestState` was refused: issued to another principal. */
export const requestStateForeign = (): string => 'it was issued to another caller';

/** Why a `requestState` was refused: issued for another tool, prompt or resource. */
export const requestStateOtherTarget = (): string => 'it was issued for another tool, prompt or resource';

/** Why a `requestState` was refused: not a requestState this server issues. */
export const requestStateMalformed = (): string => 'it is not a requestState this server issued';

/** Startup note: `requestState` is signed with a key made up for this process. */
export const requestStateKeyGenerated = (): string =>
  'MCP 2026-07-28 requestState is signed with a random key of this process: set inputRequests.requestStateKey (32+ bytes, the same on every replica) when several processes serve this endpoint, or a retry that reaches another one is refused.';
