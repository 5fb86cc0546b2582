import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ZodObject, ZodType } from 'zod';

/** How a tool takes part in a workflow. */
export interface McpToolBinding {
  /** Machine id. */
  machine: string;
  /** States the tool is listed and callable in (parents match their children). */
  states: string[];
  /** Event sent after a successful call. */
  transition?: string;
  /** Claim as a row lock in a transaction the handler joins. */
  transactional: boolean;
}

/** A start tool: mints a handle of a handle-keyed machine. */
export interface McpToolStart {
  machine: string;
  /** The machine's `stateHandleKey`: the result carries the minted handle under it. */
  handleKey: string;
  transition?: string;
  transactional: boolean;
}

/** Runs the handler through the Nest pipeline with `[request, response, call]`. */
export type McpToolInvoker = (args: unknown[]) => Promise<unknown>;

/** One discovered tool, ready to list and call. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description: string;
  compactDescription?: string;
  annotations?: ToolAnnotations;
  /** Validates the arguments (includes the handle argument of handle-keyed bound tools). */
  inputSchema: ZodObject;
  outputSchema?: ZodType;
  /** JSON Schemas sent in `tools/list`, computed once at bootstrap. */
  inputJsonSchema: Record<string, unknown>;
  outputJsonSchema?: Record<string, unknown>;
  /** Machine of the class (`@McpWorkflow`) or of the binding; groups tools for menus and messages. */
  workflow?: string;
  binding?: McpToolBinding;
  start?: McpToolStart;
  /**
   * Machine whose instance an unbound workflow tool reads (a status tool): its class's
   * session-keyed machine, or its handle-keyed machine when the tool takes the handle argument.
   */
  reads?: string;
  /** Whether the gate resolves an instance for the tool (bound, start or read). */
  gated: boolean;
  /** `Class.method`, for messages. */
  source: string;
  invoke: McpToolInvoker;
}
