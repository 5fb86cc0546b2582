import type { INestApplication } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpError, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage } from 'node:http';
import { DataSource } from 'typeorm';
import {
  createMcpSessionHandleMigration,
  createMcpSessionMigration,
  TypeOrmFsmStateStore,
  TypeOrmMcpSessionStore,
} from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { BillingPrimitives, InvoicePrimitives, PaymentPrimitives } from '../fixtures/billing.primitives.js';
import { describeNetworkedTargets, uniqueSuffix } from '../utils/databases.js';
import { connectClient, mcpUrl, postMcp, postMcpRaw, RAW_INITIALIZE, textOf, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';

/** `Bearer <percent-encoded principal>` is that principal. */
function authenticate(request: IncomingMessage): AuthInfo | undefined {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  return token ? { token, clientId: decodeURIComponent(token), scopes: [] } : undefined;
}

const bearer = (principal: string) => ({ authorization: `Bearer ${encodeURIComponent(principal)}` });

/** What an error text repeats of a long value: its first 64 characters and an ellipsis. */
const cut = (value: string) => `${value.slice(0, 64)}…`;

async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const ROUTES: [HttpAdapterName, boolean][] = [
  ['express', false],
  ['fastify', false],
  ['express', true],
];

describe.each(ROUTES)('length limits of what a client sends, on %s (direct: %s)', (adapter, direct) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  const connect = async (headers?: Record<string, string>) => {
    const client = await connectClient(url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const module = billingModule({ auth: { fromRequest: authenticate }, transports: { http: { direct } } });
    module.providers!.push(InvoicePrimitives, PaymentPrimitives, BillingPrimitives);
    app = await listenApp([module], { adapter });
    url = await mcpUrl(app);
  });

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  afterAll(async () => {
    await app.close();
  });

  it('refuses a session id longer than 64 characters with 400 naming the limit, without repeating it', async () => {
    const response = await postMcp(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': 's'.repeat(8192) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message:
          'Bad Request: the Mcp-Session-Id header is 8192 characters long; session ids of this MCP server are at most 64. Send a new initialize request without Mcp-Session-Id.',
      },
      id: 3,
    });
    const unknown = await postMcp(url, { jsonrpc: '2.0', id: 4, method: 'tools/list' }, { 'mcp-session-id': 's'.repeat(64) });
    expect(unknown.status).toBe(404);
  });

  it('refuses a principal longer than 128 characters with 403 naming the limit', async () => {
    const response = await postMcp(url, RAW_INITIALIZE, bearer('p'.repeat(300)));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message:
          'Forbidden: the authenticated principal (auth clientId) is 300 characters long; this MCP server accepts principals of at most 128 characters.',
      },
      id: 1,
    });
    expect((await postMcp(url, RAW_INITIALIZE, bearer('p'.repeat(128)))).status).toBe(200);
  });

  it('refuses a handle that is not one with a tool error naming its format, repeating 64 characters of it', async () => {
    const client = await connect();
    const paymentId = 'h'.repeat(10 * 1024);
    const result = await client.call('payment.capture', { paymentId });
    expect(result.isError).toBe(true);
    expect(result._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(textOf(result)).toBe(
      `UNKNOWN_HANDLE: "${cut(paymentId)}" is not a paymentId: a paymentId is the 22-character handle (letters, digits, "-" and "_") returned when a payment workflow starts, so "payment.capture" did not run. Start one with: payment.authorize.`,
    );
  });

  it('refuses a resource URI longer than 8192 characters with -32602 naming the limit, and cuts the unknown ones it repeats', async () => {
    const client = await connect();
    const huge = `billing://${'u'.repeat(50 * 1024)}`;
    const tooLong = await refusal(client.client.readResource({ uri: huge }));
    expect(tooLong.code).toBe(-32602);
    expect(tooLong.message).toBe(
      `MCP error -32602: Invalid resources/read request: the resource URI is ${huge.length} characters long; this MCP server takes URIs of at most 8192 characters.`,
    );
    const subscribe = await refusal(client.client.subscribeResource({ uri: huge }));
    expect(subscribe.message).toMatch(/^MCP error -32602: Invalid resources\/subscribe request: the resource URI is \d+ characters long/);

    const unknown = `billing://${'u'.repeat(5000)}`;
    const notFound = await refusal(client.client.request({ method: 'resources/read', params: { uri: unknown } }, ReadResourceResultSchema));
    expect(notFound.message).toBe(
      `MCP error -32002: Resource "${cut(unknown)}" not found. Call resources/list and resources/templates/list for what this server serves.`,
    );
  });

  it('cuts an unknown tool name and a refused Origin it repeats', async () => {
    const client = await connect();
    const name = `tool.${'n'.repeat(10 * 1024)}`;
    const unknownTool = await refusal(client.client.callTool({ name, arguments: {} }));
    expect(unknownTool.message).toBe(`MCP error -32602: Unknown tool "${cut(name)}". Call tools/list for the tools available now.`);

    const origin = `http://${'o'.repeat(8000)}.example`;
    const refused = await postMcpRaw(url, RAW_INITIALIZE, { origin });
    expect(refused.status).toBe(403);
    expect((JSON.parse(refused.body) as { error: { message: string } }).error.message).toMatch(
      new RegExp(`^Forbidden: Origin "${cut(origin).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not allowed`),
    );
  });
});

