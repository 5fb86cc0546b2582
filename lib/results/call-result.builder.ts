import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import { toGetPromptResult, toReadResourceResult } from './primitive-result.mapper.js';
import { assertToolOutput, isToolErrorResult, toCallToolResult } from './tool-output.js';

/** The result each kind of handler answers with. */
export interface McpCallResults {
  tool: CallToolResult;
  prompt: GetPromptResult;
  resource: ReadResourceResult;
}

/** What the result of one call is built from (a `WorkflowCall` is one). */
export interface McpResultSource {
  /** The handler's definition: its kind, and a tool's output schema. */
  readonly tool: McpHandlerDefinition;
  /** The call's context; `uri` is the resource read. */
  readonly context: { readonly uri?: string };
}

/**
 * The MCP result of a handler's value: a tool's checked against its `outputSchema` (an
 * `InternalServerErrorException` names each mismatch), with `extra` fields (a start tool's
 * handle); a prompt's or a resource's mapped as its method answers.
 */
export function buildCallResult(
  call: McpResultSource,
  value: unknown,
  extra: Record<string, unknown>,
): McpCallResults[keyof McpCallResults] {
  const definition = call.tool;
  switch (definition.kind) {
    case 'tool': {
      const result = toCallToolResult(value, extra);
      if (!isToolErrorResult(value)) {
        assertToolOutput(definition, result);
      }
      return result;
    }
    case 'prompt':
      return toGetPromptResult(value, (definition as McpPromptDefinition).description);
    case 'resource':
      return toReadResourceResult(value, call.context.uri ?? '', (definition as McpResourceDefinition).mimeType);
  }
}
