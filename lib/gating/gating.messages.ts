import { cutSessionId, echo } from '../client-input/client-input.echo.js';
import { formatInstanceKey, parseInstanceKey } from '../stores/fsm-instance-key.js';

/**
 * What the model reads when the gate refuses a call, and the gate's log lines: worded once.
 */

/** An instance key as a log line names it: a session's id cut (see `cutSessionId`), other keys as they are. */
export const loggedKey = (storeKey: string): string => {
  const key = parseInstanceKey(storeKey);
  return key.scope === 'session' ? formatInstanceKey({ ...key, id: cutSessionId(key.id) }) : echo(storeKey);
};

/** Formats a list of tool names for a message. */
export const formatToolList = (tools: readonly string[]): string => (tools.length ? tools.join(', ') : '(none)');

/** The reason text of any thrown value (for logs; never sent to the model). */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** FORBIDDEN: the tool is not available in the instance's state. */
export const forbidden = (tool: string, machine: string, state: string, allowed: readonly string[]): string =>
  `FORBIDDEN: "${tool}" is not available while ${machine} is "${echo(state)}". Allowed now: ${formatToolList(allowed)}.`;

/** GUARD_REJECTED: the bound event is not enabled for this input, context and caller; `reasons`: what the guards that give one say. */
export const guardRejected = (
  tool: string,
  machine: string,
  state: string,
  event: string,
  guards: readonly string[],
  allowed: readonly string[],
  reasons: readonly string[] = [],
): string =>
  `GUARD_REJECTED: "${tool}" did not run: ${machine} is "${echo(state)}", and ${guards.length > 1 ? 'its guards' : 'its guard'} ${guards.map((guard) => `"${guard}"`).join(' / ')} ${guards.length > 1 ? 'do' : 'does'} not allow event "${event}" ${reasons.length ? `(${reasons.join('; ')})` : 'with these arguments'}. Allowed now: ${formatToolList(allowed)}.`;

/** BUSY: another call holds the instance. */
export const busy = (tool: string, machine: string, allowed: readonly string[]): string =>
  `BUSY: ${machine} is handling another call, so "${tool}" did not run. Try again in a moment. Allowed now: ${formatToolList(allowed)}.`;

/** UNKNOWN_HANDLE: a handle of the right shape that is unknown, expired or foreign. */
export const unknownHandle = (tool: string, machine: string, handle: string, start: readonly string[]): string =>
  `UNKNOWN_HANDLE: there is no ${machine} workflow "${echo(handle)}" (it is unknown, expired or not yours), so "${tool}" did not run. Start one with: ${formatToolList(start)}.`;

/** UNKNOWN_HANDLE: the handle argument is missing, or is not a handle at all (its format and length named). */
export const malformedHandle = (
  tool: string,
  machine: string,
  key: string,
  handle: unknown,
  length: number,
  start: readonly string[],
): string =>
  handle === undefined || handle === ''
    ? `UNKNOWN_HANDLE: "${tool}" needs the argument "${key}" of a ${machine} workflow. Start one with: ${formatToolList(start)}.`
    : `UNKNOWN_HANDLE: ${typeof handle === 'string' ? `"${echo(handle)}"` : echo(JSON.stringify(handle))} is not a ${key}: a ${key} is the ${length}-character handle (letters, digits, "-" and "_") returned when a ${machine} workflow starts, so "${tool}" did not run. Start one with: ${formatToolList(start)}.`;

/** UNKNOWN_STATE: the stored state is not one of the machine's (a renamed or removed state). */
export const unknownState = (tool: string, machine: string, state: string): string =>
  `UNKNOWN_STATE: ${machine} is stored in state "${echo(state)}", which the ${machine} machine does not have (it was renamed or removed), so "${tool}" did not run. Retrying will not help: an operator has to move the instance to a known state.`;

/**
 * STATE_UNAVAILABLE: the store failed; the gate failed closed. No driver text reaches the model.
 * Before the handler: nothing ran, a retry is safe. After it: the step may or may not be stored;
 * a call with an idempotency key is safe to repeat with the same key.
 */
export const stateUnavailable = (tool: string, machine: string, handlerRan: boolean, handle?: string, keyed = false): string =>
  handlerRan
    ? `STATE_UNAVAILABLE: "${tool}" ran, but the new state of ${machine}${handle ? ` "${handle}"` : ''} could not be stored. ${
        keyed
          ? 'Call it again with the same idempotency key: it answers the first result if the step was stored, and runs once otherwise.'
          : 'Check its status before retrying.'
      }`
    : `STATE_UNAVAILABLE: the state of ${machine} could not be read, so "${tool}" did not run. Try again later.`;

