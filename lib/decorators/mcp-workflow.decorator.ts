import { SetMetadata } from '@nestjs/common';
import { MCP_WORKFLOW_METADATA } from '../mcp.constants.js';
import type { McpMachineRef } from './machine-ref.type.js';

/**
 * Sets the default machine of a class's `@McpBindState` and `@McpStartWorkflow` tools.
 *
 * @example
 * \@Injectable()
 * \@McpWorkflow(invoiceMachine)
 * export class InvoiceTools { ... }
 */
export const McpWorkflow = (machine: McpMachineRef): ClassDecorator =>
  SetMetadata(MCP_WORKFLOW_METADATA, machine);
