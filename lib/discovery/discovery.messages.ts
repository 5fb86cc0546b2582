/** What a developer reads when tool definitions are wrong at bootstrap: worded once. */

/** Formats a list of names for a message. */
const formatList = (names: readonly string[]): string => (names.length ? names.join(', ') : '(none)');

/** Bootstrap error: `@McpTool` without a name or description. */
export const toolNeedsNameAndDescription = (source: string): string => `${source}: @McpTool needs a "name" and a "description".`;

/** Bootstrap error: a tool name MCP does not allow. */
export const toolNameInvalid = (source: string, name: string): string =>
  `${source}: @McpTool name ${JSON.stringify(name)} is not a valid MCP tool name: use 1 to 128 letters, digits, "_", "." and "-" (no spaces or slashes).`;

/** Startup warning: a handle-keyed machine that no tool can start. */
export const noStartTool = (server: string, machine: string, handleKey: string): string =>
  `Server "${server}": machine "${machine}" is handle-keyed (stateHandleKey "${handleKey}"), but no tool has @McpStartWorkflow for it, so no client can create an instance and its bound tools are never listed; add a start tool.`;

/** Bootstrap error: two tools share a name. */
export const duplicateTool = (name: string, first: string, second: string): string =>
  `Tool name "${name}" is declared twice: by @McpTool on ${first} and on ${second}. Tool names must be unique.`;

/** Bootstrap error: a tool is both bound and a start tool. */
export const bindAndStartTogether = (source: string): string =>
  `${source}: @McpBindState and @McpStartWorkflow cannot be on the same tool; a start tool creates the instance a bound tool needs.`;

/** Bootstrap error: a binding has no machine. */
export const noMachine = (source: string, decorator: string): string =>
  `${source}: ${decorator} has no machine; pass { machine } or put @McpWorkflow(machine) on the class.`;

/** Bootstrap error: a decorator names a machine that was not registered. */
export const unknownMachine = (source: string, decorator: string, machine: string, known: readonly string[]): string =>
  `${source}: ${decorator} names machine "${machine}", which is not in McpModule's "machines" (known: ${formatList(known)}).`;

/** Bootstrap error: `@McpBindState` names a state the machine does not have. */
export const unknownState = (source: string, decorator: string, machine: string, state: string, known: readonly string[]): string =>
  `${source}: ${decorator} names state "${state}", which machine "${machine}" does not have (states: ${formatList(known)}).`;

/** Bootstrap error: `@McpBindState` with an empty state list. */
export const noStates = (source: string, decorator: string): string => `${source}: ${decorator} needs at least one state.`;

/** Bootstrap error: a decorator names an event no transition of the machine uses. */
export const unknownEvent = (source: string, decorator: string, machine: string, event: string, known: readonly string[]): string =>
  `${source}: ${decorator} fires event "${event}", which no transition of machine "${machine}" accepts (events: ${formatList(known)}).`;

/** Bootstrap error: `@BindState` or `@McpBindState` fires an event that none of its states accepts (guards aside). */
export const eventNotAcceptedFrom = (
  source: string,
  decorator: string,
  machine: string,
  event: string,
  states: readonly string[],
  accepting: readonly string[],
): string =>
  `${source}: ${decorator} fires event "${event}" from ${states.length === 1 ? 'state' : 'states'} ${formatList(states)}, but machine "${machine}" accepts it only in ${formatList(accepting)}; the tool would be listed there and refuse every call. Bind it to the states that accept "${event}".`;

/** Bootstrap error: `@StartWorkflow` or `@McpStartWorkflow` fires an event that the machine's initial state does not accept (guards aside). */
export const startEventNotAccepted = (
  source: string,
  decorator: string,
  machine: string,
  event: string,
  initial: string,
  accepted: readonly string[],
): string =>
  `${source}: ${decorator} fires event "${event}" when it starts an instance, but machine "${machine}" starts in state "${initial}", which does not accept it (${accepted.length ? `it accepts ${formatList(accepted)}` : 'it accepts no event'}); every call would be refused. Fire an event of "${initial}", or none.`;

