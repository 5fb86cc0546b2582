import type { PromptArgument } from '@modelcontextprotocol/sdk/types.js';
import type { McpCompleter } from '../decorators/mcp-completer.type.js';
import type { McpHandlerDefinition } from './mcp-tool-definition.interface.js';

/** One discovered prompt, ready to list and get. */
export interface McpPromptDefinition extends McpHandlerDefinition {
  kind: 'prompt';
  title?: string;
  description?: string;
  /** The arguments as `prompts/list` shows them (from `inputSchema`, the handle argument included). */
  arguments: PromptArgument[];
  completers: Readonly<Record<string, McpCompleter>>;
}
