import { SetMetadata } from '@nestjs/common';
import { MCP_START_WORKFLOW_METADATA } from '../mcp.constants.js';
import type { SchemaOf } from '../machines/machine-schema.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@StartWorkflow`. */
export interface StartWorkflowOptions {
  /** Create the instance in the transaction the handler joins (see `BindStateOptions.transactional`). */
  transactional?: boolean;
}

/** Metadata stored by `@StartWorkflow`. */
export interface StartWorkflowMetadata {
  machine?: McpMachineRef;
  transition?: string;
  transactional?: boolean;
}

/**
 * Marks the tool that starts an instance of a handle-keyed machine. Before the handler runs
 * the server mints a handle (128 random bits, in `ctx.handle`); on success it stores the
 * initial state, fires `transition` when given (the compiler accepts only events of the
 * machine's initial state), and returns the handle under the machine's `stateHandleKey`.
 * A start tool is always listed.
 *
 * @example
 * \@McpTool({ name: 'payment.authorize', description: 'Authorize a payment', inputSchema })
 * \@StartWorkflow(paymentMachine, 'AUTHORIZE')
 * authorize(\@ToolArgs() input: ToolArgs<typeof inputSchema>, \@ToolContext() ctx: WorkflowContext<typeof paymentMachine>) { ... }
 */
export function StartWorkflow<TMachine extends { readonly id: string }>(
  machine: TMachine,
  transition?: SchemaOf<TMachine>['startEvents'],
  options?: StartWorkflowOptions,
): MethodDecorator;
/**
 * Marks the start tool of the class's `@McpWorkflow` machine, or of the machine with id
 * `machine`, with an event name the compiler does not check.
 *
 * @deprecated Pass the machine itself, `@StartWorkflow(machine, event)`: the compiler then
 *   checks the event name.
 */
export function StartWorkflow(machine?: string, transition?: string, options?: StartWorkflowOptions): MethodDecorator;
export function StartWorkflow(
  machine?: McpMachineRef,
  transition?: string,
  options: StartWorkflowOptions = {},
): MethodDecorator {
  return SetMetadata<string, StartWorkflowMetadata>(MCP_START_WORKFLOW_METADATA, {
    machine,
    transition,
    transactional: options.transactional,
  });
}
