/** What a developer reads when tool definitions are wrong at bootstrap: worded once. */

/** Formats a list of names for a message. */
const formatList = (names: readonly string[]): string => (names.length ? names.join(', ') : '(none)');

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
  `${source}: ${decorator} names machine "${machine}", which is not in McpModule's "machines" (known: ${formatList(known)}).`;

/** Bootstrap error: `@BindState` names a state the machine does not have. */
export const unknownState = (source: string, decorator: string, machine: string, state: string, known: readonly string[]): string =>
  `${source}: ${decorator} names state "${state}", which machine "${machine}" does not have (states: ${formatList(known)}).`;

/** Bootstrap error: `@BindState` with an empty state list. */
export const noStates = (source: string): string => `${source}: @BindState needs at least one state.`;

/** Bootstrap error: a decorator names an event no transition of the machine uses. */
export const unknownEvent = (source: string, decorator: string, machine: string, event: string, known: readonly string[]): string =>
  `${source}: ${decorator} fires event "${event}", which no transition of machine "${machine}" accepts (events: ${formatList(known)}).`;

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