/** IDEMPOTENCY_KEY_REUSED: the caller used the key for another call (another tool, or other arguments) within its retention. */
export const idempotencyKeyReused = (tool: string, key: string, firstTool: string): string =>
  `IDEMPOTENCY_KEY_REUSED: idempotency key "${echo(key)}" was already used for ${
    firstTool === tool ? `a call of "${tool}" with other arguments` : `a call of "${echo(firstTool)}"`
  }, so "${tool}" did not run. Repeat that call exactly to get its result again, or use a new key for a new call.`;

/** Error of a call with an idempotency key from the app's own code, on a store that keeps no receipts. */
export const idempotencyNeedsReceipts = (store: string): string =>
  `${store} keeps no receipts of keyed calls (FsmReceiptLog: findReceipt, sweepReceipts), so a call cannot be made with an idempotency key. Use InMemoryFsmStateStore or TypeOrmFsmStateStore, or call without one.`;

/** Log line: a sweep of expired receipts failed (it runs again at the next interval). */
export const receiptSweepFailed = (error: unknown): string =>
  `Sweep of expired idempotency receipts failed; it runs again at the next interval: ${reasonOf(error)}`;

/** NO_SESSION: a session-keyed tool called anonymously in the 2026-07-28 era. */
export const noPrincipal = (tool: string, machine: string): string =>
  `NO_SESSION: "${tool}" keeps ${machine} state per caller, and MCP 2026-07-28 has no sessions: there it is kept per authenticated principal, and this request is anonymous. Authenticate, or use a 2025-era session.`;

/** NO_SESSION: a session-keyed tool on a connection without session state. */
export const noSession = (tool: string, machine: string): string =>
  `NO_SESSION: "${tool}" keeps ${machine} state per session, and this stateless connection has none. Connect with a stateful session, or run the server single-tenant.`;

/** LEASE_EXPIRED: the handler outlived its lease. */
export const leaseExpired = (tool: string, machine: string, state: string, leaseMs: number): string =>
  `LEASE_EXPIRED: "${tool}" ran, but lost its claim on ${machine} meanwhile (its ${leaseMs} ms lease could not be renewed), so its transition was not stored; ${machine} was "${echo(state)}". Check its status before retrying.`;

/** DECLINED: the person did not say yes to a confirmed transition; `why` says what happened. */
export const declined = (tool: string, machine: string, state: string, why: string, allowed: readonly string[]): string =>
  `DECLINED: "${tool}" did not run: ${why}. ${machine} stays "${echo(state)}". Allowed now: ${formatToolList(allowed)}.`;

/** CONFIRMATION_REQUIRED: a confirmed transition cannot be put to a person on this call; `why` names what is needed. */
export const confirmationRequired = (tool: string, machine: string, state: string | null, why: string): string =>
  `CONFIRMATION_REQUIRED: "${tool}" runs only after a person at the client says yes, and ${why}. It did not run${state === null ? '' : `; ${machine} stays "${echo(state)}"`}.`;

/** Why CONFIRMATION_REQUIRED: the session already waits for `limit` answers from its client. */
export const tooManyWaiting = (limit: number): string =>
  `this session already waits for ${limit} answers from its client (transports.http.sessions.maxPendingRequests), so no question was sent; answer or cancel those first`;

/** Why DECLINED: the person chose no. */
export const personDeclined = (): string => 'the person at the client declined';

/** Why DECLINED: the person dismissed the question. */
export const personCancelled = (): string => 'the person at the client dismissed the question without answering';

/** Why DECLINED: no answer within the wait. */
export const noAnswerInTime = (timeoutMs: number): string =>
  `the person at the client did not answer within ${formatDuration(timeoutMs)} (inputRequests.timeoutMs, or timeoutMs of @McpConfirm)`;

/** Why DECLINED: the client failed the elicitation request. */
export const clientFailedToAsk = (reason: string): string => `the client could not ask the person (${echo(reason)})`;

/** Why DECLINED: the accepted answer does not fit the form. */
export const answerDoesNotFit = (issues: string): string => `the answer did not fit the question's form: ${issues}`;

/** Why CONFIRMATION_REQUIRED: a 2025-11-25 client without the elicitation capability. */
export const noElicitationAtInitialize = (): string =>
  'this client did not declare the "elicitation" capability (form mode) at initialize: connect with a client that declares it and shows the question to its user';

