import { SetMetadata } from '@nestjs/common';
import { MCP_BIND_STATE_METADATA } from '../mcp.constants.js';
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

/**
 * Binds a tool to workflow states: the tool is listed and callable only while its instance
 * is in one of `states` (a parent state matches its children), and a successful call sends
 * `transition` to the machine.
 *
 * @example
 * \@McpTool({ name: 'invoice.discharge', description: 'Discharge an approved invoice' })
 * \@McpBindState('approved', 'DISCHARGE')
 * discharge() { ... }
 */
export const McpBindState = (
  states: string | string[],
  transition?: string,
  options: McpBindStateOptions = {},
): MethodDecorator =>
  SetMetadata<string, McpBindStateMetadata>(MCP_BIND_STATE_METADATA, {
    states: Array.isArray(states) ? [...states] : [states],
    transition,
    machine: options.machine,
    transactional: options.transactional,
  });

/** @deprecated Use {@link McpBindState}; the old name goes in 0.4. */
export const BindState = McpBindState;
/** @deprecated Use {@link McpBindStateOptions}; the old name goes in 0.4. */
export type BindStateOptions = McpBindStateOptions;
/** @deprecated Use {@link McpBindStateMetadata}; the old name goes in 0.4. */
export type BindStateMetadata = McpBindStateMetadata;
