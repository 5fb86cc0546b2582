import type { INestApplication } from '@nestjs/common';
import { createServer, type Server } from 'node:net';
import { billingModule } from '../fixtures/billing.app.js';
import { mcpUrl, postMcpRaw, RAW_INITIALIZE } from '../utils/http-client.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';

const ROUTES: [HttpAdapterName, boolean][] = [
  ['express', false],
  ['fastify', false],
  ['express', true],
  ['fastify', true],
];

/** A loopback port another program of this machine listens on (a dev server, say). */
async function otherPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe.each(ROUTES)('the Origin check on %s (direct: %s)', (adapter, direct) => {
  let app: INestApplication | undefined;
  let other: { port: number; server: Server };

  beforeEach(async () => {
    other = await otherPort();
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    other.server.close();
  });

  const statusFor = async (url: URL, origin: string) => (await postMcpRaw(url, RAW_INITIALIZE, { origin })).status;

  it("accepts this server's own origin, by any loopback name, and refuses a page of another port of this machine unless allowedOrigins names it", async () => {
    app = await listenApp([billingModule({ transports: { http: { direct } } })], { adapter });
    const url = await mcpUrl(app);
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      expect([name, await statusFor(url, `http://${name}:${url.port}`)]).toEqual([name, 200]);
      expect([name, await statusFor(url, `http://${name}:${other.port}`)]).toEqual([name, 403]);
    }
    expect(await statusFor(url, 'http://localhost')).toBe(403);
    const refused = await postMcpRaw(url, RAW_INITIALIZE, { origin: `http://localhost:${other.port}` });
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Forbidden: Origin "http://localhost:${other.port}" is not allowed for this MCP server (DNS rebinding protection): without transports.http.allowedOrigins, an Origin must name this server's own host and port; add it to transports.http.allowedOrigins.`,
      },
      id: 1,
    });
    await app.close();

    const allowed = `http://localhost:${other.port}`;
    app = await listenApp([billingModule({ transports: { http: { direct, allowedOrigins: [allowed] } } })], { adapter });
    const configured = await mcpUrl(app);
    expect(await statusFor(configured, allowed)).toBe(200);
    expect(await statusFor(configured, `http://localhost:${configured.port}`)).toBe(403);
  });
});