/** Bootstrap error: `@StartWorkflow` or `@McpStartWorkflow` on a session-keyed machine. */
export const startNeedsHandleKey = (source: string, decorator: string, machine: string): string =>
  `${source}: ${decorator} needs a handle-keyed machine, but "${machine}" has no stateHandleKey; use defineMachine(config, { stateHandleKey: '...' }).`;

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

/** Call error: an app's pipe replaced the parameter through which a gated method's stand-in finds its call. */
export const callParameterReplaced = (source: string): string =>
  `${source}: a pipe of the app replaced the call parameter nestjs-mcp-fsm adds to the gated method's parameters, so the gate cannot decide and the method did not run; let pipes return values they do not handle unchanged.`;

/** Description of the handle argument added to handle-keyed bound tools. */
export const handleArgumentDescription = (machine: string): string => `Handle of the ${machine} workflow, as returned when it was started.`;

/** Bootstrap error: a prompt or resource with `@McpStartWorkflow` or a transition. */
export const onlyToolsMove = (source: string, decorator: string): string =>
  `${source}: ${decorator} may be bound to states (@McpBindState(states)), but only a tool starts a workflow or fires a transition; remove @McpStartWorkflow or the event.`;

/** Bootstrap error: a method with more than one of `@McpTool`, `@McpPrompt`, `@McpResource`. */
export const severalKinds = (source: string): string =>
  `${source}: a method can be one of a tool (@McpTool), a prompt (@McpPrompt) or a resource (@McpResource), not several.`;

/** Bootstrap error: a prompt or resource without a name. */
export const needsName = (source: string, decorator: string): string => `${source}: ${decorator} needs a "name".`;

/** Bootstrap error: two prompts, or two resources, share a name or URI. */
export const duplicateName = (what: string, name: string, first: string, second: string): string =>
  `${what} "${name}" is declared twice: on ${first} and on ${second}. It must be unique.`;

/** Bootstrap error: `@McpPrompt` arguments that are not strings. */
export const promptArgumentNotString = (source: string, argument: string): string =>
  `${source}: @McpPrompt argument "${argument}" must accept a string (MCP prompt arguments are strings); use z.string() and parse it in the handler.`;

/** Bootstrap error: `@McpResource` with neither or both of `uri` and `uriTemplate`. */
export const resourceNeedsOneUri = (source: string): string =>
  `${source}: @McpResource needs exactly one of "uri" (a fixed resource) and "uriTemplate" (a template).`;

/** Bootstrap error: a resource template that is not RFC 6570. */
export const invalidUriTemplate = (source: string, template: string, reason: string): string =>
  `${source}: @McpResource uriTemplate "${template}" is not a valid URI template: ${reason}`;

/** Bootstrap error: a fixed resource bound to a handle-keyed machine, which cannot name its instance. */
export const resourceNeedsHandleVariable = (source: string, machine: string, key: string): string =>
  `${source}: @McpResource is bound to handle-keyed machine "${machine}", so its URI must carry the handle: use a uriTemplate with {${key}}.`;

/** Title of a workflow's diagram resource. */
export const workflowDiagramTitle = (machine: string): string => `The ${machine} workflow`;

/** Description of a workflow's diagram resource. */
export const workflowDiagramDescription = (machine: string): string =>
  `State diagram (Mermaid) of the ${machine} workflow; each transition is labelled with its event and the tools that fire it.`;

/** Title of a workflow's instance resource. */
export const workflowInstanceTitle = (machine: string): string => `Your ${machine}`;

/** Description of a workflow's instance resource. */
export const workflowInstanceDescription = (machine: string, handleKey?: string): string =>
  handleKey
    ? `Your ${machine} named by its ${handleKey}: state, context, the tools allowed now, and the diagram with the state highlighted.`
    : `This session's ${machine}: state, context, the tools allowed now, and the diagram with the state highlighted.`;

/** Bootstrap error: a handler names a server no McpModule of the app is. */
export const unknownServer = (source: string, server: string, known: readonly string[]): string =>
  `${source}: is served by MCP server "${server}", but no McpModule of the app has that serverId (servers: ${formatList(known)}).`;

