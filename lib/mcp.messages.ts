/**
 * Every message a model or a developer reads, worded once. Grouped by who reads it:
 * refusals (the model), bootstrap errors (the developer), store errors (the operator).
 */

/** Formats a list of tool names for a message. */
export const formatToolList = (tools: readonly string[]): string => (tools.length ? tools.join(', ') : '(none)');

// Machine definitions and engines (bootstrap).
const nodeName = (state: string | undefined): string => (state === undefined ? 'the root node' : `state "${state}"`);

const NODE_KEY_LABELS: Readonly<Record<string, string>> = {
  on: 'transitions ("on")',
  states: 'nested states',
  entry: 'entry actions ("entry")',
  exit: 'exit actions ("exit")',
  always: 'eventless transitions ("always")',
  after: 'delayed transitions ("after")',
  invoke: 'invoked actors ("invoke")',
  onDone: 'a done transition ("onDone")',
};

/** What a machine uses that the built-in table engine cannot run, worded for `tableEngineNeedsXState`. */
export const tableEngineFeature = {
  nodeKey: (key: string): string => (Object.hasOwn(NODE_KEY_LABELS, key) ? NODE_KEY_LABELS[key] : `the key "${key}"`),
  stateType: (type: string): string => `type "${type}"`,
  transitionKey: (key: string, event: string): string =>
    key === 'guard'
      ? `a guard on event "${event}"`
      : key === 'actions'
        ? `actions on event "${event}"`
        : `the key "${key}" on event "${event}"`,
  transitionArray: (event: string): string => `several transitions (an array) on event "${event}"`,
  targetless: (event: string): string => `a transition without a target on event "${event}"`,
  targetArray: (event: string): string => `several targets on event "${event}"`,
  relativeTarget: (target: string, event: string): string =>
    `the target "${target}" on event "${event}" (the table runs sibling state names only)`,
  wildcard: (event: string): string => `the wildcard event "${event}"`,
};

/** Bootstrap error: the built-in table engine cannot run part of a machine exactly. */
export const tableEngineNeedsXState = (machine: string, state: string | undefined, feature: string): string =>
  `Machine "${machine}": ${nodeName(state)} uses ${feature}; install xstate (an optional peer) to run it.`;

/** Bootstrap error: a machine has a parallel state, which a single stored state path cannot hold. */
export const machineParallelState = (machine: string, state: string | undefined): string =>
  `Machine "${machine}": ${nodeName(state)} is parallel (type: 'parallel'); nestjs-mcp-fsm stores one state path per instance, so parallel states are not supported.`;

/** Bootstrap error: a state name contains the path separator. */
export const machineStateNameHasDot = (machine: string, state: string): string =>
  `Machine "${machine}": state name "${state}" contains "."; state paths are dotted ("review.legal"), so rename the state.`;

/** Bootstrap error: a transition targets a state the machine does not have. */
export const machineUnknownTarget = (machine: string, state: string, event: string, target: string): string =>
  `Machine "${machine}": state "${state}" sends event "${event}" to unknown state "${target}".`;

/** Bootstrap error: the machine's `initial` is not one of its states. */
export const machineUnknownInitial = (machine: string, initial: unknown, states: readonly string[]): string =>
  `Machine "${machine}": initial state ${JSON.stringify(initial) ?? 'undefined'} is not one of its states (${states.length ? states.join(', ') : 'none'}).`;

/** Error of an engine asked about a state the machine does not have (for example a stored state of an older machine). */
export const machineUnknownState = (machine: string, state: string): string =>
  `Machine "${machine}" has no state "${state}".`;

/** Bootstrap error: engine `'xstate'` was chosen but xstate is not installed. */
export const xstateEngineUnavailable = (machine: string): string =>
  `Machine "${machine}": engine "xstate" was chosen, but xstate is not installed; install xstate (an optional peer) or choose engine "table" or "auto".`;

/** Bootstrap error: a machine was made with XState's `createMachine`, but nestjs-mcp-fsm cannot load xstate. */
export const xstateMachineWithoutXState = (machine: string): string =>
  `Machine "${machine}" was defined with an XState machine object, but nestjs-mcp-fsm could not load xstate; install xstate (an optional peer) where nestjs-mcp-fsm can import it.`;

