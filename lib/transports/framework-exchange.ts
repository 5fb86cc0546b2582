import { HttpException } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { McpBodyNotJsonError, McpBodyTooLargeError } from './mcp-body.errors.js';
import type { McpNodeRequest } from './mcp-body.reader.js';
import * as messages from './transports.messages.js';

/** The part of Fastify's request the transport uses (typed here: fastify is not a dependency). */
interface FastifyRequestLike {
  raw: McpNodeRequest;
  body?: unknown;
  auth?: AuthInfo;
  user?: unknown;
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
 * reply are carried over, and the parsed body, `auth` and Passport's `user` (set by a hook on
 * the Fastify request, or by middleware on the raw one) are put on the raw request.
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
  req.user ??= fastifyRequest.user;
  return { req, res: response.raw };
}

/** Fastify's codes for a body declared JSON that is not (other than a `SyntaxError` of its parser). */
const FASTIFY_NOT_JSON = ['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY'];

/** An error of the framework's request handling: Fastify's own (body parsing) and http-errors (body-parser, middleware) carry a status. */
export interface FrameworkError extends Error {
  statusCode?: number;
  status?: number;
  code?: string;
}

/** A route as the transport registers it on Fastify: with the body limit and error handler of the MCP path. */
interface FastifyRouteLike {
  method: string;
  url: string;
  bodyLimit: number;
  handler: (request: unknown, reply: unknown) => void;
  errorHandler: (error: FrameworkError, request: unknown, reply: unknown) => void;
}

/** The part of a Fastify instance the transport registers its routes on. */
export interface FastifyInstanceLike {
  route(route: FastifyRouteLike): unknown;
}

/**
 * An error of the framework's request handling on the MCP path (Fastify's body parsing, a
 * hook or middleware that fails) as the transport words it: a body that is not JSON (a
 * `SyntaxError` with status 400, or Fastify's refusal of an empty or invalid JSON body), one over the limit
 * (413), or any other client error (a content type Fastify has no parser for: 415) with its
 * status. An `HttpException` or a server error is returned as it is.
 */
export function fromFrameworkError(error: FrameworkError): Error {
  const status = error.statusCode ?? error.status ?? 500;
  if (error instanceof HttpException) {
    return error;
  }
  if (status === 413) {
    return new McpBodyTooLargeError();
  }
  if (status === 400 && (error instanceof SyntaxError || FASTIFY_NOT_JSON.includes(error.code ?? ''))) {
    return new McpBodyNotJsonError();
  }
  if (status >= 400 && status < 500) {
    return new HttpException(messages.requestRefused(status, error.message), status);
  }
  return error;
}
