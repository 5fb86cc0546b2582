import { echo } from '../client-input/client-input.echo.js';

/** What an operator reads on the workflow console's pages and in its log lines: worded once. */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Page title of the list. */
export const listTitle = (): string => 'Workflow instances';

/** What the list shows, under its title: the page, and (when the store counts) how many match in all, `max` meaning at least that many. */
export const listSummary = (
  count: number,
  machine: string | undefined,
  state: string | undefined,
  older: boolean,
  search?: string,
  total?: { count: number; max: number },
): string =>
  `${count === 0 ? 'No' : count} ${older ? 'older ' : count === 0 ? '' : 'most recently changed '}instance${count === 1 ? '' : 's'}` +
  `${machine ? ` of ${machine}` : ''}${state ? ` in ${state}` : ''}${search ? ` matching "${echo(search)}"` : ''}, newest first.` +
  (total === undefined
    ? ''
    : ` ${total.count >= total.max ? `At least ${total.max.toLocaleString('en')}` : total.count.toLocaleString('en')} in all.`);

/** HTTP 400: a search longer than any handle or owner. */
export const searchTooLong = (max: number): string => `A search is at most ${max} characters (a handle, a session id or an owner).`;

/** The attempts table when the store keeps none. */
export const attemptsNotKept = (): string =>
  'The store does not keep refused calls (turn on its attempts option: TypeOrmFsmStateStore and InMemoryFsmStateStore take attempts: true).';

/** The attempts table when there are none. */
export const noAttempts = (): string => 'No refused or declined calls.';

/** What an attempt of an anonymous caller shows as its principal. */
export const anonymousPrincipal = (): string => 'anonymous';

/** HTTP 400: a filter names a machine this app does not serve. */
export const unknownMachine = (machine: string): string => `No machine "${echo(machine)}" is served by this app.`;

/** HTTP 400: a filter names a state no machine (or not the filtered machine) has. */
export const unknownState = (state: string, machine: string | undefined): string =>
  `No state "${echo(state)}"${machine ? ` in machine "${echo(machine)}"` : ' in any machine'}.`;

/** HTTP 400: the `after` parameter of a page link was changed. */
export const badCursor = (): string => 'The "after" parameter is not one this console wrote: go back to the newest instances.';

/** HTTP 404 of an instance page. */
export const instanceNotFound = (machine: string): string =>
  `No such ${echo(machine)} instance: it ended, expired, or never existed. Its history, if the store keeps history, is below.`;

/** HTTP 404 of any other path under the console. */
export const pageNotFound = (): string => 'No such page in the workflow console.';

/** HTTP 403: `authorize` answered false. */
export const notAuthorized = (): string => 'Forbidden: this request may not see the workflow console (its authorize hook refused it).';

/** HTTP 503: the live streams of this process are all taken. */
export const tooManyStreams = (max: number): string =>
  `The workflow console already serves ${max} live streams (console.maxStreams); try again in a moment.`;

/** HTTP 503: the app is shutting down. */
export const consoleShuttingDown = (): string => 'The application is shutting down.';

/** HTTP 500 page, and its log line (which carries the reason; the page does not). */
export const consoleFailed = (): string => 'The workflow console could not answer; the server log has the reason.';

/** Log line: a console request failed. */
export const consoleFailedLog = (error: unknown): string => `Workflow console request failed: ${reasonOf(error)}`;

/** Log line: an instance changed by a transition could not be read for the live pages (no key: handles stay out of logs). */
export const liveReadFailed = (machine: string, error: unknown): string =>
  `Workflow console: could not read a ${machine} instance after its transition for the live pages: ${reasonOf(error)}`;

/** Startup error: the console path is not an absolute path. */
export const invalidConsolePath = (path: string): string =>
  `McpModule: console.path must be an absolute path such as '/workflows', without a trailing slash, got "${echo(path)}".`;

/** Startup error: a numeric console option is not a positive whole number. */
export const invalidConsoleNumber = (option: string, value: unknown): string =>
  `McpModule: console.${option} must be a positive whole number, got ${String(value)}.`;

/** Startup log line: where the console is. */
export const consoleServed = (path: string): string =>
  `Workflow console at ${path} (shows handles and session ids: keep it behind console.authorize).`;

/** Title of the sign-in page. */
export const signInTitle = (): string => 'Sign in';

/** What the sign-in page says above its form. */
export const signInIntro = (maxAgeMs: number): string =>
  `Paste a bearer token for this server. It is checked as the Authorization header of a request is, then kept in an HttpOnly cookie of this console only, for at most ${Math.max(1, Math.round(maxAgeMs / 60_000))} minutes and never beyond its expiry.`;

/** The 401 page's pointer to the sign-in. */
export const signInHint = (): string => 'Sign in with a bearer token';

/** HTTP 403: a form that changes something came without this console's CSRF token. */
export const csrfRefused = (): string =>
  'Forbidden: this form did not come from this console (its CSRF token is missing or wrong). Reload the page and send it again.';

/** HTTP 400: the sign-in form carried no token, or one too long to keep in a cookie. */
export const signInTokenInvalid = (max: number): string => `Paste a bearer token of at most ${max} characters.`;

/** HTTP 413: a sign-in form larger than any. */
export const signInFormTooLarge = (): string => 'The form is too large.';

/** Text of the live indicator (hidden until the page's script runs: without it the page does not update). */
export const liveStatus = { live: 'Live', reconnecting: 'Reconnecting…', off: 'Not live' } as const;

/** What a screen reader hears when a row or an instance moves. */
export const movedAnnouncement = 'moved to';

/** The waiting request's summary on an instance page. */
export const waitingSummary = (tool: string, requestedBy: string, from: string): string =>
  `${requestedBy} called ${tool}, which waits for another person to approve or reject it; rejected, the instance goes back to "${from}".`;

/** A history row's note of a decided waiting request. */
export const approvalText = (verdict: 'approved' | 'rejected' | 'withdrawn', requestedBy: string, reason: string | undefined): string =>
  `(${verdict}; asked by ${requestedBy}${reason ? `: ${reason}` : ''})`;

/** A history row's actor when a deadline fired it. */
export const deadlineActorText = (name: string): string => `deadline (${name})`;

/** The name of the timer that expires a waiting call. */
export const approvalExpiryName = (tool: string): string => `expiry of ${tool}'s request`;

/** The deadlines table when the instance has none pending. */
export const noDeadlines = (): string => 'No pending deadlines.';

/** The deadlines table when the store keeps no timers. */
export const timersNotKept = (): string =>
  'The store keeps no timers (TypeOrmFsmStateStore and InMemoryFsmStateStore do; a store of your own implements WorkflowTimerStore).';

/** A pending deadline whose firing failed before: how many times. */
export const deadlineAttempts = (attempts: number): string => (attempts === 0 ? '—' : `${attempts} failed`);
