import { SetMetadata } from '@nestjs/common';
import type { ZodObject } from 'zod';
import { MCP_RESOURCE_METADATA } from '../mcp.constants.js';
import type { McpCompleter } from './mcp-completer.type.js';

/** Options shared by a fixed resource and a resource template. */
interface McpResourceCommonOptions {
  /** Resource name, unique among the server's resources. */
  name: string;
  title?: string;
  description?: string;
  /** MIME type of the contents (`text/markdown`, `application/json`, ...). */
  mimeType?: string;
  /** `serverId` of the MCP server that serves the resource (see `McpToolOptions.server`). */
  server?: string;
}

/** Options of `@McpResource` for one fixed URI. */
export interface McpFixedResourceOptions extends McpResourceCommonOptions {
  /** The resource's URI (`'billing://policy'`). */
  uri: string;
}

/** Options of `@McpResource` for a URI template (RFC 6570) that serves many URIs. */
export interface McpResourceTemplateOptions extends McpResourceCommonOptions {
  /**
   * The template (`'payment://{paymentId}/receipt'`); its variables are the handler's
   * arguments (`@McpArgs()`). A variable named as a handle-keyed machine's `stateHandleKey`
   * is the instance's handle.
   */
  uriTemplate: string;
  /** zod object schema of the variables (strings); @default every variable a required string */
  argsSchema?: ZodObject;
  /** Completers by variable name, answered on `completion/complete`. */
  complete?: Record<string, McpCompleter>;
}

/** Options of `@McpResource`. */
export type McpResourceOptions = McpFixedResourceOptions | McpResourceTemplateOptions;

/**
 * Exposes a provider method as an MCP resource (a fixed `uri`) or resource template
 * (`uriTemplate`). It returns the contents: a string (text), a `Uint8Array` (blob), another
 * value (JSON text), or a whole `ReadResourceResult`. With `@McpBindState` (states only, no
 * transition) it is listed and readable only while the caller's instance is in them.
 *
 * @example
 * \@McpResource({ name: 'payment-receipt', uriTemplate: 'payment://{paymentId}/receipt', mimeType: 'application/json' })
 * \@BindState(['captured', 'refunded'])
 * receipt(\@McpArgs('paymentId') paymentId: string) { return this.ledger.receipt(paymentId); }
 */
export const McpResource = (options: McpResourceOptions): MethodDecorator => SetMetadata(MCP_RESOURCE_METADATA, options);
