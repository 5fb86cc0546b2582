import { request as httpRequest } from 'node:http';

import { RAW_INITIALIZE } from './http-client.js';

/** A reply read whole by {@link postFrom}. */
export interface RawReply {
  status: number;
  retryAfter?: string;
  sessionId?: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * POSTs `body` to the MCP endpoint `url` from the loopback address `localAddress` (any
 * 127.0.0.0/8 address on Linux), on a connection of its own, as a client on that address would.
 */
export function postFrom(url: URL, localAddress: string, body: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            sessionId: res.headers['mcp-session-id'] as string | undefined,
            headers: res.headers,
            body: text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The JSON-RPC messages of a reply: its JSON body, or the `data:` lines of its SSE stream. */
export function messagesOf(reply: RawReply): Array<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }> {
  const text = reply.body.trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    const parsed: unknown = JSON.parse(text);
    return (Array.isArray(parsed) ? parsed : [parsed]) as ReturnType<typeof messagesOf>;
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as ReturnType<typeof messagesOf>[number]);
}

/** A session spoken to in raw HTTP from one address, without a GET stream: what it holds is only its workflow state. */
export class RawSession {
  private nextId = 2;

  private constructor(
    private readonly url: URL,
    private readonly address: string,
    readonly id: string,
  ) {}

  /** Opens a session from `address` (initialize, then notifications/initialized). */
  static async open(url: URL, address: string): Promise<RawSession> {
    const reply = await postFrom(url, address, RAW_INITIALIZE);
    if (reply.status !== 200) throw new Error(`initialize answered ${reply.status}: ${reply.body}`);
    const session = new RawSession(url, address, reply.sessionId!);
    await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return session;
  }

  /** POSTs one message on the session. */
  post(message: object): Promise<RawReply> {
    return postFrom(this.url, this.address, message, { 'mcp-session-id': this.id, 'mcp-protocol-version': '2025-06-18' });
  }

  /** The result of a JSON-RPC request on the session, or its HTTP status when there is none. */
  async request(method: string, params: object = {}): Promise<{ status: number; result?: Record<string, unknown> }> {
    const reply = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
    const message = reply.status === 200 ? messagesOf(reply).find((entry) => entry.id !== undefined) : undefined;
    return { status: reply.status, result: message?.result as Record<string, unknown> | undefined };
  }

  /** Calls a tool on the session. */
  async call(name: string, args: object = {}): Promise<{ status: number; result?: Record<string, unknown> }> {
    return this.request('tools/call', { name, arguments: args });
  }
}
