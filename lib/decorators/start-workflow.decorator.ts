import { SetMetadata } from '@nestjs/common';
import { MCP_START_WORKFLOW_METADATA } from '../mcp.constants.js';
import type { SchemaOf } from '../machines/machine-schema.js';
import type { McpMachineRef } from './machine-ref.type.js';

/** Options of `@McpStartWorkflow`. */
export interface McpStartWorkflowOptions {
  /** Create the instance in the transaction the handler joins (see `McpBindStateOptions.transactional`). */
  transactional?: boolean;
}

/** Metadata stored by `@McpStartWorkflow`. */
export interface McpStartWorkflowMetadata {
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
 * \@McpStartWorkflow(paymentMachine, 'AUTHORIZE')
 * authorize(\@McpArgs() input: McpArgs<typeof inputSchema>, \@McpContext() ctx: WorkflowContext<typeof paymentMachine>) { ... }
 */
export function McpStartWorkflow<TMachine extends { readonly id: string }>(
  machine: TMachine,
  transition?: SchemaOf<TMachine>['startEvents'],
  options?: McpStartWorkflowOptions,
): MethodDecorator;
/**
 * Marks the start tool of the class's `@McpWorkflow` machine, or of the machine with id
 * `machine`, with an event name the compiler does not check.
 *
 * @deprecated Pass the machine itself, `@McpStartWorkflow(machine, event)`: the compiler then
 *   checks the event name.
 */
export function McpStartWorkflow(machine?: string, transition?: string, options?: McpStartWorkflowOptions): MethodDecorator;
export function McpStartWorkflow(
  machine?: McpMachineRef,
  transition?: string,
  options: McpStartWorkflowOptions = {},
): MethodDecorator {
  return SetMetadata<string, McpStartWorkflowMetadata>(MCP_START_WORKFLOW_METADATA, {
    machine,
    transition,
    transactional: options.transactional,
  });
}

/** @deprecated Use {@link McpStartWorkflow}; the old name goes in 0.4. */
export const StartWorkflow = McpStartWorkflow;
/** @deprecated Use {@link McpStartWorkflowOptions}; the old name goes in 0.4. */
export type StartWorkflowOptions = McpStartWorkflowOptions;
/** @deprecated Use {@link McpStartWorkflowMetadata}; the old name goes in 0.4. */
export type StartWorkflowMetadata = McpStartWorkflowMetadata;
