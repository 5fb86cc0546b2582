import { SetMetadata } from '@nestjs/common';
import type { ZodObject } from 'zod';
import { MCP_PROMPT_METADATA } from '../mcp.constants.js';
import type { McpCompleter } from './mcp-completer.type.js';

/** Options of `@McpPrompt`. */
export interface McpPromptOptions {
  /** Prompt name, unique in the server (`'invoice.review-checklist'`). */
  name: string;
  description?: string;
  /** Title shown by hosts. */
  title?: string;
  /**
   * zod object schema of the arguments; MCP prompt arguments are strings, so each property
   * must accept a string (`z.string()`, optional or not). Its `.describe()` texts are the
   * arguments' descriptions. @default no arguments
   */
  argsSchema?: ZodObject;
  /** Completers by argument name, answered on `completion/complete`. */
  complete?: Record<string, McpCompleter>;
  /** `serverId` of the MCP server that serves the prompt (see `McpToolOptions.server`). */
  server?: string;
}

/**
 * Exposes a provider method as an MCP prompt. It returns the prompt's messages: a string (one
 * user message), an array of messages, or a whole `GetPromptResult`. With `@McpBindState` (states
 * only, no transition) it is listed and served only while the caller's instance is in them.
 *
 * @example
 * \@McpPrompt({ name: 'invoice.review-checklist', description: 'What to check before approving' })
 * \@BindState('review')
 * checklist(\@McpContext() ctx: McpToolContext) { return `Check the invoice in ${ctx.state}: ...`; }
 */
export const McpPrompt = (options: McpPromptOptions): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);
