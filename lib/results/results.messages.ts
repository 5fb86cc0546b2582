import { formatIssues } from '../client-input/client-input.echo.js';

/** What a client reads about a handler's result: worded once. */

/** A handler's return value that fails the tool's output schema (no transition fires). */
export const invalidOutput = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `"${tool}" returned a result that does not match its outputSchema: ${formatIssues(issues)}.`;

/** `mcpInputRequired` called with nothing to ask and no state to keep. */
export const inputRequiredEmpty = (): string => 'mcpInputRequired needs at least one input request or a requestState.';
