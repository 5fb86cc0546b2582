import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { safeParse, type AnyObjectSchema, type SchemaOutput } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { getMethodLiteral } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { z } from 'zod';
import { JSON_RPC_INVALID_PARAMS } from './json-rpc.codes.js';
import { JsonRpcError } from './json-rpc.error.js';
import * as messages from './protocol.messages.js';

/** A handler as `Server.setRequestHandler` takes it, for requests of `T`. */
type McpRequestHandler<T extends AnyObjectSchema> = (
  request: SchemaOutput<T>,
  extra: Parameters<Parameters<Server['setRequestHandler']>[1]>[1],
) => ReturnType<Parameters<Server['setRequestHandler']>[1]>;

/** A zod issue as both zod 3 and zod 4 report it. */
type Issues = ReadonlyArray<{ path: PropertyKey[]; message: string }>;

/**
 * The SDK `Server`, except that a request whose params do not fit its method's schema is
 * refused with -32602 and one readable line naming each field
 * (`Invalid params for logging/setLevel: params.level: Invalid option: …`), where the SDK
 * answers -32603 with zod's JSON dump. It holds for every handler registered on it: the
 * module's, the SDK's own (`initialize`, `ping`), and those of `configureServer`.
 */
export class McpSdkServer extends Server {
  override setRequestHandler<T extends AnyObjectSchema>(requestSchema: T, handler: McpRequestHandler<T>): void {
    const method = getMethodLiteral(requestSchema);
    // The SDK parses a request with the schema its handler was registered with: this one only routes it here.
    const routing = z.looseObject({ method: z.literal(method) });
    super.setRequestHandler(routing, (request, extra) => {
      const parsed = safeParse(requestSchema, request);
      if (!parsed.success) {
        throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.invalidParams(method, (parsed.error as { issues: Issues }).issues));
      }
      return handler(parsed.data as SchemaOutput<T>, extra);
    });
  }
}
