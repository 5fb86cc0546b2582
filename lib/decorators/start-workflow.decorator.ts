import { SetMetadata } from '@nestjs/common';
import { MCP_START_WORKFLOW_METADATA } from '../mcp.constants.js';
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
 * initial state, fires `transition` when given, and returns the handle under the
 * machine's `stateHandleKey`. A start tool is always listed.
 *
 * @example
 * \@McpTool({ name: 'payment.authorize', description: 'Authorize a payment', inputSchema })
 * \@StartWorkflow(paymentMachine, 'AUTHORIZE')
 * authorize(\@ToolArgs() input: Amount, \@ToolContext() ctx: McpToolContext) { ... }
 */
export const StartWorkflow = (
  machine?: McpMachineRef,
  transition?: string,
  options: StartWorkflowOptions = {},
): MethodDecorator =>
  SetMetadata<string, StartWorkflowMetadata>(MCP_START_WORKFLOW_METADATA, {
    machine,
    transition,
    transactional: options.transactional,
  });