// Stores.

/** Store error: `create` was called for a handle that already exists. */
export const storeHandleExists = (handle: string): string => `Workflow instance "${handle}" already exists.`;

/** Store error: the in-memory store holds `maxEntries` live instances and refuses a new one. */
export const storeFull = (maxEntries: number): string =>
  `InMemoryFsmStateStore is full: ${maxEntries} live workflow instances (maxEntries); live state is never evicted. Raise maxEntries, lower idleTtlMs, or use a database store (TypeOrmFsmStateStore).`;

/** Bootstrap error: the DataSource is of a database type the TypeORM store does not support. */
export const storeUnsupportedDatabase = (type: string): string =>
  `TypeOrmFsmStateStore does not support DataSource type "${type}"; supported: postgres, mysql, mariadb, better-sqlite3.`;

/** Bootstrap error: a table name that is not a plain (optionally schema-qualified) SQL identifier. */
export const storeInvalidTableName = (name: string): string =>
  `TypeOrmFsmStateStore: table name "${name}" is not a plain SQL identifier (letters, digits, "_", optionally "schema.table").`;

/** Store error: a transaction was used after its commit or rollback. */
export const storeTransactionClosed = (): string =>
  'This workflow transaction is already committed or rolled back.';

/** Store error: a transaction committed a state update for an instance that does not exist. */
export const storeTransactionMissingInstance = (handle: string): string =>
  `Workflow instance "${handle}" does not exist; commit a new instance with { insert: true }.`;

// Discovery and bindings (bootstrap).

/** Bootstrap error: two machines share an id. */
export const duplicateMachine = (machine: string): string =>
  `McpModule: two machines have the id "${machine}"; machine ids must be unique.`;

/** Bootstrap error: `@McpTool` without a name or description. */
export const toolNeedsNameAndDescription = (source: string): string =>
  `${source}: @McpTool needs a "name" and a "description".`;

/** Bootstrap error: two tools share a name. */
export const duplicateTool = (name: string, first: string, second: string): string =>
  `Tool name "${name}" is declared twice: by @McpTool on ${first} and on ${second}. Tool names must be unique.`;

/** Bootstrap error: a tool is both bound and a start tool. */
export const bindAndStartTogether = (source: string): string =>
  `${source}: @BindState and @StartWorkflow cannot be on the same tool; a start tool creates the instance a bound tool needs.`;

/** Bootstrap error: a binding has no machine. */
export const noMachine = (source: string, decorator: string): string =>
  `${source}: ${decorator} has no machine; pass { machine } or put @McpWorkflow(machine) on the class.`;

/** Bootstrap error: a decorator names a machine that was not registered. */
export const unknownMachine = (source: string, decorator: string, machine: string, known: readonly string[]): string =>
  `${source}: ${decorator} names machine "${machine}", which is not in McpModule's "machines" (known: ${formatToolList(known)}).`;

/** Bootstrap error: `@BindState` names a state the machine does not have. */
export const unknownState = (source: string, decorator: string, machine: string, state: string, known: readonly string[]): string =>
  `${source}: ${decorator} names state "${state}", which machine "${machine}" does not have (states: ${formatToolList(known)}).`;

/** Bootstrap error: `@BindState` with an empty state list. */
export const noStates = (source: string): string => `${source}: @BindState needs at least one state.`;

/** Bootstrap error: a decorator names an event no transition of the machine uses. */
export const unknownEvent = (source: string, decorator: string, machine: string, event: string, known: readonly string[]): string =>
  `${source}: ${decorator} fires event "${event}", which no transition of machine "${machine}" accepts (events: ${formatToolList(known)}).`;

/** Bootstrap error: `@StartWorkflow` on a session-keyed machine. */
export const startNeedsHandleKey = (source: string, machine: string): string =>
  `${source}: @StartWorkflow needs a handle-keyed machine, but "${machine}" has no stateHandleKey; use defineMachine(config, { stateHandleKey: '...' }).`;

/** Bootstrap error: the input schema is not a zod object. */
export const inputSchemaNotObject = (source: string): string =>
  `${source}: @McpTool inputSchema must be a zod object schema (z.object({...})).`;

