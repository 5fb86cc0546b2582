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
      request = req.method === 'POST' && parsedBody === undefined ? toWebRequest(req) : toRequestHead(req);
    } catch {
      res.writeHead(400).end();
      return;
    }
    await writeWebResponse(await this.handleRequest(request, { authInfo: req.auth, parsedBody }), res);
  }
}

/** A web `Request` with the method, URL, headers and body stream of `req` (a POST whose body was not read yet). */
function toWebRequest(req: IncomingMessage): Request {
  const body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
  return new Request(requestUrl(req), { method: req.method, headers: requestHeaders(req), body, duplex: 'half' } as RequestInit);
}

/**
 * What the SDK's transport reads of a request whose body it is not asked to read (a GET, a
 * DELETE, a POST parsed already): its method, its URL and its headers. Building the web
 * `Request` itself (with its signal and checks) costs more than everything else the
 * transport does with it.
 */
function toRequestHead(req: IncomingMessage): Request {
  const head: Pick<Request, 'method' | 'url' | 'headers'> = {
    method: req.method ?? 'GET',
    url: requestUrl(req).href,
    headers: requestHeaders(req),
  };
  return head as Request;
}

function requestHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) {
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
  }
  return headers;
}

function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
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
  // The head goes out with the first chunk when the SDK has one in this turn of the event loop
  // (a POST's priming event or answer: one write instead of two), else on its own, so the
  // client sees the stream open.
  const flush = setImmediate(() => res.flushHeaders());
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.on('close', cancel);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      clearImmediate(flush);
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
    clearImmediate(flush);
    res.off('close', cancel);
  }
}
