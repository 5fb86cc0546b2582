/**
 * Messages of machine definitions and engines, worded once: bootstrap errors a developer
 * reads when a machine cannot be run, and the few runtime errors of an engine.
 */

const nodeName = (state: string | undefined): string => (state === undefined ? 'the root node' : `state "${state}"`);

const NODE_KEY_LABELS: Readonly<Record<string, string>> = {
  on: 'transitions ("on")',
  states: 'nested states',
  entry: 'entry actions ("entry")',
  exit: 'exit actions ("exit")',
  always: 'eventless transitions ("always")',
  invoke: 'invoked actors ("invoke")',
  onDone: 'a done transition ("onDone")',
};

/** Bootstrap error: `defineMachine` got a config without an id. */
export const machineNeedsId = (): string => 'defineMachine: the machine config needs an "id".';

/** `defineMachine(..., { access })` got something that is no access rule. */
export const machineAccessInvalid = (machine: string): string =>
  `defineMachine("${machine}"): access must be 'owner', { team: '<claim name>' } (a non-empty claim name) or a function (principal, instance) => boolean.`;

/** Bootstrap error: `defineMachine`'s `summary` is not a function. */
export const machineSummaryInvalid = (machine: string): string =>
  `defineMachine("${machine}"): summary must be a function (context) => string, one line about an instance for the workflow console.`;

/** Bootstrap error: `defineMachine`'s `operatorEvents` is not a list of event names. */
export const machineOperatorEventsInvalid = (machine: string): string =>
  `defineMachine("${machine}"): operatorEvents must list the machine's event names (['VOID']), or map each to its effect ({ VOID: { run: (ctx) => ... } }).`;

/** What a machine uses that the built-in table engine cannot run, worded for `tableEngineNeedsXState`. */
export const tableEngineFeature = {
  nodeKey: (key: string): string => (Object.hasOwn(NODE_KEY_LABELS, key) ? NODE_KEY_LABELS[key] : `the key "${key}"`),
  stateType: (type: string): string => `type "${type}"`,
  parallel: (): string => `parallel states (type: 'parallel')`,
  context: (): string => 'a context that is not a plain object (a context function needs XState to compute it)',
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
  namedDelay: (delay: string): string =>
    `the delay "${delay}" in "after" (the table takes milliseconds; a named delay needs setup({ delays }))`,
};

/** Bootstrap error: the built-in table engine cannot run part of a machine exactly. */
export const tableEngineNeedsXState = (machine: string, state: string | undefined, feature: string): string =>
  `Machine "${machine}": ${nodeName(state)} uses ${feature}; install xstate (an optional peer) to run it.`;

/** Bootstrap error: a state name contains the path separator. */
export const machineStateNameHasDot = (machine: string, state: string): string =>
  `Machine "${machine}": state name "${state}" contains "."; state paths are dotted ("review.legal"), so rename the state.`;

/** Bootstrap error: a top-level state name that reads like a stored JSON state value. */
export const machineStateNameIsJson = (machine: string, state: string): string =>
  `Machine "${machine}": state name "${state}" starts with "{"; the state values of parallel states are stored as JSON objects, so rename the state.`;

/** Bootstrap error: a transition targets a state the machine does not have. */
export const machineUnknownTarget = (machine: string, state: string, event: string, target: string): string =>
  `Machine "${machine}": state "${state}" sends event "${event}" to unknown state "${target}".`;

/** Bootstrap error: the machine's `initial` is not one of its states. */
export const machineUnknownInitial = (machine: string, initial: unknown, states: readonly string[]): string =>
  `Machine "${machine}": initial state ${JSON.stringify(initial) ?? 'undefined'} is not one of its states (${states.length ? states.join(', ') : 'none'}).`;

/** Bootstrap error: XState failed to compute the machine's initial snapshot. */
export const machineInitialFailed = (machine: string, reason: string): string =>
  `Machine "${machine}": its initial state could not be computed (${reason}).`;

/** What a machine uses that the gate cannot run, worded for `machineFeatureUnsupported`. */
export const unsupportedFeature = {
  invoke: (): string => 'invoked actors ("invoke")',
  history: (): string => "a history state (type: 'history')",
  /** `action` names the action (`log()`, `the custom action "notify"`), `where` where it runs. */
  action: (action: string, where: string): string => `${action} in ${where}`,
  delayedRaise: (where: string): string => `a delayed raise() in ${where}`,
};

