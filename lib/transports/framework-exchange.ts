import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** The Node request as the transport serves it: the parsed body, and `auth` set by bearer middleware or a hook. */
export type McpNodeRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };

/** The part of Fastify's request the transport uses (typed here: fastify is not a dependency). */
interface FastifyRequestLike {
  raw: McpNodeRequest;
  body?: unknown;
  auth?: AuthInfo;
}

/** The part of Fastify's reply the transport uses. */
interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): unknown;
  getHeaders(): OutgoingHttpHeaders;
}

function isFastifyReply(response: unknown): response is FastifyReplyLike {
  const reply = response as Partial<FastifyReplyLike>;
  return typeof reply.hijack === 'function' && typeof reply.getHeaders === 'function' && reply.raw !== undefined;
}

/**
 * The Node request and response of a framework route's arguments. Express hands them over
 * as they are. Fastify hands over its request and reply: the reply is hijacked (the SDK
 * answers on the raw response, Fastify must not answer too), headers its hooks set on the
 * reply are carried over, and the parsed body and `auth` (set by a hook on the Fastify
 * request, or by middleware on the raw one) are put on the raw request.
 */
export function toNodeExchange(request: unknown, response: unknown): { req: McpNodeRequest; res: ServerResponse } {
  if (!isFastifyReply(response)) {
    return { req: request as McpNodeRequest, res: response as ServerResponse };
  }
  const fastifyRequest = request as FastifyRequestLike;
  const req = fastifyRequest.raw;
  response.hijack();
  for (const [name, value] of Object.entries(response.getHeaders())) {
    if (value !== undefined) {
      response.raw.setHeader(name, value);
    }
  }
  req.body = fastifyRequest.body;
  req.auth ??= fastifyRequest.auth;
  return { req, res: response.raw };
}
