import type { INestApplication } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { billingModule } from '../fixtures/billing.app.js';
import { eventually } from '../utils/http-client.js';
import { createApp, HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs an initialize to `address` (a loopback address) with the Host header `host`, as a forging client would. */
function postInitialize(address: string, port: number, host: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: address,
        port,
        path: '/mcp',
        method: 'POST',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(initialize));
  });
}

const portOf = (app: INestApplication) => (app.getHttpServer().address() as AddressInfo).port;

describe.each(HTTP_ADAPTERS)('safe defaults on the wire, on %s', (adapter) => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  describe('Host validation beyond loopback', () => {
    it.each([false, true])('refuses to start on 0.0.0.0 without allowedHosts, saying what to set (direct: %s)', async (direct) => {
      app = await createApp([billingModule({ transports: { http: { direct } } })], adapter);
      await expect(app.listen(0, '0.0.0.0')).rejects.toThrow(
        "McpModule: the HTTP server listens on 0.0.0.0, beyond loopback, so the Host header must be checked against the names clients use (DNS rebinding protection); set transports.http.allowedHosts, e.g. transports.http.allowedHosts: ['mcp.example.com'], or listen on 127.0.0.1.",
      );
      const server = app.getHttpServer() as { listening: boolean };
      await eventually(() => !server.listening);
    });

    it.each([false, true])('on 0.0.0.0 with allowedHosts, accepts those names only (direct: %s)', async (direct) => {
      app = await listenApp([billingModule({ transports: { http: { direct, allowedHosts: ['mcp.example.com'] } } })], {
        adapter,
        host: '0.0.0.0',
      });
      const port = portOf(app);
      expect((await postInitialize('127.0.0.1', port, `mcp.example.com:${port}`)).status).toBe(200);
      const forged = await postInitialize('127.0.0.1', port, 'evil.example');
      expect(forged.status).toBe(403);
      expect(JSON.parse(forged.body)).toMatchObject({
        error: { message: expect.stringMatching(/^Forbidden: Host header "evil.example" is not allowed/) },
      });
      // The loopback names are not implied once the list is set.
      expect((await postInitialize('127.0.0.1', port, `localhost:${port}`)).status).toBe(403);
    });
  });

  describe('new sessions per client address', () => {
    // Listening on :: (dual stack) with the loopback names allowed: 127.0.0.1 and ::1 are two real client addresses.
    const start = async (maxNewPerMinutePerClient?: number) => {
      app = await listenApp(
        [
          billingModule({
            transports: {
              http: {
                allowedHosts: ['127.0.0.1', '[::1]'],
                sessions: maxNewPerMinutePerClient === undefined ? {} : { maxNewPerMinutePerClient },
              },
            },
          }),
        ],
        { adapter, host: '::' },
      );
      return portOf(app);
    };

    it('answers an initialize beyond the limit with 503, Retry-After and the limit, and leaves other addresses alone', async () => {
      const port = await start(2);
      expect((await postInitialize('127.0.0.1', port, '127.0.0.1')).status).toBe(200);
      expect((await postInitialize('127.0.0.1', port, '127.0.0.1')).status).toBe(200);
      const refused = await postInitialize('127.0.0.1', port, '127.0.0.1');
      expect(refused.status).toBe(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(30);
      expect(JSON.parse(refused.body)).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: `Service Unavailable: this client address may open 2 sessions per minute (transports.http.sessions.maxNewPerMinutePerClient) and has used them; retry after ${refused.headers['retry-after']} s.`,
        },
        id: 1,
      });
      expect((await postInitialize('::1', port, '[::1]')).status).toBe(200);
    });

    it('allows 60 new sessions a minute per address by default', async () => {
      const port = await start();
      const startedAt = Date.now();
      for (let i = 0; i < 60; i += 1) {
        expect((await postInitialize('127.0.0.1', port, '127.0.0.1')).status).toBe(200);
      }
      // The bucket refills one session a second while the loop runs (slowly on a loaded machine): those may pass too, no more.
      let refill = 0;
      while ((await postInitialize('127.0.0.1', port, '127.0.0.1')).status === 200) {
        refill += 1;
        expect(refill).toBeLessThanOrEqual(Math.ceil((Date.now() - startedAt) / 1000));
      }
    });
  });
});
