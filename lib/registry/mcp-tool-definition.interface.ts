import type { ElicitRequestFormParams, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ZodObject, ZodType } from 'zod';
import type { McpAccessRequirement } from '../access/access-requirement.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';

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

/** The person's yes a bound tool asks for before its transition runs (`@McpConfirm`). */
export interface McpToolConfirmation {
  /** Writes the question from the call's arguments and its context (the instance as the gate found it). */
  message: (args: Record<string, unknown>, ctx: McpToolContext) => string | Promise<string>;
  /** The elicitation's `requestedSchema` (no properties: a plain yes). */
  requestedSchema: ElicitRequestFormParams['requestedSchema'];
  /** Checks the accepted answer, when the person fills in more than a yes. */
  schema?: ZodObject;
  /** How long a 2025-11-25 session waits for the answer. */
  timeoutMs: number;
}

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
  /** Machine of the class (`@McpWorkflow`) or of the binding; groups handlers for menus and messages. */
  workflow?: string;
  binding?: McpToolBinding;
  start?: McpToolStart;
  /** The person's yes the transition waits for (tools bound with an event only). */
  confirmation?: McpToolConfirmation;
  /**
   * Machine whose instance an unbound workflow handler reads (a status tool): its class's
   * session-keyed machine, or its handle-keyed machine when it takes the handle argument.
   */
  reads?: string;
  /** What the caller must hold to see and use it (`@McpRequire` on the method and its class); `undefined`: nothing. */
  access?: McpAccessRequirement;
  /** Whether the gate resolves an instance for the handler (bound, start or read). */
  gated: boolean;
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
  /** JSON Schemas sent in `tools/list`, computed once at bootstrap. */
  inputJsonSchema: Record<string, unknown>;
  outputJsonSchema?: Record<string, unknown>;
}
