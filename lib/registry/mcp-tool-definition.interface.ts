import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ZodObject, ZodType } from 'zod';
import type { McpAccessRequirement } from '../access/access-requirement.js';
import type { McpHandlerRole } from './mcp-handler-role.js';

/** Runs the handler through the Nest pipeline with `[request, response, call]`. */
export type McpToolInvoker = (args: unknown[]) => Promise<unknown>;

/** Which MCP primitive a handler serves. */
export type McpHandlerKind = 'tool' | 'prompt' | 'resource';

/**
 * What the gate needs of a tool, prompt or resource: its name, its part in a workflow, the
 * schema of its arguments and its handler in the Nest pipeline.
 */
export interface McpHandlerDefinition {
  kind: McpHandlerKind;
  /** Unique per kind: the tool, prompt or resource name. */
  name: string;
  /** Validates the arguments (tool arguments, prompt arguments, URI template variables; includes the handle argument of handle-keyed bound handlers). */
  inputSchema: ZodObject;
  /** zod schema of a tool's `structuredContent`. */
  outputSchema?: ZodType;
  /** Machine of the class (`@McpWorkflow`) or of the role; groups handlers for menus and messages. */
  workflow?: string;
  /** Its part in a workflow: what the gate does for a call of it. */
  role: McpHandlerRole;
  /** What the caller must hold to see and use it (`@McpRequire` on the method and its class); `undefined`: nothing. */
  access?: McpAccessRequirement;
  /** `Class.method`, for messages. */
  source: string;
  invoke: McpToolInvoker;
}

/** One discovered tool, ready to list and call. */
export interface McpToolDefinition extends McpHandlerDefinition {
  kind: 'tool';
  title?: string;
  description: string;
  compactDescription?: string;
  annotations?: ToolAnnotations;
  /** Whether it runs as an MCP task (`@McpTool({ task })`); `undefined`: in-band only. */
  taskSupport?: 'optional' | 'required';
  /** 2026-07-28: the first round answers in the request; the task starts once the client answered (`@McpTool({ taskAfterInput })`). */
  taskAfterInput?: boolean;
  /** JSON Schemas sent in `tools/list`, computed once at bootstrap. */
  inputJsonSchema: Record<string, unknown>;
  outputJsonSchema?: Record<string, unknown>;
}