/** Bootstrap error: with several servers, a handler names none (`suggested`: the one McpModule its module imports). */
export const unroutedHandler = (
  source: string,
  className: string,
  servers: readonly string[],
  module: string,
  suggested?: string,
): string =>
  `${source}: this app has several MCP servers (${formatList(servers)}) and nothing names the one that serves it; servers are not inferred from imports. ` +
  (suggested === undefined
    ? `Add @McpServedBy('<serverId>') to ${className}, or { server: '<serverId>' } to the decorator.`
    : `Its module ${module} imports the McpModule of "${suggested}": add @McpServedBy('${suggested}') to ${className} (or { server: '${suggested}' } to the decorator).`);

/** Bootstrap error: two McpModules share a server id. */
export const duplicateServerId = (server: string): string =>
  `McpModule: two McpModules have the serverId "${server}" (their name, unless serverId is set); each server of the app needs its own.`;

/** Bootstrap error: several McpModules are global. */
export const severalGlobalServers = (servers: readonly string[]): string =>
  `McpModule: the McpModules of servers ${formatList(servers)} are all global (isGlobal defaults to true); with several servers at most one may be global, or a module that imports none of them would be given whichever registered first. Pass isGlobal: false to the others and import each McpModule where its tools are.`;

/** Bootstrap error: two McpModules serve HTTP on one path. */
export const duplicateServerPath = (path: string, first: string, second: string): string =>
  `McpModule: servers "${first}" and "${second}" both serve HTTP on "${path}"; give each its own transports.http.path.`;

/** Bootstrap error: two McpModules serve stdio. */
export const severalStdioServers = (first: string, second: string): string =>
  `McpModule: servers "${first}" and "${second}" both serve stdio; only one server of a process can own stdin and stdout.`;

/** Bootstrap error: a provider's handlers are served by one server, and Nest gave it another server's export. */
export const injectionFromOtherServer = (
  source: string,
  module: string,
  token: string,
  served: string,
  injected: string,
  global: boolean,
): string =>
  `${source} injects ${token}, and its handlers are served by MCP server "${served}", but Nest gave it the one of server "${injected}"${global ? ' (global)' : ''}; import the McpModule of "${served}" in ${module} (the same McpModule.forRoot(...) value), ahead of any other server's.`;

/** Bootstrap error: `@McpRequire` names a scope OAuth does not allow. */
export const scopeInvalid = (source: string, scope: string): string =>
  `${source}: @McpRequire names the scope ${JSON.stringify(scope)}, which is not an OAuth scope (printable ASCII without spaces, '"' or '\\').`;
/** Bootstrap error: `@McpConfirm` on a handler that fires no transition. */
export const confirmNeedsTransition = (source: string): string =>
  `${source}: @McpConfirm asks before a transition, so it goes on a tool bound with an event: @McpBindState(machine, states, 'EVENT').`;

/** Bootstrap error: `@McpConfirm` names another machine than the binding's. */
export const confirmOtherMachine = (source: string, confirm: string, bound: string): string =>
  `${source}: @McpConfirm names machine "${confirm}", but the tool is bound to "${bound}"; pass the machine of @McpBindState.`;

/** Bootstrap error: the `schema` of `@McpConfirm` has a field an elicitation form cannot show. */
export const confirmSchemaNotFlat = (source: string, field: string): string =>
  `${source}: @McpConfirm's schema field "${field}" is not a string, number, integer, boolean or enum; an elicitation form shows flat fields only.`;

/** Bootstrap error: `@McpApproval` on a handler that fires no transition. */
export const approvalNeedsTransition = (source: string): string =>
  `${source}: @McpApproval defers a transition, so it goes on a tool bound with an event: @McpBindState(machine, states, 'EVENT').`;

/** Bootstrap error: `@McpApproval` names another machine than the binding's. */
export const approvalOtherMachine = (source: string, approval: string, bound: string): string =>
  `${source}: @McpApproval names machine "${approval}", but the tool is bound to "${bound}"; pass the machine of @McpBindState.`;