/** Where an action runs, worded for `unsupportedFeature.action`. */
export const actionPlace = {
  entry: (): string => 'its entry actions',
  exit: (): string => 'its exit actions',
  initial: (): string => 'its initial transition',
  event: (event: string): string => `its transition on event "${event}"`,
  always: (): string => 'an eventless transition ("always")',
  onDone: (): string => 'its done transition ("onDone")',
  route: (): string => 'a route transition ("route")',
};

const FEATURE_ADVICE = {
  invoke: 'call the service in the tool handler, and bind the tool to the event that records its outcome',
  history:
    "keep what to return to in the context (assign) and pick the target with guards: the gate stores each instance's state value and context, not XState's history value",
  action: 'run side effects in the tool handler; the gate stores context changes made with assign (and runs raise without a delay)',
  delayedRaise: 'raise the event without a delay, or fire it from a tool',
} as const;

/**
 * Bootstrap error: a machine uses a feature the gate cannot honour. The gate runs a machine
 * step by step on stored snapshots, never as a live actor, so nothing can run later or on its own.
 */
export const machineFeatureUnsupported = (
  machine: string,
  state: string | undefined,
  feature: string,
  kind: keyof typeof FEATURE_ADVICE,
): string =>
  `Machine "${machine}": ${nodeName(state)} uses ${feature}, which nestjs-mcp-fsm cannot run: it runs machines step by step on stored snapshots, never as live actors. Instead, ${FEATURE_ADVICE[kind]}.`;

/** Error of a transition whose context (after `assign`) is not JSON data. */
export const machineContextNotJson = (machine: string, path: string, what: string): string =>
  `Machine "${machine}": context${path} is ${what}; the gate stores context as JSON data (plain objects, arrays, strings, finite numbers, booleans, null), so assign JSON data only.`;

/** Error of a transition after which XState reports a state value the engine cannot store (never expected). */
export const machineUnexpectedValue = (machine: string, value: unknown): string =>
  `Machine "${machine}": XState reported the state value ${JSON.stringify(value)}, which is no complete configuration of the machine.`;

/** Error of a transition that spawned a child actor (from inside an `assign`). */
export const machineSpawnedActor = (machine: string): string =>
  `Machine "${machine}": a transition spawned a child actor (spawn inside assign); nestjs-mcp-fsm runs machines step by step on stored snapshots, never as live actors, so it cannot keep child actors.`;

/** Bootstrap error: engine `'xstate'` was chosen but xstate is not installed. */
export const xstateEngineUnavailable = (machine: string): string =>
  `Machine "${machine}": engine "xstate" was chosen, but xstate is not installed; install xstate (an optional peer) or choose engine "table" or "auto".`;

/** Bootstrap error: a machine was made with XState's `createMachine`, but nestjs-mcp-fsm cannot load xstate. */
export const xstateMachineWithoutXState = (machine: string): string =>
  `Machine "${machine}" was defined with an XState machine object, but nestjs-mcp-fsm could not load xstate; install xstate (an optional peer) where nestjs-mcp-fsm can import it.`;

/** Log line at startup, one per machine: which engine runs it. */
export const machineEngineChosen = (server: string, machine: string, engine: 'xstate' | 'table'): string =>
  engine === 'xstate'
    ? `Server "${server}": machine "${machine}" runs on XState.`
    : `Server "${server}": machine "${machine}" runs on the built-in table engine (flat machines; install xstate for nested and parallel states, guards and context).`;

/** Bootstrap error: two machines share an id. */
export const duplicateMachine = (machine: string): string =>
  `McpModule: two machines have the id "${machine}"; machine ids must be unique.`;

/** Bootstrap error: a machine id with the separator of store keys. */
export const machineIdHasColon = (machine: string): string =>
  `McpModule: machine id "${machine}" contains ":"; store keys are "<machine>:<handle>", so rename the machine.`;

/** `toMermaid` asked to highlight a value the machine cannot be in. */
export const mermaidUnknownHighlight = (machine: string, state: string): string =>
  `toMermaid: ${JSON.stringify(state)} is not a state value of machine "${machine}"; highlight takes a value as the store holds it (a dotted path down to a leaf such as "review.legal", or JSON for parallel states).`;
