import { SetMetadata } from '@nestjs/common';
import { MCP_START_WORKFLOW_METADATA } from '../mcp.constants.js';
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
 * initial state, fires `transition` when given, and returns the handle under the
 * machine's `stateHandleKey`. A start tool is always listed.
 *
 * @example
 * \@McpTool({ name: 'payment.authorize', description: 'Authorize a payment', inputSchema })
 * \@McpStartWorkflow(paymentMachine, 'AUTHORIZE')
 * authorize(\@McpArgs() input: Amount, \@McpContext() ctx: McpToolContext) { ... }
 */
export const McpStartWorkflow = (
  machine?: McpMachineRef,
  transition?: string,
  options: McpStartWorkflowOptions = {},
): MethodDecorator =>
  SetMetadata<string, McpStartWorkflowMetadata>(MCP_START_WORKFLOW_METADATA, {
    machine,
    transition,
    transactional: options.transactional,
  });

/** @deprecated Use {@link McpStartWorkflow}; the old name goes in 0.4. */
export const StartWorkflow = McpStartWorkflow;
/** @deprecated Use {@link McpStartWorkflowOptions}; the old name goes in 0.4. */
export type StartWorkflowOptions = McpStartWorkflowOptions;
/** @deprecated Use {@link McpStartWorkflowMetadata}; the old name goes in 0.4. */
export type StartWorkflowMetadata = McpStartWorkflowMetadata;
