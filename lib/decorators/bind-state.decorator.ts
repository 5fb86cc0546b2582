import { SetMetadata } from '@nestjs/common';
import { MCP_BIND_STATE_METADATA } from '../mcp.constants.js';
import type { EventsAccepted, SchemaOf } from '../machines/machine-schema.js';
import { machineFirst } from './decorators.messages.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@BindState` (the card's form). */
export interface McpBindStateOptions {
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

/** Metadata stored by `@BindState` and `@McpBindState`. */
export interface McpBindStateMetadata {
  states: string[];
  transition?: string;
  machine?: McpMachineRef;
  transactional?: boolean;
  /** Which of the two decorators wrote it, for bootstrap errors. @default '@McpBindState' */
  decorator?: '@BindState' | '@McpBindState';
}

/** Options of the typed `@McpBindState(machine, states, event)`: the machine is its first argument. */
export type McpTypedBindStateOptions = Omit<McpBindStateOptions, 'machine'>;

/**
 * Binds a tool to workflow states of its class's `@McpWorkflow` machine (or `options.machine`):
 * the tool is listed and callable only while its instance is in one of `states` (a parent
 * state matches its children; nested states by dotted path, `'review.legal'`), and a
 * successful call sends `transition` to the machine. The names are checked at bootstrap
 * (an unknown state or event fails it, naming the method); `@McpBindState(machine, states,
 * event)` has the compiler check them too.
 *
 * @example
 * \@Injectable()
 * \@McpWorkflow(invoiceMachine)
 * export class InvoiceTools {
 *   \@McpTool({ name: 'invoice.discharge', description: 'Discharge an approved invoice' })
 *   \@BindState('approved', 'DISCHARGE')
 *   discharge() { ... }
 * }
 */
export function BindState(states: string | string[], transition?: string, options: McpBindStateOptions = {}): MethodDecorator {
  return bind(states, transition, options, '@BindState');
}

/**
 * Binds a tool to workflow states of `machine`, as `@BindState` does, with the names checked
 * by the compiler: it accepts only the machine's state paths, and only events those states
 * accept (any of the machine's events for an XState machine, whose type does not say which
 * state handles which). A typo fails `tsc` with an error naming the bad state or event.
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
  options: McpTypedBindStateOptions = {},
): MethodDecorator {
  if (typeof machine !== 'object' || machine === null) {
    throw new TypeError(machineFirst('@McpBindState', machine, `@BindState(${JSON.stringify(machine)}, ...)`));
  }
  return bind(states as string | readonly string[], transition as string | undefined, { ...options, machine }, '@McpBindState');
}

function bind(
  states: string | readonly string[],
  transition: string | undefined,
  options: McpBindStateOptions,
  decorator: NonNullable<McpBindStateMetadata['decorator']>,
): MethodDecorator {
  return SetMetadata<string, McpBindStateMetadata>(MCP_BIND_STATE_METADATA, {
    states: typeof states === 'string' ? [states] : [...states],
    transition,
    machine: options.machine,
    transactional: options.transactional,
    decorator,
  });
}
