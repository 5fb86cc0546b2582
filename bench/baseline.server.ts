import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { BENCH_TOOLS } from './bench.machines.js';

/** The bare SDK server: started on a loopback port, with its live session count. */
export interface BaselineServer {
  port: number;
  sessions: () => number;
  close: () => Promise<void>;
}

/**
 * The baseline: the official SDK's `McpServer`, one per session (stateful Streamable HTTP, the
 * SDK's documented pattern) on a plain `node:http` server. It lists the same tools, with the
 * same names, descriptions and arguments, as a bench Nest session with live docs sees, all
 * static; `echo` answers `ok` like the Nest one.
 *
 * With `handGate`, `loop.flip` and `loop.flop` are gated by hand as an SDK user would: the
 * session's state in a variable, a wrong state answered with an error, and a moved one
 * announced with `list_changed` on the call's stream, as `McpModule` does.
 */
export async function startBaselineServer({ handGate = false } = {}): Promise<BaselineServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();

  const newServer = (): McpServer => {
    const server = new McpServer({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    const ok = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
    const docId = { docId: z.string() };
    server.registerTool(BENCH_TOOLS.echo.name, { description: BENCH_TOOLS.echo.description }, ok);
    if (handGate) {
      let state = 'a';
      const gated = (from: string, to: string) => async (extra: { sendNotification: (n: { method: 'notifications/tools/list_changed' }) => Promise<void> }) => {
        if (state !== from) {
          return { content: [{ type: 'text' as const, text: `FORBIDDEN in ${state}` }], isError: true };
        }
        state = to;
        await extra.sendNotification({ method: 'notifications/tools/list_changed' });
        return ok();
      };
      server.registerTool(BENCH_TOOLS.flip.name, { description: BENCH_TOOLS.flip.description }, gated('a', 'b'));
      server.registerTool(BENCH_TOOLS.flop.name, { description: BENCH_TOOLS.flop.description }, gated('b', 'a'));
    } else {
      server.registerTool(BENCH_TOOLS.flip.name, { description: BENCH_TOOLS.flip.description }, ok);
    }
    server.registerTool(BENCH_TOOLS.open.name, { description: BENCH_TOOLS.open.description }, ok);
    server.registerTool(BENCH_TOOLS.edit.name, { description: BENCH_TOOLS.edit.description, inputSchema: docId }, ok);
    server.registerTool(BENCH_TOOLS.publish.name, { description: BENCH_TOOLS.publish.description, inputSchema: docId }, ok);
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = transports.get(sessionId);
      if (!transport) {
        return reply(res, 404, 'Session not found');
      }
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, 'Bad Request: no valid session ID');
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    sessions: () => transports.size,
    close: async () => {
      await Promise.allSettled([...transports.values()].map((transport) => transport.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