/** Why CONFIRMATION_REQUIRED: a 2026-07-28 request without the elicitation capability. */
export const noElicitationInRequest = (): string =>
  'this request\'s client capabilities (_meta "io.modelcontextprotocol/clientCapabilities") do not include "elicitation": call it from a client that declares elicitation and shows the question to its user';

/** Why CONFIRMATION_REQUIRED: stateless HTTP has no way back to the client. */
export const noWayToAsk = (): string =>
  'this stateless HTTP connection has no way to put a question to the client: call it on a stateful session or stdio with a client that declares "elicitation", or over MCP 2026-07-28';

/** Why CONFIRMATION_REQUIRED: a 2026-07-28 retry echoed a confirmation already used. */
export const confirmationUsed = (): string =>
  'the confirmation sent back was already used: call the tool again without it to be asked anew';

/** Why CONFIRMATION_REQUIRED: a 2026-07-28 retry echoed a confirmation of another call. */
export const confirmationForeign = (machine: string): string =>
  `the confirmation sent back was given for another call (another ${machine} instance, state, tool or arguments, or before ${machine} last changed): call the tool again without it to be asked anew`;

/** Why CONFIRMATION_REQUIRED: the instance changed between the person's yes and the claim. */
export const changedWhileAsked = (machine: string): string =>
  `${machine} changed while the person was asked, so the yes no longer applies: call the tool again to be asked anew`;

/** A wait in words: `45 s`, `5 min`. */
const formatDuration = (ms: number): string => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10} s`);

/** A freshly minted handle already exists (never expected with 128 random bits). */
export const handleCollision = (storeKey: string): string => `the new handle "${storeKey}" already exists; no instance was started`;

/** Log line: the store failed under a gated call (the model gets STATE_UNAVAILABLE without this detail). */
export const storeFailed = (tool: string, machine: string, error: unknown): string =>
  `Tool "${tool}": the ${machine} state store failed: ${reasonOf(error)}`;

/** Log line, once per machine and state: instances are stored in a state the machine does not have. */
export const unknownStateLogged = (machine: string, state: string, storeKey: string): string =>
  `Machine "${machine}" has no state "${echo(state)}", but instance "${loggedKey(storeKey)}" (and maybe others) is stored in it; its calls are refused with UNKNOWN_STATE and it is left out of menus. Move such instances to a known state (see "Renaming or retiring a state" in docs/workflows.md).`;

/** Log line: a lease or transaction could not be released. */
export const releaseFailed = (tool: string, error: unknown): string =>
  `Tool "${tool}": releasing its claim failed (${reasonOf(error)}); the lease expires by itself.`;

/** Error of a gate step run for a handler that no workflow gates (a subclass called it out of turn). */
export const notGated = (tool: string): string => `"${tool}" has no workflow role: the gate does not run its calls.`;

/** Error of `McpWorkflowService.end` on a store without `delete`. */
export const endNeedsDelete = (store: string): string =>
  `The store (${store}) cannot delete instances; McpWorkflowService.end needs a store with delete (InMemoryFsmStateStore, TypeOrmFsmStateStore).`;

/** Error of `McpWorkflowService` called without a workflow to act on. */
export const noWorkflowInCall = (tool: string): string =>
  `McpWorkflowService: "${tool}" is not a workflow tool; pass { machine } (and { handle } for a handle-keyed machine).`;

/** Log line: `retention` is set but the store cannot sweep. */
export const retentionUnsupported = (store: string): string =>
  `retention is set, but the store (${store}) has no sweep(): nothing will be deleted. Use TypeOrmFsmStateStore or InMemoryFsmStateStore, or implement sweep().`;

/** Log line: a retention sweep failed (it runs again at the next interval). */
export const retentionFailed = (error: unknown): string => `Retention sweep failed; it runs again at the next interval: ${reasonOf(error)}`;

/** Log line (at most once a minute): attempts the store did not record (it failed, or too many writes were in flight). */
export const attemptsNotRecorded = (failed: number, dropped: number, maxInFlight: number, error: unknown): string =>
  `Refused calls not recorded as attempts: ${failed} write${failed === 1 ? '' : 's'} failed${
    error === undefined ? '' : ` (last: ${reasonOf(error)})`
  }, ${dropped} dropped while ${maxInFlight} were in flight. The refusals themselves were answered as usual.`;

/** Error of a commit whose transition schedules or cancels timers on a store that keeps none (checked at bootstrap too). */
export const storeKeepsNoTimers = (store: string, machine: string): string =>
  `Machine "${machine}" has "after" transitions, and the store ${store} keeps no timers (it implements no FsmTimerStore); nothing was stored. Use InMemoryFsmStateStore or TypeOrmFsmStateStore.`;
/**
 * SELF_APPROVAL: the caller asked for the change it would approve (`by`: the caller's principal,
 * when it is spelled otherwise than the requester's), or is anonymous, so cannot be told from who asked.
 */
export const selfApproval = (
  tool: string,
  machine: string,
  state: string,
  requestedBy: string | null,
  allowed: readonly string[],
  by?: string,
): string =>
  `SELF_APPROVAL: "${tool}" needs a second person: ${
    requestedBy === null
      ? 'the request was made anonymously, and an anonymous caller'
      : `"${echo(requestedBy)}" asked for it${
          by === undefined || by === requestedBy
            ? ''
            : ` ("${echo(by)}" is the same person to this rule: principals are compared ignoring case, spaces and invisible characters)`
        }, and the person who asks`
  } cannot approve it, whatever they hold. Nothing changed; ${machine} stays "${echo(state)}". Another person with the approvers' authority approves it. Allowed now: ${formatToolList(allowed)}.`;

