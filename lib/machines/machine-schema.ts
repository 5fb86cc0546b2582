/**
 * What the compiler knows about a machine `defineMachine` returned, read from the literal
 * types of its config (or of the XState machine): the names decorators may bind, the events
 * they may fire, the context and state a handler reads. Type-level only; nothing here runs.
 *
 * State names are paths: a top-level state by its name (`'review'`), a nested one by its
 * dotted path from the root (`'review.legal'`), a region of a parallel state likewise
 * (`'checks.legal'`). Binding a parent matches all of its children, as at runtime.
 */
export interface McpMachineSchema {
  /** Every state path a binding may name. */
  readonly states: string;
  /** Which events each state path accepts, as `[path, event]` pairs. */
  readonly accepts: readonly [string, string];
  /** Events the initial state accepts (what a start tool may fire). */
  readonly startEvents: string;
  /** The state a snapshot reports (`ctx.state`): a leaf's dotted path; any string with parallel states. */
  readonly value: string;
  /** The machine's context (`ctx.workflowContext`). */
  readonly context: object;
  /** The argument that carries the handle of a handle-keyed machine; `undefined` when session-keyed. */
  readonly handleKey: string | undefined;
}

/** Events of the `[path, event]` pairs `TAccepts` that any of the state paths `TStates` accepts. */
export type EventsAccepted<TAccepts extends readonly [string, string], TStates extends string> = TAccepts extends readonly [
  infer TPath,
  infer TEvent,
]
  ? [TPath & TStates] extends [never]
    ? never
    : TEvent & string
  : never;

type NoStates = Record<never, never>;

/** The child states of `TNode`; `never` for a config typed only as `McpMachineConfig`, whose names are any string. */
type StatesOf<TNode> = TNode extends { readonly states: infer S }
  ? S extends object
    ? string extends keyof S
      ? never
      : S
    : NoStates
  : NoStates;

/** Whether the config's names are known: a config typed as plain `McpMachineConfig` has none. */
type IsWide<TNode> = [StatesOf<TNode>] extends [never] ? true : false;

/** How deep the schema follows nested states (deeper paths are left out). */
type MaxDepth = 8;

type OnKeys<TNode> = TNode extends { readonly on: infer O }
  ? string extends keyof O
    ? string
    : '*' extends keyof O
      ? string
      : keyof O & string
  : never;

/** Events handled by `TNode` or any of its descendants. */
type SubtreeEvents<TNode, TDepth extends 0[] = []> =
  | OnKeys<TNode>
  | (TDepth['length'] extends MaxDepth
      ? never
      : { [K in keyof StatesOf<TNode>]: SubtreeEvents<StatesOf<TNode>[K], [...TDepth, 0]> }[keyof StatesOf<TNode>]);

/** `[path, event]` pairs of the children of `TNode`: a state accepts its own, its descendants' and its ancestors' events. */
type ConfigAccepts<TNode, TPrefix extends string, TInherited extends string, TDepth extends 0[] = []> = TDepth['length'] extends MaxDepth
  ? never
  : {
      [K in keyof StatesOf<TNode> & string]:
        | (TInherited | SubtreeEvents<StatesOf<TNode>[K]> extends infer TEvents extends string
            ? readonly [`${TPrefix}${K}`, TEvents]
            : never)
        | ConfigAccepts<StatesOf<TNode>[K], `${TPrefix}${K}.`, TInherited | OnKeys<StatesOf<TNode>[K]>, [...TDepth, 0]>;
    }[keyof StatesOf<TNode> & string];

type ConfigPaths<TNode, TPrefix extends string, TDepth extends 0[] = []> = TDepth['length'] extends MaxDepth
  ? never
  : {
      [K in keyof StatesOf<TNode> & string]: `${TPrefix}${K}` | ConfigPaths<StatesOf<TNode>[K], `${TPrefix}${K}.`, [...TDepth, 0]>;
    }[keyof StatesOf<TNode> & string];

type ConfigLeaves<TNode, TPrefix extends string, TDepth extends 0[] = []> = TDepth['length'] extends MaxDepth
  ? string
  : {
      [K in keyof StatesOf<TNode> & string]: [keyof StatesOf<StatesOf<TNode>[K]>] extends [never]
        ? `${TPrefix}${K}`
        : ConfigLeaves<StatesOf<TNode>[K], `${TPrefix}${K}.`, [...TDepth, 0]>;
    }[keyof StatesOf<TNode> & string];

