import type { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { McpCompleter } from '../decorators/mcp-completer.type.js';
import type { McpHandlerDefinition } from './mcp-tool-definition.interface.js';

/** One discovered resource (a fixed `uri`) or resource template (`template`), ready to list and read. */
export interface McpResourceDefinition extends McpHandlerDefinition {
  kind: 'resource';
  title?: string;
  description?: string;
  mimeType?: string;
  /** The URI of a fixed resource. */
  uri?: string;
  /** The template of a resource template; its variables are the handler's arguments. */
  template?: UriTemplate;
  completers: Readonly<Record<string, McpCompleter>>;
}