/** SELF_APPROVAL for an anonymous caller: an approval names who approved it. */
export const anonymousApproval = (tool: string, machine: string, state: string): string =>
  `SELF_APPROVAL: "${tool}" needs a second person who can be named, and this call is anonymous. Nothing changed; ${machine} stays "${echo(state)}". Call it authenticated.`;

/** The request that waits now, as a refusal names it. */
export interface WaitingNow {
  readonly requestId: string;
  readonly tool: string;
  readonly requestedBy: string | null;
  readonly at: string;
}

/** STALE_REQUEST: the decision names a request that is not the one waiting now (withdrawn, decided, replayed, made up). */
export const staleRequest = (
  tool: string,
  machine: string,
  state: string,
  named: string | undefined,
  now: WaitingNow | undefined,
): string =>
  `STALE_REQUEST: "${tool}" decides only the request it names, and ${
    named === undefined ? 'this call names none' : `request "${echo(named)}" is not the one waiting now`
  } (withdrawn, decided already, or never made). ${
    now
      ? `Request "${now.requestId}" waits now: ${now.tool} by ${now.requestedBy === null ? 'an anonymous caller' : `"${echo(now.requestedBy)}"`}, asked at ${now.at}; read it, then decide it by its requestId.`
      : 'No request waits now.'
  } Nothing changed; ${machine} stays "${echo(state)}".`;

/** NOT_APPROVER: the caller passes the access rule but holds neither the approvers' grants nor asked for the request. */
export const notApprover = (
  tool: string,
  machine: string,
  state: string,
  approvers: readonly string[],
  requestedBy: string | null,
  withdraws: boolean,
): string =>
  `NOT_APPROVER: "${tool}" decides a request waiting for a second person, which needs ${approvers.join(', ') || "the approvers' authority"}${
    withdraws && requestedBy !== null ? ` (or being "${echo(requestedBy)}", who asked and may withdraw it)` : ''
  }. Nothing changed; ${machine} stays "${echo(state)}".`;

/** What a call that waits for approval answers (and its task's status message). */
export const waitingForApproval = (
  tool: string,
  machine: string,
  handle: string,
  state: string,
  requestId: string,
  approve: string,
  reject: string,
): string =>
  `${tool} waits for a second person's approval: ${machine} ${handle} is "${state}" until another person calls ${approve} (it runs then) or ${reject} with requestId "${requestId}". Nothing ran yet; the person who asked may withdraw it with ${reject}.`;

/** What a rejection (or a withdrawal) answers. */
export const rejected = (tool: string, machine: string, state: string, withdrawn: boolean): string =>
  `The waiting ${tool} call was ${withdrawn ? 'withdrawn by the person who asked' : 'rejected'}: it never ran, and ${machine} is in "${state}".`;

/** Why DECLINED, for the task of a request its requester withdrew. */
export const approvalWithdrawn = (by: string | null): string =>
  `the person who asked (${by === null ? 'anonymous' : echo(by)}) withdrew the request`;