describeNetworkedTargets('principal length limits')('principals of every length on %s', (target) => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `lim_state_${suffix}`, historyTableName: `lim_history_${suffix}`, timerTableName: `lim_timer_${suffix}` };
  const sessionTables = {
    tableName: `lim_session_${suffix}`,
    eventTableName: `lim_event_${suffix}`,
    handleTableName: `lim_handle_${suffix}`,
  };
  let dataSource: DataSource;
  let app: INestApplication;
  let url: URL;

  beforeAll(async () => {
    dataSource = await new DataSource(target.options()).initialize();
    await createStoreTables(dataSource, tables);
    const runner = dataSource.createQueryRunner();
    await new (createMcpSessionMigration(sessionTables))().up(runner);
    await new (createMcpSessionHandleMigration(sessionTables))().up(runner);
    await runner.release();
    app = await listenApp([
      billingModule({
        store: new TypeOrmFsmStateStore(dataSource, { ...tables, history: true }),
        auth: { fromRequest: authenticate },
        transports: { http: { sessions: { store: new TypeOrmMcpSessionStore(dataSource, sessionTables) } } },
      }),
    ]);
    url = await mcpUrl(app);
  });

  afterAll(async () => {
    await app.close();
    const runner = dataSource.createQueryRunner();
    await new (createMcpSessionHandleMigration(sessionTables))().down(runner);
    await new (createMcpSessionMigration(sessionTables))().down(runner);
    await runner.release();
    await dropStoreTables(dataSource, tables);
    await dataSource.destroy();
  });

  it('refuses a principal over 128 characters with 403 before anything is stored, and keeps one of 128 in every column it reaches', async () => {
    // 300 is beyond the 255-character columns: stored, it would fail in the database.
    for (const length of [300, 129]) {
      const response = await postMcp(url, RAW_INITIALIZE, bearer('p'.repeat(length)));
      expect([length, response.status]).toEqual([length, 403]);
      expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining(`is ${length} characters long;`) } });
    }
    const [{ count }] = await dataSource.query(`SELECT COUNT(*) AS count FROM ${sessionTables.tableName}`);
    expect(Number(count)).toBe(0);

    // The session, the payment's owner, the history and the principal's 2026-07-28 instance.
    const principal = `${'ü'.repeat(64)}${'p'.repeat(64)}`;
    const client = await connectClient(url, bearer(principal));
    try {
      const started = await client.call('payment.authorize', { amount: 5, currency: 'EUR' });
      expect(started.isError).toBeFalsy();
      const { paymentId } = started.structuredContent as { paymentId: string };
      expect((await client.call('payment.capture', { paymentId })).isError).toBeFalsy();
      expect((await client.call('invoice.submit')).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const modern = await connectModernClient(url, bearer(principal));
    try {
      const submitted = await modern.callTool({ name: 'invoice.submit', arguments: {} });
      expect(submitted.isError).toBeFalsy();
      expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'review' });
    } finally {
      await modern.close();
    }
    const rows = (await dataSource.query(`SELECT handle, owner FROM ${tables.tableName}`)) as { handle: string; owner: string | null }[];
    expect(rows.filter((row) => row.handle.startsWith('payment:')).map((row) => row.owner)).toEqual([principal]);
    expect(rows.map((row) => row.handle)).toContain(`invoice:principal:${principal}`);
    const history = (await dataSource.query(`SELECT principal FROM ${tables.historyTableName}`)) as { principal: string }[];
    expect(history.map((row) => row.principal)).toEqual([principal, principal, principal, principal]);
  });
});