/** Bootstrap error: the output schema is not a zod object. */
export const outputSchemaNotObject = (source: string): string =>
  `${source}: @McpTool outputSchema must be a zod object schema (z.object({...})); MCP structured content is an object.`;

/** Bootstrap error: transactional mode with a store that has no transactions. */
export const transactionalNeedsStore = (source: string, decorator: string, store: string): string =>
  `${source}: ${decorator} runs in transactional mode, but the store (${store}) does not support transactions; use TypeOrmFsmStateStore or turn "transactional" off.`;

/** Bootstrap error: request-scoped tool providers were refused. */
export const requestScopedRefused = (source: string): string =>
  `${source}: the provider is request-scoped (or depends on one), and McpModule's allowRequestScoped is false; make it a singleton or allow request scope.`;

/** Description of the handle argument added to handle-keyed bound tools. */
export const handleArgumentDescription = (machine: string): string =>
  `Handle of the ${machine} workflow, as returned when it was started.`;

// Refusals (the model reads these).

/** FORBIDDEN: the tool is not available in the instance's state. */
export const forbidden = (tool: string, machine: string, state: string, allowed: readonly string[]): string =>
  `FORBIDDEN: "${tool}" is not available while ${machine} is "${state}". Allowed now: ${formatToolList(allowed)}.`;

/** BUSY: another call holds the instance. */
export const busy = (tool: string, machine: string, allowed: readonly string[]): string =>
  `BUSY: ${machine} is handling another call, so "${tool}" did not run. Try again in a moment. Allowed now: ${formatToolList(allowed)}.`;

/** UNKNOWN_HANDLE: missing, malformed, unknown, expired or foreign handle. */
export const unknownHandle = (tool: string, machine: string, key: string, handle: unknown, start: readonly string[]): string =>
  handle === undefined || handle === ''
    ? `UNKNOWN_HANDLE: "${tool}" needs the argument "${key}" of a ${machine} workflow. Start one with: ${formatToolList(start)}.`
    : `UNKNOWN_HANDLE: there is no ${machine} workflow "${String(handle)}" (it is malformed, unknown, expired or not yours), so "${tool}" did not run. Start one with: ${formatToolList(start)}.`;

/** STATE_UNAVAILABLE: the store failed; the gate failed closed. */
export const stateUnavailable = (tool: string, machine: string, reason: string, handlerRan: boolean, handle?: string): string =>
  handlerRan
    ? `STATE_UNAVAILABLE: "${tool}" ran, but the new state of ${machine}${handle ? ` "${handle}"` : ''} could not be stored (${reason}). Check its status before retrying.`
    : `STATE_UNAVAILABLE: the state of ${machine} could not be read (${reason}), so "${tool}" did not run. Try again later.`;

/** NO_SESSION: a session-keyed tool on a connection without sessions. */
export const noSession = (tool: string, machine: string): string =>
  `NO_SESSION: "${tool}" keeps ${machine} state per session, and this stateless connection has none. Connect with a stateful session, or run the server single-tenant.`;

/** LEASE_EXPIRED: the handler outlived its lease. */
export const leaseExpired = (tool: string, machine: string, state: string, leaseMs: number): string =>
  `LEASE_EXPIRED: "${tool}" ran, but lost its claim on ${machine} meanwhile (its ${leaseMs} ms lease could not be renewed), so its transition was not stored; ${machine} was "${state}". Check its status before retrying.`;

/** A freshly minted handle already exists (never expected with 128 random bits). */
export const handleCollision = (storeKey: string): string =>
  `the new handle "${storeKey}" already exists; no instance was started`;

/** Unknown tool name in `tools/call`. */
export const unknownTool = (name: string): string =>
  `Unknown tool "${name}". Call tools/list for the tools available now.`;

/** Arguments that fail the tool's input schema. */
export const invalidArguments = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `Invalid arguments for "${tool}": ${formatIssues(issues)}.`;

