import { SetMetadata } from '@nestjs/common';
import { MCP_BIND_STATE_METADATA } from '../mcp.constants.js';
import type { EventsAccepted, SchemaOf } from '../machines/machine-schema.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@BindState`. */
export interface BindStateOptions {
  /** Machine (or its id) the states belong to. @default the class's `@McpWorkflow` machine */
  machine?: McpMachineRef;
  /**
   * Run the claim as a row lock in a transaction the handler joins (stores that support it,
   * such as `TypeOrmFsmStateStore`): the handler receives the transaction's manager in its
   * context, and its writes commit or roll back with the state change.
   * @default the module's `transactional` option
   */
  transactional?: boolean;
}

/** Metadata stored by `@BindState`. */
export interface BindStateMetadata {
  states: string[];
  transition?: string;
  machine?: McpMachineRef;
  transactional?: boolean;
}

/** Options of the typed `@BindState(machine, states, event)`: the machine is its first argument. */
export type TypedBindStateOptions = Omit<BindStateOptions, 'machine'>;

/**
 * Binds a tool to workflow states of `machine`: the tool is listed and callable only while
 * its instance is in one of `states` (a parent state matches its children; nested states by
 * dotted path, `'review.legal'`), and a successful call sends `transition` to the machine.
 * The compiler accepts only the machine's state paths, and only events those states accept
 * (any of the machine's events for an XState machine, whose type does not say which state
 * handles which).
 *
 * @example
 * \@McpTool({ name: 'invoice.discharge', description: 'Discharge an approved invoice' })
 * \@BindState(invoiceMachine, 'approved', 'DISCHARGE')
 * discharge() { ... }
 */
export function BindState<TMachine extends { readonly id: string }, const TStates extends SchemaOf<TMachine>['states']>(
  machine: TMachine,
  states: TStates | readonly TStates[],
  transition?: EventsAccepted<SchemaOf<TMachine>['accepts'], TStates>,
  options?: TypedBindStateOptions,
): MethodDecorator;
/**
 * Binds a tool to workflow states of the class's `@McpWorkflow` machine (or `options.machine`),
 * named as strings the compiler does not check.
 *
 * @deprecated Pass the machine first, `@BindState(machine, states, event)`: the compiler then
 *   checks the state and event names.
 */
export function BindState(states: string | string[], transition?: string, options?: BindStateOptions): MethodDecorator;
export function BindState(
  machineOrStates: { readonly id: string } | string | readonly string[],
  statesOrTransition?: string | readonly string[],
  transitionOrOptions?: string | BindStateOptions,
  typedOptions: TypedBindStateOptions = {},
): MethodDecorator {
  const typed = typeof machineOrStates === 'object' && !Array.isArray(machineOrStates);
  const states = (typed ? statesOrTransition : machineOrStates) as string | readonly string[];
  const transition = (typed ? transitionOrOptions : statesOrTransition) as string | undefined;
  const options: BindStateOptions = typed
    ? { ...typedOptions, machine: machineOrStates as { readonly id: string } }
    : ((transitionOrOptions as BindStateOptions | undefined) ?? {});
  return SetMetadata<string, BindStateMetadata>(MCP_BIND_STATE_METADATA, {
    states: typeof states === 'string' ? [states] : [...states],
    transition,
    machine: options.machine,
    transactional: options.transactional,
  });
}
