import type { ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_CONTEXT_TYPE } from '../mcp.constants.js';
import { WorkflowCall } from './workflow-call.js';

/**
 * A tool call seen from a guard, an interceptor, a pipe or a filter. In the `'mcp'` context
 * the handler arguments are laid out as HTTP's, so the app's HTTP guards work unchanged:
 * `switchToHttp().getRequest()` is the HTTP request that carried the call (headers,
 * `req.user`, `req.auth`), `getResponse()` its response; on stdio the request is
 * `{ headers: {} }` and the response `undefined`. The tool's arguments and context are
 * reached through this helper.
 *
 * @example
 * canActivate(context: ExecutionContext) {
 *   if (context.getType<string>() === 'mcp') {
 *     const mcp = McpExecutionContext.create(context);
 *     return mcp.getToolName() !== 'payment.refund' || mcp.getArgs<{ amount: number }>().amount < 1000;
 *   }
 *   return true;
 * }
 */
export class McpExecutionContext {
  private constructor(
    private readonly context: ExecutionContext,
    private readonly call: WorkflowCall,
  ) {}

  /** Wraps the execution context of a tool call; throws for any other context. */
  static create(context: ExecutionContext): McpExecutionContext {
    const call = WorkflowCall.from(context);
    if (context.getType<string>() !== MCP_CONTEXT_TYPE || !call) {
      throw new Error(`McpExecutionContext.create: not an MCP tool call (context type "${context.getType()}").`);
    }
    return new McpExecutionContext(context, call);
  }

  /** The tool's validated arguments. */
  getArgs<T = Record<string, unknown>>(): T {
    return this.call.args as T;
  }

  /** The call's `McpToolContext` (as `@McpContext()` injects it). */
  getContext(): McpToolContext {
    return this.call.context;
  }

  /** The tool's name. */
  getToolName(): string {
    return this.call.tool.name;
  }

  /** The HTTP request that carried the call (`{ headers: {} }` on stdio). */
  getRequest<T = IncomingMessage>(): T {
    return this.context.switchToHttp().getRequest<T>();
  }
}
