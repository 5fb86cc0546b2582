import { Server, type ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import { safeParse, type AnyObjectSchema, type SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { getMethodLiteral } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Implementation, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpTelemetry } from '../telemetry/mcp-telemetry.js';
import { JSON_RPC_INVALID_PARAMS } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import type { McpHttpExchange } from './mcp-http-request.storage.js';
import * as messages from './protocol.messages.js';

/** A handler as `Server.setRequestHandler` takes it, for requests of `T`. */
type McpRequestHandler<T extends AnyObjectSchema> = (
  request: SchemaOutput<T>,
  extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1],
) => ReturnType<Parameters<Server['setRequestHandler']>[1]>;

/** The SDK's request extra, as every handler gets it. */
type RequestExtra = Parameters<McpRequestHandler<AnyObjectSchema>>[1];

/** A zod issue as both zod 3 and zod 4 report it. */
type Issues = ReadonlyArray<{ path: PropertyKey[]; message: string }>;

/** `tools/call` with any params: the call handler checks them and answers -32602 in plain words. */
const LenientCallToolRequestSchema = z.object({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * The schema that routes a method's requests to its handler, one per method for every session's
 * server (methods are registered by code, so the map stays small): a zod schema holds about a
 * kilobyte, and each session registers a dozen handlers.
 */
const routingSchemas = new Map<string, AnyObjectSchema>();

function routingSchema(method: string): AnyObjectSchema {
  let schema = routingSchemas.get(method);
  if (!schema) {
    schema = z.looseObject({ method: z.literal(method) });
    routingSchemas.set(method, schema);
  }
  return schema;
}

/** How a 2025-era connection is traced: the module's telemetry, and the transport (`pipe` for stdio). */
interface McpSdkServerTracing {
  telemetry: McpTelemetry;
  transport: 'pipe' | 'tcp';
}

/**
 * The SDK `Server`, except that a request whose params do not fit its method's schema is
 * refused with -32602 and one readable line naming each field
 * (`Invalid params for logging/setLevel: params.level: Invalid option: …`), where the SDK
 * answers -32603 with zod's JSON dump; and that every request runs in its telemetry span. Both
 * hold for every handler registered on it: the module's, the SDK's own (`initialize`, `ping`),
 * and those of `configureServer`.
 */
export class McpSdkServer extends Server {
  /** The protocol version `initialize` negotiated (the SDK keeps none to read). */
  protocolVersion?: string;
  /** Who sent the latest request (its verified token): a stateless connection's one request, whose caller the session does not record. */
  callerAuth?: AuthInfo;
  private readonly tracing: McpSdkServerTracing;
  /** The HTTP exchange that carried a request, by its id (HTTP connections): what its span says of the client. */
  private exchangeOf?: (requestId: RequestId) => McpHttpExchange | undefined;

  constructor(
    info: Implementation,
    options: ServerOptions,
    tracing: McpSdkServerTracing = { telemetry: McpTelemetry.off, transport: 'tcp' },
  ) {
    super(info, options);
    this.tracing = tracing;
  }

  /** Where the spans of this connection's requests find the HTTP exchange that carried each (its client's address, the HTTP version). */
  findExchangesWith(lookup: (requestId: RequestId) => McpHttpExchange | undefined): void {
    this.exchangeOf = lookup;
  }

  override setRequestHandler<T extends AnyObjectSchema>(requestSchema: T, handler: McpRequestHandler<T>): void {
    const method = getMethodLiteral(requestSchema);
    // The SDK parses a request with the schema its handler was registered with: this one only routes it here.
    super.setRequestHandler(
      routingSchema(method),
      this.traced(method, (request, extra) => {
        const parsed = safeParse(requestSchema, request);
        if (!parsed.success) {
          throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.invalidParams(method, (parsed.error as { issues: Issues }).issues));
        }
        return handler(parsed.data as SchemaOutput<T>, extra);
      }),
    );
  }

  /**
   * Registers the `tools/call` handler, which checks the params itself: the Server's own
   * registration validates them with zod first and answers a malformed call with a zod dump.
   */
  setToolCallHandler(handler: (params: unknown, extra: RequestExtra) => Promise<unknown>): void {
    Protocol.prototype.setRequestHandler.call(
      this,
      LenientCallToolRequestSchema,
      this.traced('tools/call', (request: { params?: unknown }, extra) => handler(request.params, extra)),
    );
  }

  /** `handler` run in the request's span; the version `initialize` answers is kept for the spans after it. */
  private traced<R extends { method: string; params?: unknown }, T>(
    method: string,
    handler: (request: R, extra: RequestExtra) => T | Promise<T>,
  ): (request: R, extra: RequestExtra) => Promise<T> {
    const negotiated = async (answer: T | Promise<T>): Promise<T> => {
      const result = await answer;
      if (method === 'initialize') {
        this.protocolVersion = (result as { protocolVersion?: string }).protocolVersion;
      }
      return result;
    };
    return (request, extra) => {
      this.callerAuth = extra.authInfo;
      // Read at request time: the SDK registers `initialize` and `ping` from the constructor, before `tracing` is set.
      const { telemetry, transport } = this.tracing;
      if (!telemetry.records()) {
        // Nothing to record: the handler alone, without the request's description or a closure.
        return method === 'initialize' ? negotiated(handler(request, extra)) : Promise.resolve(handler(request, extra));
      }
      const headers = extra.requestInfo?.headers;
      return telemetry.serve(
        {
          method,
          params: request.params,
          requestId: extra.requestId,
          sessionId: extra.sessionId,
          protocolVersion: this.protocolVersion ?? (headers?.['mcp-protocol-version'] as string | undefined),
          transport,
          headers,
          http: this.exchangeOf?.(extra.requestId)?.request,
        },
        () => negotiated(handler(request, extra)),
      );
    };
  }
}