/** Why DECLINED, for the task of a rejected request. */
export const approvalRejected = (by: string | null, reason: string | undefined): string =>
  `a second person (${by === null ? 'anonymous' : echo(by)}) rejected the request${reason ? `: ${echo(reason)}` : ''}`;

/** Why DECLINED, for the task of a request that expired (`@McpApproval`'s `expiresAfterMs`). */
export const approvalExpired = (timerId: string): string => `nobody decided the request in time: it expired (${timerId})`;

/** What an `expiresAfterMs` function answered instead of a delay. */
export const approvalExpiryNotADelay = (answered: unknown): string =>
  `it answered ${String(answered)}, not a positive whole number of milliseconds`;

/** Log line: `expiresAfterMs` of `@McpApproval` threw or answered no delay, so the call is refused (it would wait with no end). */
export const approvalExpiryFailed = (tool: string, error: unknown): string =>
  `@McpApproval's expiresAfterMs of ${tool} failed, so the call is refused rather than left waiting with no end: ${reasonOf(error)}`;

/** Why DECLINED: the waiting call's expiry could not be worked out. */
export const approvalExpiryUnknown = (): string => "the request's expiry (@McpApproval's expiresAfterMs) could not be worked out";

/** Log line: settling the task of a decided request failed (the decision is stored). */
export const taskSettleFailed = (tool: string, taskId: string, error: unknown): string =>
  `The waiting request of ${tool} was decided, but its task ${taskId} could not be settled: ${reasonOf(error)}`;

/** A back-office decision reached a step that needs a client (a confirmation, input): it has none. */
export const noClientInBackOffice = (tool: string): string =>
  `${tool} asked its client for input, and a call from the app's own code (McpWorkflowService.approve, .reject or .send) has no client to ask.`;

/** Error of a decision from the app's own code whose approved handler answered a tool error. */
export const noDecision = (tool: string, answered: string): string =>
  `${tool} decided nothing: the approved handler answered a tool error, so nothing was stored and the request still waits. It answered: ${answered}`;

/** Error of a decision from the app's own code given something it cannot use (`what` names it). */
export const decisionArgumentInvalid = (method: string, what: string): string => `${method}: ${what}. Nothing was decided.`;

/** `McpWorkflowService.approve` or `.reject` (or a console decision) on a machine without `@McpApproval`. */
export const noApprovalOn = (machine: string): string =>
  `McpWorkflowService: no tool of machine "${machine}" has @McpApproval, so nothing of it waits for approval.`;

/** Log line (the model reads STATE_UNAVAILABLE): an approval's call did not read its request before it began, so its handler would not run with the stored arguments. */
export const approvalArgumentsUnread = (tool: string, requestId: string): string =>
  `"${tool}" could not read request "${echo(requestId)}" before the call began, so its handler would not run with the request's stored arguments; nothing ran`;

/** Log line: the `when` of `@McpApproval` threw; the call waits for approval (fail closed). */
export const approvalWhenFailed = (tool: string, error: unknown): string =>
  `@McpApproval's when of ${tool} threw, so the call waits for a second person's approval: ${reasonOf(error)}`;

/** `McpWorkflowService.send` to a machine the module does not run, or to one without handles. */
export const sendNeedsHandleMachine = (machine: string, known: boolean): string =>
  known
    ? `McpWorkflowService.send: machine "${machine}" is session-keyed; outside events go to handle-keyed machines (stateHandleKey), whose instances the app can name.`
    : `McpWorkflowService.send: this module runs no machine "${machine}".`;

/** `McpWorkflowService.send` with an event no state of the machine accepts. */
export const sendUnknownEvent = (machine: string, event: unknown, events: readonly string[]): string =>
  `McpWorkflowService.send: no state of machine "${machine}" accepts event ${JSON.stringify(event)}. Its events: ${events.join(', ') || '(none)'}.`;

/** `McpWorkflowService.send` with a bad handle, actor or idempotency key. */
export const sendInvalidOption = (what: string, value: unknown): string =>
  `McpWorkflowService.send: ${what} must be a non-empty string of at most 255 characters, got ${typeof value === 'string' ? `${value.length} characters` : (JSON.stringify(value) ?? String(value))}.`;

/** `McpWorkflowService.send` with an idempotency key, on a store that keeps no receipts. */
export const sendNeedsEventLog = (store: string): string =>
  `McpWorkflowService.send: an idempotency key needs a store that keeps the receipts of outside events in the same write as the state (FsmEventLog: TypeOrmFsmStateStore, InMemoryFsmStateStore); ${store} does not.`;
