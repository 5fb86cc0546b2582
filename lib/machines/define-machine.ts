import { machineAccessInvalid, machineNeedsId, machineOperatorEventsInvalid, machineSummaryInvalid } from './machines.messages.js';
import type { McpMachine, McpMachineConfig, McpMachineOptions, McpOperatorEvent } from './machine.interface.js';
import type { ConfigMachineSchema, XStateMachineSchema, XStateMachineTypes } from './machine-schema.js';

/** The parts of an XState machine (`createMachine(...)`) that `defineMachine` reads. */
export interface XStateMachineLike {
  id: string;
  config: unknown;
  getInitialSnapshot: (...args: never[]) => unknown;
}

function isXStateMachine(value: unknown): value is XStateMachineLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    'config' in value &&
    typeof (value as XStateMachineLike).getInitialSnapshot === 'function'
  );
}

/**
 * Declares a workflow machine that tools can bind to. The result keeps the literal types of
 * the config (or of the XState machine): decorators given the machine accept only its state
 * paths and events, and `WorkflowContext<typeof machine>` types `ctx.state`,
 * `ctx.workflowContext` and `ctx.handle`.
 *
 * @param config an XState v5 machine config (plain data), or a machine made with
 *   XState's `setup(...).createMachine(...)` (needs `xstate` installed at runtime; declare its
 *   events as a union of literal `type`s in `setup({ types })` so bindings are checked).
 * @param options `stateHandleKey` makes the machine handle-keyed; without it, each
 *   session (or the stdio attachment) has one instance. `access` says who may act on an
 *   instance (its starter by default; `{ team: 'org' }`: its starter's team), `principalClaims`
 *   which claims guards see in `event.principal`, `guardReasons` why a guard says no,
 *   `summary` one line about an instance for the workflow console, `operatorEvents` the events
 *   an operator may send from it.
 *
 * @example
 * export const invoiceMachine = defineMachine({
 *   id: 'invoice',
 *   initial: 'draft',
 *   states: {
 *     draft: { on: { SUBMIT: 'review' } },
 *     review: { on: { APPROVE: 'approved', REJECT: 'draft' } },
 *     approved: { on: { DISCHARGE: 'discharged' } },
 *     discharged: { type: 'final' },
 *   },
 * });
 */
export function defineMachine<
  const TMachine extends XStateMachineLike & XStateMachineTypes,
  const THandleKey extends string | undefined = undefined,
>(
  machine: TMachine,
  options?: McpMachineOptions<THandleKey, XStateMachineSchema<TMachine, THandleKey>['context']>,
): McpMachine<XStateMachineSchema<TMachine, THandleKey>>;
export function defineMachine<const TConfig extends McpMachineConfig, const THandleKey extends string | undefined = undefined>(
  config: TConfig,
  options?: McpMachineOptions<THandleKey, ConfigMachineSchema<TConfig, THandleKey>['context']>,
): McpMachine<ConfigMachineSchema<TConfig, THandleKey>>;
export function defineMachine(config: McpMachineConfig | XStateMachineLike, options?: McpMachineOptions): McpMachine;
export function defineMachine(config: McpMachineConfig | XStateMachineLike, options: McpMachineOptions = {}): McpMachine {
  const xstateMachine = isXStateMachine(config) ? config : undefined;
  const plain = (xstateMachine ? xstateMachine.config : config) as McpMachineConfig;
  const id = xstateMachine?.id ?? plain.id;
  if (!id) {
    throw new Error(machineNeedsId());
  }
  const access = options.access ?? 'owner';
  const team = typeof access === 'object' ? access.team : undefined;
  if (access !== 'owner' && typeof access !== 'function' && !(typeof team === 'string' && team !== '')) {
    throw new Error(machineAccessInvalid(id));
  }
  if (options.summary !== undefined && typeof options.summary !== 'function') {
    throw new Error(machineSummaryInvalid(id));
  }
  const operatorEvents = operatorEventsOf(id, options.operatorEvents);
  const claims = new Set(options.principalClaims ?? []);
  if (team !== undefined) claims.add(team);
  return Object.freeze({
    id,
    config: plain,
    xstateMachine,
    stateHandleKey: options.stateHandleKey,
    access,
    principalClaims: Object.freeze([...claims]),
    guardReasons: Object.freeze({ ...options.guardReasons }),
    ...(options.summary && { summary: options.summary }),
    ...(operatorEvents && { operatorEvents }),
  });
}

/** `operatorEvents` as names with their effects (a list gives names without effects); throws, naming the machine, for anything else. */
function operatorEventsOf(id: string, given: McpMachineOptions['operatorEvents']): Readonly<Record<string, McpOperatorEvent>> | undefined {
  if (given === undefined) return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(given)
    ? given.map((event: unknown) => [String(event), typeof event === 'string' ? {} : undefined])
    : typeof given === 'object' && given !== null
      ? Object.entries(given)
      : [['', undefined]];
  const events: Record<string, McpOperatorEvent> = {};
  for (const [event, spec] of entries) {
    const run = (spec as McpOperatorEvent | undefined)?.run;
    if (event === '' || typeof spec !== 'object' || spec === null || (run !== undefined && typeof run !== 'function')) {
      throw new Error(machineOperatorEventsInvalid(id));
    }
    events[event] = Object.freeze(run ? { run } : {});
  }
  return Object.freeze(events);
}
