import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';
import { McpBodyNotJsonError, McpBodyTooLargeError } from './mcp-body.errors.js';

/** A Node request of the MCP path: its parsed body, and the caller the app's middleware found (`auth`, or Passport's `user`). */
export type McpNodeRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo; user?: unknown };

/** Whether a request's body is declared JSON, as the SDK transport takes it. */
export function isJsonContentType(req: McpNodeRequest): boolean {
  return (req.headers['content-type'] ?? '').includes('application/json');
}

/**
 * Reads the body of a request on the MCP path, at most `limit` bytes, the way a body parser
 * would: a POST declared JSON is parsed into `req.body`. Any other body is read and dropped
 * (the transport refuses a POST that is not JSON with 415), so no body parser of the framework gets
 * to answer for the MCP path. Rejects with {@link McpBodyTooLargeError} (before reading, when
 * `Content-Length` says so) or {@link McpBodyNotJsonError}.
 */
export function readMcpBody(req: McpNodeRequest, limit: number): Promise<void> {
  if (Number(req.headers['content-length']) > limit) {
    return Promise.reject(new McpBodyTooLargeError());
  }
  const parse = req.method === 'POST' && isJsonContentType(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(new McpBodyTooLargeError());
      } else if (parse) {
        chunks.push(chunk);
      }
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      if (!parse || size > limit) {
        resolve();
        return;
      }
      try {
        req.body = JSON.parse(Buffer.concat(chunks, size).toString('utf8'));
        resolve();
      } catch {
        reject(new McpBodyNotJsonError());
      }
    });
  });
}
