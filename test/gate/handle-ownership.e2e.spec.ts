import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { mcpUrl } from '../utils/http-client.js';

/** Stand-in for bearer auth middleware: `Authorization: Bearer <client>` becomes `req.auth`. */
function fakeBearerAuth(req: IncomingMessage & { auth?: unknown }, _res: ServerResponse, next: () => void): void {
  const token = req.headers.authorization?.replace(/^Bearer /, '');
  if (token) {
    req.auth = { token, clientId: token, scopes: [] };
  }
  next();
}

describe('handles belong to the authenticated client that started them', () => {
  let app: INestApplication;
  let clients: Client[];

  const connectAs = async (clientId: string) => {
    const client = new Client({ name: clientId, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(await mcpUrl(app), {
      requestInit: { headers: { authorization: `Bearer ${clientId}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  };

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [billingModule()] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.use(fakeBearerAuth);
    await app.listen(0, '127.0.0.1');
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('refuses another client with UNKNOWN_HANDLE and lets the owner capture', async () => {
    const alice = await connectAs('alice');
    const mallory = await connectAs('mallory');
    const started = await alice('payment.authorize', { amount: 9, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };

    const stolen = await mallory('payment.capture', { paymentId });
    expect(stolen._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(app.get(HandlerLog).count('payment.capture')).toBe(0);

    expect((await alice('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(app.get(HandlerLog).count('payment.capture')).toBe(1);
  });
});
