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
  'The store keeps no timers (TypeOrmFsmStateStore and InMemoryFsmStateStore do; a store of your own implements FsmTimerStore).';

/** A pending deadline whose firing failed before: how many times. */
export const deadlineAttempts = (attempts: number): string => (attempts === 0 ? '—' : `${attempts} failed`);

/** How far off a time is, for people: `in 3 h`, `in 45 s`, `5 min ago` (whole units, the largest that fits). */
export const relativeTime = (ms: number): string => {
  const seconds = Math.round(Math.abs(ms) / 1000);
  const amount =
    seconds < 60
      ? `${seconds} s`
      : seconds < 3600
        ? `${Math.floor(seconds / 60)} min`
        : seconds < 86_400
          ? `${Math.floor(seconds / 3600)} h`
          : `${Math.floor(seconds / 86_400)} d`;
  return ms >= 0 ? `in ${amount}` : `${amount} ago`;
};

/** What marks a state where a call waits for a person, beside its badge. */
export const waitingBadge = (): string => 'needs a person';

/** The (screen-reader) heading of the counts per machine and state. */
export const countsTitle = (): string => 'Instances in each state';

/** The search box's placeholder: the handle arguments of the app's machines, a session id when a machine is session-keyed, an owner. */
export const searchPlaceholder = (handleKeys: readonly string[], sessions: boolean): string =>
  [...handleKeys, ...(sessions ? ['session id'] : []), 'owner'].join(', ');

/** The link from a waiting request on an instance's page to the approvals inbox. */
export const decideInInbox = (): string => 'Approve or reject it in the approvals inbox';

/** What the operator actions section says above its buttons. */
export const actionsIntro = (): string =>
  'Each action asks you to confirm, then goes through the gate as a call would: under its claim, recorded in the history with your name.';

/** The button that sends an operator event. */
export const sendEventLabel = (event: string): string => `Send ${event}…`;

/** The button that ends an instance. */
export const endInstanceLabel = (): string => 'End this instance…';

/** What a live page is told when its stream ends for good (it does not reconnect). */
export const streamEnded = (reason: 'expired' | 'signed-out'): string =>
  reason === 'expired'
    ? 'Your sign-in expired: this page no longer updates. Sign in again to follow it.'
    : 'You signed out: this page no longer updates.';

/** Startup error: a scope option of the console is not a scope. */
export const invalidConsoleScope = (option: string, value: unknown): string =>
  `McpModule: console.${option} must be one OAuth scope (printable characters, no spaces), got ${JSON.stringify(value)}.`;

/** Startup error: an operator event is not an event of its machine. */
export const unknownOperatorEvent = (machine: string, event: string, events: readonly string[]): string =>
  `defineMachine("${machine}"): operatorEvents names "${echo(event)}", which is not an event of the machine (its events: ${events.join(', ') || 'none'}).`;

/** HTTP 403: an action posted without the console's sign-in. */
export const actionNeedsSignIn = (): string => 'Forbidden: sign in to the console (a bearer token at its sign-in page) to act from it.';

/** HTTP 400: an action form that names no action. */
export const actionUnknown = (): string => 'This form names no action: go back to the instance and use one of its buttons.';

/** HTTP 403: an action without its scope (or the console names none). */
export const actionNeedsScope = (scope: string | undefined): string =>
  scope === undefined
    ? 'Forbidden: this console takes no such action (its options name no scope for it).'
    : `Forbidden: this action needs the scope "${scope}", which your token does not hold.`;

/** HTTP 400: an event the machine does not let operators send. */
export const operatorEventNotAllowed = (machine: string, event: string): string =>
  `Machine "${machine}" does not let operators send "${echo(event)}" (its operatorEvents do not name it).`;

/** The confirmation of an end. */
export const confirmEnd = (machine: string, handle: string, state: string): string =>
  `End ${machine} ${echo(handle)}, now in "${state}"? It is deleted (its history stays, with a row naming you) and its handle stops working.`;

/** The confirmation of an operator event. */
export const confirmSend = (event: string, machine: string, handle: string, state: string): string =>
  `Send ${event} to ${machine} ${echo(handle)}, now in "${state}"? It goes through the gate as a call would; the history names you.`;

/** An end went through. */
export const endedInstance = (machine: string, handle: string): string => `Ended ${machine} ${echo(handle)}.`;

/** An operator event went through. */
export const sentEvent = (event: string, machine: string, handle: string, state: string): string =>
  `Sent ${event} to ${machine} ${echo(handle)}: it is now in "${state}".`;

/** Log line: an operator action was refused by the gate (no handle: handles stay out of logs). */
export const actionRefusedLog = (machine: string, code: string): string =>
  `Workflow console: an operator action on a ${machine} instance was refused: ${code}.`;

/** The title of the confirmation page. */
export const confirmTitle = (): string => 'Confirm';

/** The confirmation page's way back. */
export const confirmCancel = (): string => 'Cancel: change nothing';

/** The title of an action that went through. */
export const actionDone = (): string => 'Done';

/** The title of an action that was refused. */
export const actionRefused = (): string => 'Not done';

/** A link back to the instance. */
export const backToInstance = (): string => 'Back to the instance';

/** A link to the list. */
export const allInstances = (): string => 'All instances';

/** The inbox's title. */
export const inboxTitle = (): string => 'Approvals';

/** What the inbox says above its requests. */
export const inboxIntro = (): string =>
  'The requests waiting for a second person that you may decide, or that you asked for, newest first. A decision goes through the gate as you: it decides the request shown here, and only that one.';

/** The inbox of a request without a principal. */
export const inboxNeedsSignIn = (): string =>
  'This request names nobody: the inbox shows the requests of a signed-in person (a bearer token, the sign-in page, or your own login).';

/** The inbox without requests. */
export const inboxEmpty = (): string => 'Nothing waits for you.';

/** What marks a request the person asked for. */
export const inboxAsked = (): string => '(you asked: another person decides)';

/** The approve button. */
export const approveLabel = (): string => 'Approve';

/** The reject button. */
export const rejectLabel = (): string => 'Reject';

/** The withdraw button of the person who asked. */
export const withdrawLabel = (): string => 'Withdraw my request';

/** The reject form's reason field. */
export const reasonLabel = (): string => 'Reason (optional)';

/** HTTP 400: a decision form without its fields. */
export const decisionFormInvalid = (): string =>
  'This form does not name a waiting request and a decision: go back to the inbox and use its buttons.';

/** A decision went through. */
export const decided = (verdict: string, machine: string, handle: string, state: string | null): string =>
  `${verdict === 'approved' ? 'Approved' : verdict === 'withdrawn' ? 'Withdrew' : 'Rejected'} the request on ${machine} ${echo(handle)}${state === null ? '' : `: it is now in "${state}"`}.`;

/** HTTP 409: the request is no longer waiting (decided, withdrawn, expired, or another one waits). */
export const requestNoLongerWaiting = (detail: string): string =>
  `This request is no longer waiting: it was decided, withdrawn or expired, and nothing changed. ${detail}`;

/** A link back to the inbox. */
export const backToInbox = (): string => 'Back to the approvals';

/** Startup error: the console is on and `elkjs` is not installed. */
export const elkMissing = (): string =>
  'McpModule: the workflow console draws its diagrams with elkjs, an optional peer that is not installed: npm install elkjs (or turn the console off).';
