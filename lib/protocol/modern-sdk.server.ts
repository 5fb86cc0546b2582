import type { JSONRPCRequest, Result, ServerContext } from '@modelcontextprotocol/server';
import type { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { mcpHttpExchange } from './mcp-http-request.storage.js';
import { MODERN_PROTOCOL_VERSION, type ModernSdk } from './modern-era.js';
import * as messages from './protocol.messages.js';

/** A zod issue as the SDK's JSON dump lists it. */
type Issue = { path: PropertyKey[]; message: string };

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/**
 * The SDK v2 `Server` class of `sdk`, except that a request whose params do not fit its
 * method is refused with -32602 and one readable line naming each field, as the 2025 era does
 * (`McpSdkServer`); the SDK answers with zod's JSON dump (-32603, or -32602 with a prefix for
 * `tools/call`). It rewords what the SDK refused, and refuses nothing more. Every request runs
 * in its telemetry span, as in the 2025 era.
 */
export function readableParamsServer(sdk: ModernSdk, telemetry: McpTelemetry): typeof sdk.server.Server {
  const { ProtocolError, ProtocolErrorCode } = sdk.server;

  /** The issues of the SDK's refusal of a request's params (a plain error, or -32602 `Invalid <method> request: `, with the dump). */
  const paramsIssues = (method: string, error: unknown): Issue[] | undefined => {
    if (!(error instanceof Error)) {
      return undefined;
    }
    const protocol = error instanceof ProtocolError;
    if (protocol && error.code !== ProtocolErrorCode.InvalidParams) {
      return undefined;
    }
    const prefix = protocol ? `Invalid ${method} request: ` : '';
    if (!error.message.startsWith(`${prefix}[`)) {
      return undefined;
    }
    try {
      const issues: unknown = JSON.parse(error.message.slice(prefix.length));
      const isIssue = (issue: unknown) => Array.isArray((issue as Issue | null)?.path) && typeof (issue as Issue).message === 'string';
      return Array.isArray(issues) && issues.length > 0 && issues.every(isIssue) ? (issues as Issue[]) : undefined;
    } catch {
      return undefined;
    }
  };

  return class ReadableParamsServer extends sdk.server.Server {
    protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
      const wrapped = super._wrapHandler(method, handler);
      const readable = async (request: JSONRPCRequest, ctx: ServerContext) => {
        try {
          return await wrapped(request, ctx);
        } catch (error) {
          const issues = paramsIssues(method, error);
          throw issues ? new ProtocolError(ProtocolErrorCode.InvalidParams, messages.invalidParams(method, issues)) : error;
        }
      };
      return (request, ctx) =>
        !telemetry.records()
          ? readable(request, ctx)
          : telemetry.serve(
              {
                method,
                params: request.params,
                requestId: request.id,
                sessionId: undefined,
                protocolVersion: MODERN_PROTOCOL_VERSION,
                transport: 'tcp',
                headers: ctx.http?.req?.headers,
                http: mcpHttpExchange.getStore()?.request,
              },
              () => readable(request, ctx),
            );
    }
  };
}
