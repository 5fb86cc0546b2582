import { SetMetadata } from '@nestjs/common';
import { MCP_START_WORKFLOW_METADATA } from '../mcp.constants.js';
import type { SchemaOf } from '../machines/machine-schema.js';
import { machineFirst } from './decorators.messages.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@McpStartWorkflow`. */
export interface McpStartWorkflowOptions {
  /** Create the instance in the transaction the handler joins (see `McpBindStateOptions.transactional`). */
  transactional?: boolean;
}

/** Metadata stored by `@StartWorkflow` and `@McpStartWorkflow`. */
export interface McpStartWorkflowMetadata {
  machine?: McpMachineRef;
  transition?: string;
  transactional?: boolean;
  /** Which of the two decorators wrote it, for bootstrap errors. @default '@McpStartWorkflow' */
  decorator?: '@StartWorkflow' | '@McpStartWorkflow';
}

/**
 * Marks the tool that starts an instance of a handle-keyed machine: the class's
 * `@McpWorkflow` machine, or the machine with id `machine`. Before the handler runs the
 * server mints a handle (128 random bits, in `ctx.handle`); on success it stores the initial
 * state, fires `transition` when given, and returns the handle under the machine's
 * `stateHandleKey`. A start tool is always listed. The names are checked at bootstrap (an
 * event the initial state does not accept fails it); `@McpStartWorkflow(machine, event)` has
 * the compiler check them too.
 *
 * @example
 * \@McpTool({ name: 'payment.authorize', description: 'Authorize a payment', inputSchema })
 * \@StartWorkflow('payment', 'AUTHORIZE')
 * authorize(\@McpArgs() input: { amount: number; currency: string }) { ... }
 */
export function StartWorkflow(machine?: string, transition?: string, options: McpStartWorkflowOptions = {}): MethodDecorator {
  return start(machine, transition, options, '@StartWorkflow');
}

/**
 * Marks the tool that starts an instance of `machine` (handle-keyed), as `@StartWorkflow`
 * does, with the event checked by the compiler: it accepts only events of the machine's
 * initial state (any of its events for an XState machine, whose type does not say which
 * state handles which; bootstrap checks those).
 *
 * @example
 * \@McpTool({ name: 'payment.authorize', description: 'Authorize a payment', inputSchema })
 * \@McpStartWorkflow(paymentMachine, 'AUTHORIZE')
 * authorize(\@McpArgs() input: McpArgs<typeof inputSchema>, \@McpContext() ctx: WorkflowContext<typeof paymentMachine>) { ... }
 */
export function McpStartWorkflow<TMachine extends { readonly id: string }>(
  machine: TMachine,
  transition?: SchemaOf<TMachine>['startEvents'],
  options: McpStartWorkflowOptions = {},
): MethodDecorator {
  if (typeof machine !== 'object' || machine === null) {
    throw new TypeError(machineFirst('@McpStartWorkflow', machine, '@StartWorkflow(machineId?, event?)'));
  }
  return start(machine, transition as string | undefined, options, '@McpStartWorkflow');
}

function start(
  machine: McpMachineRef | undefined,
  transition: string | undefined,
  options: McpStartWorkflowOptions,
  decorator: NonNullable<McpStartWorkflowMetadata['decorator']>,
): MethodDecorator {
  return SetMetadata<string, McpStartWorkflowMetadata>(MCP_START_WORKFLOW_METADATA, {
    machine,
    transition,
    transactional: options.transactional,
    decorator,
  });
}
