import type { McpGuardReason, McpMachineAccess } from './machine-access.js';
import type { McpMachineSchema } from './machine-schema.js';

/** A transition in an XState v5 config: a target name or an object with one. */
export type McpTransitionConfig =
  | string
  | { target?: string | readonly string[]; guard?: unknown; actions?: unknown; reenter?: boolean; description?: string; meta?: unknown }
  | ReadonlyArray<string | { target?: string | readonly string[]; guard?: unknown; actions?: unknown }>;

/** One state node of an XState v5 config. */
export interface McpStateNodeConfig {
  type?: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  initial?: string;
  on?: Record<string, McpTransitionConfig | undefined>;
  states?: Record<string, McpStateNodeConfig>;
  always?: unknown;
  after?: unknown;
  entry?: unknown;
  exit?: unknown;
  invoke?: unknown;
  [key: string]: unknown;
}

/** An XState v5 machine config, as plain data. */
export interface McpMachineConfig extends McpStateNodeConfig {
  id: string;
  initial: string;
  states: Record<string, McpStateNodeConfig>;
}

/** Options of `defineMachine`. */
export interface McpMachineOptions<
  THandleKey extends string | undefined = string | undefined,
  TContext extends object = Record<string, unknown>,
> {
  /**
   * Name of the tool argument that carries the instance handle (for example `'paymentId'`).
   * Set it to make the machine handle-keyed; leave it out for a session-keyed machine.
   */
  stateHandleKey?: THandleKey;
  /**
   * Who may act on an instance (a handle-keyed machine's; session-keyed instances are their
   * session's): its starter, its starter's team (`{ team: '<claim>' }`), or a function. See
   * docs/workflows.md#team-access.
   * @default 'owner'
   */
  access?: McpMachineAccess;
  /**
   * Token claims guards, actions and an access function see in `event.principal.claims`
   * (those the caller's token has). The claim of a team rule is always included.
   * @default []
   */
  principalClaims?: readonly string[];
  /**
   * Why each guard (by name, as `GUARD_REJECTED` names it) says no: the refusal gives the model
   * the reason of every guard that refused. See docs/workflows.md#guards-see-who-calls.
   * @default {}
   */
  guardReasons?: Readonly<Record<string, McpGuardReason>>;
  /**
   * One line about an instance for people, from its context (`"60.00 EUR · captured 60.00"`):
   * the workflow console shows it on each row of its list and on the instance's page. A summary
   * that throws, or answers anything but a string, shows nothing. See docs/console.md#what-it-shows.
   *
   * @example
   * summary: (context: PaymentContext) => `${context.authorized.toFixed(2)} ${context.currency}`
   */
  summary?: (context: TContext) => string;
  /**
   * Events an operator may send to an instance from the workflow console (a button on its page,
   * behind the console's `sendScope` and a confirmation), through the gate as
   * `McpWorkflowService.send` sends them, the operator as the actor: their names, or each name
   * with the effect that runs with it (`run`, as `send`'s: in the transaction the state change
   * commits in, on a transactional store). Each must be an event of the machine. See
   * docs/console.md#operator-actions.
   * @default none
   *
   * @example
   * operatorEvents: { VOID: { run: (ctx) => ledger.void(ctx.manager, ctx.handle) } }
   */
  operatorEvents?: readonly string[] | Readonly<Record<string, McpOperatorEvent>>;
}

/** An event operators may send from the workflow console, with the effect that runs with it. */
export interface McpOperatorEvent {
  /**
   * Runs after the claim and the guards, before the commit, as `McpWorkflowService.send`'s `run`,
   * with the call's context (declare it as `McpToolContext` or `WorkflowContext<typeof machine>`);
   * when it throws, nothing is stored.
   */
  readonly run?: (ctx: never) => unknown;
}

/**
 * A workflow machine as the module uses it: its config plus how its instances are keyed.
 * `TSchema` is what the compiler knows of its states, events and context (see
 * `defineMachine`); decorators and `WorkflowContext` read it.
 */
export interface McpMachine<TSchema = McpMachineSchema> {
  /** The machine id (the config's `id`). */
  readonly id: string;
  /** The XState v5 config (plain data). */
  readonly config: McpMachineConfig;
  /** The machine created with XState's `setup(...).createMachine(...)`, when one was given. */
  readonly xstateMachine?: unknown;
  /** Argument name of the handle of a handle-keyed machine; absent for session-keyed ones. */
  readonly stateHandleKey?: string;
  /** Who may act on an instance (`'owner'` unless `defineMachine` was given another rule). */
  readonly access: McpMachineAccess;
  /** The claims `event.principal.claims` carries: `principalClaims`, and the team claim of a team rule. */
  readonly principalClaims: readonly string[];
  /** Why each guard says no, by guard name. */
  readonly guardReasons: Readonly<Record<string, McpGuardReason>>;
  /** One line about an instance for people, from its context (`defineMachine(..., { summary })`); absent without one. */
  readonly summary?: (context: Record<string, unknown>) => string;
  /** Events an operator may send from the workflow console, with their effects (`defineMachine(..., { operatorEvents })`); absent without any. */
  readonly operatorEvents?: Readonly<Record<string, McpOperatorEvent>>;
  /** The machine's schema, for the compiler only: never set at runtime. */
  readonly '~schema'?: TSchema;
}
