import { SetMetadata } from '@nestjs/common';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ZodType } from 'zod';
import { MCP_TOOL_METADATA } from '../mcp.constants.js';

/** Options of `@McpTool`. */
export interface McpToolOptions {
  /** Tool name, unique in the server (`'invoice.discharge'`). */
  name: string;
  /** Full description, shown in every state but the machine's initial one when `compactDescription` is set. */
  description: string;
  /** Short description shown while the tool's instance is in the machine's initial state. */
  compactDescription?: string;
  /** zod object schema of the arguments; validated on every call. @default an empty object */
  inputSchema?: ZodType;
  /** zod object schema of `structuredContent`; the handler's return value is checked against it. */
  outputSchema?: ZodType;
  /** MCP tool annotations (`readOnlyHint`, `destructiveHint`, ...). */
  annotations?: ToolAnnotations;
  /** Title shown by hosts. */
  title?: string;
  /**
   * `serverId` of the MCP server that serves the tool, when the app has several; overrides
   * the class's `@McpServedBy`.
   * @default the class's `@McpServedBy`; with one McpModule in the app, that one
   */
  server?: string;
  /**
   * Whether the tool runs as an MCP task (2025-11-25 `params.task`; the 2026-07-28 tasks
   * extension): `'optional'` lets the client choose, `'required'` accepts task calls only. Its
   * `tools/list` entry says so (`execution.taskSupport`); a bound tool's task completes when the
   * workflow step it started completes. See docs/approvals-and-tasks.md#tasks.
   * @default none: the tool answers in-band only
   */
  task?: 'optional' | 'required';
  /**
   * 2026-07-28: the call asks for its input in the request itself (input-required results) and
   * runs as a task from the round that brings the answers (SEP-2663's MRTR-then-task). Without
   * it, a task starts at once and asks through `tasks/get` and `tasks/update`.
   * @default false
   */
  taskAfterInput?: boolean;
}

/**
 * Exposes a provider method as an MCP tool.
 *
 * @example
 * \@McpTool({ name: 'invoice.status', description: 'Show the invoice', compactDescription: 'Invoice status' })
 * status(\@McpContext() ctx: McpToolContext) { return { state: ctx.state }; }
 */
export const McpTool = (options: McpToolOptions): MethodDecorator => SetMetadata(MCP_TOOL_METADATA, options);
