import { formatIssues, reasonOf } from '../gating/gating.messages.js';

/** What a client or an operator reads from the server layer (calls, lists, sessions): worded once. */

/** Unknown tool name in `tools/call`. */
export const unknownTool = (name: string): string =>
  `Unknown tool "${name}". Call tools/list for the tools available now.`;

/** `tools/call` without a tool name. */
export const callNeedsName = (): string =>
  'Invalid tools/call request: "params.name" must be the name of a tool (a non-empty string).';

/** `tools/call` whose arguments are not an object. */
export const callArgumentsNotObject = (name: string): string =>
  `Invalid tools/call request for "${name}": "params.arguments" must be an object of named arguments.`;

/** Arguments that fail the tool's input schema. */
export const invalidArguments = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `Invalid arguments for "${tool}": ${formatIssues(issues)}.`;

/** What the model reads when a handler (or a guard, pipe or interceptor) threw an unexpected error. */
export const toolFailed = (tool: string, errorId: string): string =>
  `"${tool}" failed with an internal error (error id ${errorId}); nothing in this message explains it, so report the id rather than retrying blindly.`;

/** Log line: a handler (or a guard, pipe or interceptor) threw an unexpected error. */
export const handlerFailed = (tool: string, errorId: string, error: unknown): string =>
  `Tool "${tool}" failed (error id ${errorId}): ${reasonOf(error)}`;

/** `tools/list` failed because the store could not be read (no driver text). */
export const menuUnavailable = (): string =>
  'STATE_UNAVAILABLE: the tool list could not be computed because workflow state could not be read; try again later.';

/** Log line: `tools/list` failed. */
export const menuFailed = (error: unknown): string => `tools/list failed: ${reasonOf(error)}`;

/** Log line: a list_changed notification could not be sent. */
export const notifyFailed = (session: string | undefined, error: unknown): string =>
  `Could not send tools/list_changed to session ${session ?? '(stdio)'}: ${reasonOf(error)}`;

/** Log line: a closed session's instances could not be deleted (they expire with the store). */
export const forgetFailed = (error: unknown): string =>
  `Could not delete the workflow instances of closed sessions: ${reasonOf(error)}`;

/** Log line: closing an idle session failed. */
export const closeFailed = (session: string, error: unknown): string =>
  `Could not close idle session ${session}: ${reasonOf(error)}`;