type HasParallel<TNode, TDepth extends 0[] = []> = TNode extends { readonly type: 'parallel' }
  ? true
  : TDepth['length'] extends MaxDepth
    ? false
    : true extends { [K in keyof StatesOf<TNode>]: HasParallel<StatesOf<TNode>[K], [...TDepth, 0]> }[keyof StatesOf<TNode>]
      ? true
      : false;

/** `T` with literal primitives widened and `readonly` dropped, as a `const` type parameter infers data. */
type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer I)[]
        ? Widen<I>[]
        : T extends object
          ? { -readonly [K in keyof T]: Widen<T[K]> }
          : T;

type ConfigContext<TConfig> = TConfig extends { readonly context: infer C }
  ? C extends (...args: never[]) => infer R
    ? Widen<R>
    : C extends object
      ? Widen<C>
      : Record<string, unknown>
  : Record<string, unknown>;

/** The schema of a plain XState config. */
export type ConfigMachineSchema<TConfig, THandleKey extends string | undefined> =
  IsWide<TConfig> extends true
    ? McpMachineSchema & { readonly handleKey: THandleKey }
    : {
        readonly states: ConfigPaths<TConfig, ''>;
        readonly accepts: ConfigAccepts<TConfig, '', OnKeys<TConfig>>;
        readonly startEvents: TConfig extends { readonly initial: infer I extends string }
          ? EventsAccepted<ConfigAccepts<TConfig, '', OnKeys<TConfig>>, I>
          : string;
        readonly value: HasParallel<TConfig> extends true ? string : ConfigLeaves<TConfig, ''>;
        readonly context: ConfigContext<TConfig>;
        readonly handleKey: THandleKey;
      };

/** Dotted paths of every node in an XState state value type. */
type ValuePaths<TValue, TDepth extends 0[] = []> = string extends TValue
  ? string
  : TValue extends string
    ? TValue
    : TDepth['length'] extends MaxDepth
      ? never
      : TValue extends object
        ? string extends keyof TValue
          ? string
          : { [K in keyof TValue & string]: K | `${K}.${ValuePaths<TValue[K], [...TDepth, 0]>}` }[keyof TValue & string]
        : never;

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;

/** A state value of one chain as its dotted path; `string` when a parallel state has several regions. */
type ValueChain<TValue, TDepth extends 0[] = []> = string extends TValue
  ? string
  : TValue extends string
    ? TValue
    : TDepth['length'] extends MaxDepth
      ? string
      : TValue extends object
        ? string extends keyof TValue
          ? string
          : true extends IsUnion<keyof TValue>
            ? string
            : {
                [K in keyof TValue & string]: [keyof TValue[K]] extends [never] ? K : `${K}.${ValueChain<TValue[K], [...TDepth, 0]>}`;
              }[keyof TValue & string]
        : never;

/** The parts of an XState machine's type this schema reads, without depending on xstate's types. */
export interface XStateMachineTypes {
  getInitialSnapshot(...args: never[]): { value: unknown; context: unknown };
  transition(snapshot: never, event: never, ...rest: never[]): unknown;
}

type XStateEvents<TMachine extends XStateMachineTypes> = TMachine['transition'] extends (
  snapshot: never,
  event: infer E,
  ...rest: never[]
) => unknown
  ? E extends { type: infer T extends string }
    ? Exclude<T, `xstate.${string}`>
    : string
  : string;

type XStateSnapshot<TMachine extends XStateMachineTypes> = ReturnType<TMachine['getInitialSnapshot']>;

/**
 * The schema of a machine made with XState's `setup(...).createMachine(...)`. Its type keeps
 * the states and the event union, not which state handles which event: a binding may name
 * any of the machine's events in any state (bootstrap still refuses an event no bound state
 * accepts).
 */
export type XStateMachineSchema<TMachine extends XStateMachineTypes, THandleKey extends string | undefined> = {
  readonly states: ValuePaths<XStateSnapshot<TMachine>['value']>;
  readonly accepts: readonly [ValuePaths<XStateSnapshot<TMachine>['value']>, XStateEvents<TMachine>];
  readonly startEvents: XStateEvents<TMachine>;
  readonly value: ValueChain<XStateSnapshot<TMachine>['value']>;
  readonly context: XStateSnapshot<TMachine>['context'] extends infer C extends object ? C : Record<string, unknown>;
  readonly handleKey: THandleKey;
};

/** The schema of a machine type: what `defineMachine` inferred, or the untyped default. */
export type SchemaOf<TMachine> = TMachine extends { readonly '~schema'?: infer S }
  ? S extends McpMachineSchema
    ? S
    : McpMachineSchema
  : McpMachineSchema;
