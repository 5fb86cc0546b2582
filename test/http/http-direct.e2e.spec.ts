import {
  Controller,
  Get,
  type INestApplication,
  type MiddlewareConsumer,
  Module,
  type NestModule,
  UnauthorizedException,
} from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

/** `Bearer <name>` is the caller `<name>`; `Bearer bad` is refused; no header is anonymous. */
function authenticate(request: IncomingMessage): AuthInfo | undefined {
  const header = request.headers.authorization;
  if (!header) {
    return undefined;
  }
  const token = header.replace(/^Bearer /, '');
  if (token === 'bad') {
    throw new UnauthorizedException('The bearer token is not valid.');
  }
  return { token, clientId: token, scopes: [] };
}

/** Counts the requests the app's own middleware saw, by path. */
class MiddlewareLog {
  static readonly paths: string[] = [];
}

@Controller('health')
class HealthController {
  @Get()
  ok() {
    return { ok: true };
  }
}

@Module({ controllers: [HealthController] })
class HealthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void) => {
        MiddlewareLog.paths.push(req.originalUrl ?? '');
        res.setHeader('x-app-middleware', 'ran');
        next();
      })
      .forRoutes('*');
  }
}

describe.each(HTTP_ADAPTERS)('direct HTTP route (transports.http.direct) on %s', (adapter) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  const connect = async (headers?: Record<string, string>) => {
    const client = await connectClient(url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    app = await listenApp([billingModule({ auth: { fromRequest: authenticate }, transports: { http: { direct: true } } }), HealthModule], {
      adapter,
    });
    url = await mcpUrl(app);
  });

  beforeEach(() => {
    clients = [];
    MiddlewareLog.paths.length = 0;
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  afterAll(async () => {
    await app.close();
  });

  it('serves MCP without the app middleware, and the app keeps serving its other routes with it', async () => {
    const agent = await connect();
    expect(await agent.names()).toContain('invoice.submit');
    const submitted = await agent.call('invoice.submit');
    expect(submitted.isError).toBeFalsy();
    expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'review' });
    expect(MiddlewareLog.paths).toEqual([]);

    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect(health.headers.get('x-app-middleware')).toBe('ran');
    expect(MiddlewareLog.paths).toEqual(['/health']);
  });

  it('sends list_changed to the other sessions following a handle', async () => {
    const owner = await connect();
    const watcher = await connect();
    const started = await owner.call('payment.authorize', { amount: 3, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await watcher.call('payment.refund', { paymentId });
    await watcher.names();
    const before = watcher.listChanged();
    await owner.call('payment.capture', { paymentId });
    await eventually(() => watcher.listChanged() === before + 1);
    expect(await watcher.names()).toContain('payment.refund');
  });

  it('takes the caller from auth.fromRequest: sessions are bound to it, handles are owned by it', async () => {
    const alice = await connect({ authorization: 'Bearer alice' });
    const started = await alice.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const bob = await connect({ authorization: 'Bearer bob' });
    const stolen = await bob.call('payment.capture', { paymentId });
    expect(stolen._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();

    const hijack = await postMcp(url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'mcp-session-id': alice.transport.sessionId!,
      authorization: 'Bearer bob',
    });
    // Another principal's session answers as an unknown one would.
    expect(hijack.status).toBe(404);
  });

  it('answers an HttpException thrown by auth.fromRequest with its status and message', async () => {
    const refused = await postMcp(url, JSON.stringify(RAW_INITIALIZE), { authorization: 'Bearer bad' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', error: { message: 'The bearer token is not valid.' } });
  });

  it('refuses a body that is not JSON (400, -32700), too large (413), or not declared JSON (415)', async () => {
    const broken = await postMcp(url, '{"jsonrpc": "2.0",');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700, message: 'Parse error: the request body is not valid JSON.' } });

    const huge = await postMcp(url, JSON.stringify({ ...RAW_INITIALIZE, padding: 'x'.repeat(5 * 1024 * 1024) }));
    expect(huge.status).toBe(413);

    const agent = await connect();
    const text = await postMcp(url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
      'content-type': 'text/plain',
      'mcp-session-id': agent.transport.sessionId!,
    });
    expect(text.status).toBe(415);
    expect(await agent.names()).toContain('invoice.submit');
  });

  it('still checks the Host header (DNS rebinding protection)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(RAW_INITIALIZE));
    });
    expect(status).toBe(403);
  });

  it('leaves paths that only start like the MCP path to the app', async () => {
    const other = await fetch(new URL('/mcpx', url));
    expect(other.status).toBe(404);
    expect(other.headers.get('x-app-middleware')).toBe('ran');
  });
});
