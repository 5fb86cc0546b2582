import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { BENCH_TOOLS } from './bench.machines.js';
import { serveSdkSessions, type SdkHttpServer } from './sdk-http.server.js';

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
export async function startBaselineServer({ handGate = false } = {}): Promise<SdkHttpServer> {
  const newServer = (): McpServer => {
    const server = new McpServer({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    const ok = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
    const docId = { docId: z.string() };
    server.registerTool(BENCH_TOOLS.echo.name, { description: BENCH_TOOLS.echo.description }, ok);
    if (handGate) {
      let state = 'a';
      const gated =
        (from: string, to: string) =>
        async (extra: { sendNotification: (n: { method: 'notifications/tools/list_changed' }) => Promise<void> }) => {
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

  return serveSdkSessions(newServer);
}
