import { SetMetadata } from '@nestjs/common';
import { MCP_BIND_STATE_METADATA } from '../mcp.constants.js';
import type { EventsAccepted, SchemaOf } from '../machines/machine-schema.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@McpBindState`. */
export interface McpBindStateOptions {
  /** Machine (or its id) the states belong to. @default the class's `@McpWorkflow` machine */
  machine?: McpMachineRef;
  /**
   * Run the claim as a row lock in a transaction the handler joins (stores that support it,
   * such as `TypeOrmWorkflowStateStore`): the handler receives the transaction's manager in its
   * context, and its writes commit or roll back with the state change.
   * @default the module's `transactional` option
   */
  transactional?: boolean;
}

/** Metadata stored by `@McpBindState`. */
export interface McpBindStateMetadata {
  states: string[];
  transition?: string;
  machine?: McpMachineRef;
  transactional?: boolean;
}

/** Options of the typed `@McpBindState(machine, states, event)`: the machine is its first argument. */
export type McpTypedBindStateOptions = Omit<McpBindStateOptions, 'machine'>;

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
 * \@McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
 * discharge() { ... }
 */
export function McpBindState<TMachine extends { readonly id: string }, const TStates extends SchemaOf<TMachine>['states']>(
  machine: TMachine,
  states: TStates | readonly TStates[],
  transition?: EventsAccepted<SchemaOf<TMachine>['accepts'], TStates>,
  options?: McpTypedBindStateOptions,
): MethodDecorator;
/**
 * Binds a tool to workflow states of the class's `@McpWorkflow` machine (or `options.machine`),
 * named as strings the compiler does not check.
 *
 * @deprecated Pass the machine first, `@McpBindState(machine, states, event)`: the compiler then
 *   checks the state and event names.
 */
export function McpBindState(states: string | string[], transition?: string, options?: McpBindStateOptions): MethodDecorator;
export function McpBindState(
  machineOrStates: { readonly id: string } | string | readonly string[],
  statesOrTransition?: string | readonly string[],
  transitionOrOptions?: string | McpBindStateOptions,
  typedOptions: McpTypedBindStateOptions = {},
): MethodDecorator {
  const typed = typeof machineOrStates === 'object' && !Array.isArray(machineOrStates);
  const states = (typed ? statesOrTransition : machineOrStates) as string | readonly string[];
  const transition = (typed ? transitionOrOptions : statesOrTransition) as string | undefined;
  const options: McpBindStateOptions = typed
    ? { ...typedOptions, machine: machineOrStates as { readonly id: string } }
    : ((transitionOrOptions as McpBindStateOptions | undefined) ?? {});
  return SetMetadata<string, McpBindStateMetadata>(MCP_BIND_STATE_METADATA, {
    states: typeof states === 'string' ? [states] : [...states],
    transition,
    machine: options.machine,
    transactional: options.transactional,
  });
}

/** @deprecated Use {@link McpBindState}; the old name goes in 0.4. */
export const BindState = McpBindState;
/** @deprecated Use {@link McpBindStateOptions}; the old name goes in 0.4. */
export type BindStateOptions = McpBindStateOptions;
/** @deprecated Use {@link McpBindStateMetadata}; the old name goes in 0.4. */
export type BindStateMetadata = McpBindStateMetadata;
/** @deprecated Use {@link McpTypedBindStateOptions}; the old name goes in 0.4. */
export type TypedBindStateOptions = McpTypedBindStateOptions;
