import { formatIssues } from '../client-input/client-input.echo.js';

/** What a client reads about a handler's result: worded once. */

/** A handler's return value that fails the tool's output schema (no transition fires). */
export const invalidOutput = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `"${tool}" returned a result that does not match its outputSchema: ${formatIssues(issues)}.`;

/** `mcpInputRequired` called with nothing to ask and no state to keep. */
export const inputRequiredEmpty = (): string => 'mcpInputRequired needs at least one input request or a requestState.';

/** A request to the client not sent: the session already waits for `limit` answers. */
export const pendingRequestsLimit = (limit: number): string =>
  `This session already waits for ${limit} answers from its client (transports.http.sessions.maxPendingRequests), so no further request was sent to it; answer or cancel the confirmations, elicitations, sampling or roots requests it was asked, then retry.`;