/** zod issues as `path: message; path: message`. */
const formatIssues = (issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(value)'}: ${issue.message}`).join('; ');

/** A handler's return value that fails the tool's output schema (no transition fires). */
export const invalidOutput = (tool: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string =>
  `"${tool}" returned a result that does not match its outputSchema: ${formatIssues(issues)}.`;

/** `tools/list` failed because the store could not be read. */
export const menuUnavailable = (error: unknown): string =>
  `STATE_UNAVAILABLE: the tool list could not be computed because workflow state could not be read (${reasonOf(error)}).`;

/** Log line: a handler (or a guard, pipe or interceptor) threw an unexpected error. */
export const handlerFailed = (tool: string, error: unknown): string => `Tool "${tool}" failed: ${reasonOf(error)}`;

/** Log line: a lease or transaction could not be released. */
export const releaseFailed = (tool: string, error: unknown): string =>
  `Tool "${tool}": releasing its claim failed (${reasonOf(error)}); the lease expires by itself.`;

/** Log line: the engine did not accept the bound event after a successful call. */
export const transitionNotAccepted = (tool: string, machine: string, state: string, event: string): string =>
  `Tool "${tool}" succeeded, but ${machine} did not accept "${event}" in state "${state}" (a guard said no); the state is unchanged.`;

/** Bootstrap error: the PostgreSQL relay was given another database. */
export const relayNeedsPostgres = (type: string): string =>
  `PostgresFsmTransitionRelay needs a PostgreSQL DataSource; this one is "${type}".`;

/** Bootstrap error: a LISTEN/NOTIFY channel name that is not a plain identifier. */
export const relayInvalidChannel = (channel: string): string =>
  `PostgresFsmTransitionRelay: channel "${channel}" is not a plain lower-case SQL identifier (a-z, 0-9, "_").`;

/** Log line: a NOTIFY failed (the menu of other instances refreshes on their next list). */
export const relayPublishFailed = (error: unknown): string =>
  `Could not relay a transition to the other instances: ${reasonOf(error)}`;

/** Log line: a relayed payload was not one of ours. */
export const relayBadPayload = (error: unknown): string => `Ignored a transition relay message: ${reasonOf(error)}`;

/** Log line: the LISTEN connection was lost. */
export const relayLost = (error: unknown, retryMs: number): string =>
  `Transition relay connection lost (${error === undefined ? 'closed' : reasonOf(error)}); listening again in ${retryMs} ms.`;

// Transports.

/** The reason text of any thrown value. */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** HTTP 403: Host header not allowed (DNS rebinding protection). */
export const hostRejected = (host: string | undefined): string =>
  `Forbidden: Host header "${host ?? ''}" is not allowed for this MCP server (DNS rebinding protection); add it to transports.http.allowedHosts.`;

/** HTTP 403: Origin header not allowed. */
export const originRejected = (origin: string): string =>
  `Forbidden: Origin "${origin}" is not allowed for this MCP server (DNS rebinding protection); add it to transports.http.allowedOrigins.`;

/** HTTP 405 on a stateless server. */
export const statelessMethod = (method: string): string =>
  `Method ${method} is not allowed: this MCP server is stateless (POST only, no sessions).`;

/** HTTP 404: unknown or closed session. */
export const sessionNotFound = (id: string): string =>
  `Session "${id}" was not found (closed, expired or never opened); send a new initialize request without Mcp-Session-Id.`;

/** HTTP 400: a request without a session that is not an initialize request. */
export const sessionRequired = (): string =>
  'Bad Request: send an initialize request first, then the Mcp-Session-Id header it returns on every request.';

/** HTTP 503: session cap reached. */
export const tooManySessions = (): string =>
  'Service Unavailable: this MCP server has reached its maximum number of sessions; try again later.';

/** HTTP 500 / log line: the transport failed to serve a request. */
export const transportFailed = (error: unknown): string => `Internal error while serving MCP: ${reasonOf(error)}`;

/** Log line: a list_changed notification could not be sent. */
export const notifyFailed = (session: string | undefined, error: unknown): string =>
  `Could not send tools/list_changed to session ${session ?? '(stdio)'}: ${reasonOf(error)}`;

/** Log line: a closed session's instances could not be deleted (they expire with the store). */
export const forgetFailed = (error: unknown): string =>
  `Could not delete the workflow instances of closed sessions: ${reasonOf(error)}`;

/** Log line: closing an idle session failed. */
export const closeFailed = (session: string, error: unknown): string =>
  `Could not close idle session ${session}: ${reasonOf(error)}`;