/** Bootstrap error: `@McpApproval` on a session-keyed machine, whose instance nobody else can name. */
export const approvalNeedsHandle = (source: string, machine: string): string =>
  `${source}: @McpApproval needs a handle-keyed machine (defineMachine(..., { stateHandleKey })): the person who approves names the instance by its handle, and "${machine}" is session-keyed.`;

/** Bootstrap error: the waiting state of `@McpApproval` is not one the machine declares (or one it cannot wait in). */
export const approvalWaitState = (source: string, machine: string, waitIn: string, why: string, states: readonly string[]): string =>
  `${source}: @McpApproval's waitIn "${waitIn}" ${why}. Declare a state of its own for waiting calls (e.g. \`${waitIn}: {}\` in "${machine}"); its states: ${states.join(', ')}.`;

/** Bootstrap error: `rejectTo` or `expireTo` of `@McpApproval` is not a state a decision can lead to. */
export const approvalDecidedState = (source: string, which: string, state: string, why: string, states: readonly string[]): string =>
  `${source}: @McpApproval's ${which} "${state}" ${why}. Name a state the machine declares for it; its states: ${states.join(', ')}.`;

/** Bootstrap error: `crossTenantApprovers` without `approvers`, which would open waiting instances to everyone. */
export const crossTenantNeedsApprovers = (source: string): string =>
  `${source}: @McpApproval's crossTenantApprovers opens waiting instances to the holders of approvers, whatever the machine's access rule; name approvers ({ scopes } or { roles }), or drop crossTenantApprovers.`;

/** Bootstrap log: `crossTenantApprovers` opens every waiting instance of a machine to the approvers. */
export const crossTenantApproversOpen = (tool: string, machine: string, approvers: string): string =>
  `@McpApproval of ${tool}: crossTenantApprovers is on, so every holder of ${approvers} may read and decide the waiting ${tool} requests of every "${machine}" instance, whatever the machine's access rule (owner, team, access function) says.`;

/** Bootstrap error: `expiresAfterMs` of `@McpApproval` is not a positive whole number of milliseconds. */
export const approvalExpiryInvalid = (source: string, expiresAfterMs: unknown): string =>
  `${source}: @McpApproval's expiresAfterMs must be a positive whole number of milliseconds, or a function answering one (got ${String(expiresAfterMs)}).`;

/** Bootstrap error: a decision tool of `@McpApproval` has no name MCP allows. */
export const approvalToolName = (source: string, which: 'approve' | 'reject', name: unknown): string =>
  `${source}: @McpApproval's ${which}.name ${JSON.stringify(name)} is not a tool name MCP allows (1 to 128 of A-Z a-z 0-9 _ . -).`;

/** Bootstrap error: a tool with `@McpApproval` declares an output schema its waiting result does not fit. */
export const approvalOutputSchema = (source: string): string =>
  `${source}: @McpApproval on a tool with an outputSchema: a call that waits answers { status: 'waiting_for_approval', state, requestId, approve, reject, message } as its structuredContent, which the schema must accept (clients check structuredContent against it); make the schema a union with that shape, or drop it.`;

/** Bootstrap error: `approvers.scopes` of `@McpApproval` names a scope OAuth does not allow. */
export const approverScopeInvalid = (source: string, scope: string): string =>
  `${source}: @McpApproval's approvers name the scope ${JSON.stringify(scope)}, which is not an OAuth scope (printable ASCII without spaces, '"' or '\\').`;

/** Description of the `requestId` argument of a decision tool of `@McpApproval`. */
export const requestIdDescription = (tool: string): string =>
  `The requestId of the waiting ${tool} request to decide, as read (it decides nothing when another request waits)`;

/** Description of an approve tool when `@McpApproval` gives none. */
export const approveDescription = (tool: string, handleKey: string): string =>
  `Approve the ${tool} call waiting for a second person's approval (by ${handleKey} and the requestId of the request you read): it runs then, with the arguments it was called with. The person who asked cannot approve it.`;

/** Description of a reject tool when `@McpApproval` gives none. */
export const rejectDescription = (tool: string, handleKey: string): string =>
  `Reject the ${tool} call waiting for a second person's approval (by ${handleKey} and its requestId); it never runs. The person who asked may withdraw it this way. \`reason\` is kept in its history.`;
