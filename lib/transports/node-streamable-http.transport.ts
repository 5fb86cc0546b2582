import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * The SDK's Streamable HTTP server transport on Node's `http` objects, each chunk of an
 * answer written to the socket as soon as the SDK produces it.
 *
 * The SDK's own Node transport answers through `@hono/node-server`, which reads ahead up to
 * two chunks of a response to set a `Content-Length`, and waits a timer (at least 1 ms) when
 * the first is there and the second is not: the case of every POST answered on an SSE stream
 * with replay on (the priming event comes first, the answer a few awaits later). Here an SSE
 * stream's head and chunks go out at once, and a JSON answer is sent whole.
 */
export class NodeStreamableHttpServerTransport extends WebStandardStreamableHTTPServerTransport {
  /** Serves a GET, POST or DELETE of the MCP endpoint; `parsedBody` is the POST's JSON, when it was read already. */
  async handleNodeRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    let request: Request;
    try {
      request = toWebRequest(req, req.method === 'POST' && parsedBody === undefined);
    } catch {
      res.writeHead(400).end();
      return;
    }
    await writeWebResponse(await this.handleRequest(request, { authInfo: req.auth, parsedBody }), res);
  }
}

/** A web `Request` with the method, URL and headers of `req`, and its body stream when `withBody` (a POST whose body was not read yet). */
function toWebRequest(req: IncomingMessage, withBody: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const body = withBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined;
  return new Request(url, { method: req.method, headers, body, duplex: body && 'half' } as RequestInit);
}

/** Writes a web `Response` to `res`: an SSE stream chunk by chunk until it ends or the client leaves, anything else whole. */
async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) {
    headers[name] = name === 'set-cookie' ? response.headers.getSetCookie() : value;
  }
  if (!response.body) {
    res.writeHead(response.status, headers).end();
    return;
  }
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': body.length }).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.on('close', cancel);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      if (!res.write(chunk.value) && !res.destroyed) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
    }
    res.end();
  } catch {
    res.destroy();
  } finally {
    res.off('close', cancel);
  }
}
