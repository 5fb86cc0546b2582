import type { INestApplication } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsmStateStore, type McpModuleOptions } from '../../lib/index.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { OrdersLog, ordersModule } from '../fixtures/orders.app.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { uniqueSuffix } from '../utils/databases.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;
const sorted = (names: string[]) => [...names].sort();

interface StoreSetup {
  name: string;
  beforeAll?: () => Promise<void>;
  afterAll?: () => Promise<void>;
  options: () => Partial<McpModuleOptions>;
  /** Counts the store's queries (TypeORM stores only). */
  logger?: () => CountingLogger;
}

const tables = { tableName: `mn_state_${uniqueSuffix()}`, historyTableName: `mn_history_${uniqueSuffix()}` };
let sqlite: DataSource;
let sqliteLogger: CountingLogger;

const setups: StoreSetup[] = [
  {
    name: 'InMemoryFsmStateStore',
    options: () => ({}),
  },
  {
    name: 'TypeOrmFsmStateStore on SQLite',
    beforeAll: async () => {
      sqliteLogger = new CountingLogger();
      const database = join(mkdtempSync(join(tmpdir(), 'mcp-fsm-')), 'menus.sqlite');
      sqlite = new DataSource({ type: 'better-sqlite3', database, logger: sqliteLogger, logging: ['query'] });
      await sqlite.initialize();
      await createStoreTables(sqlite, tables);
    },
    afterAll: async () => {
      await dropStoreTables(sqlite, tables);
      await sqlite.destroy();
    },
    options: () => ({ store: new TypeOrmFsmStateStore(sqlite, tables) }),
    logger: () => sqliteLogger,
  },
];

describe.each(setups)('menus on $name', (setup) => {
  let app: INestApplication;
  let clients: TestClient[];

  const connect = async () => {
    const client = await connectClient(await mcpUrl(app));
    clients.push(client);
    return client;
  };

  const start = async (client: TestClient, tool: string, key: string) => {
    const started = await client.call(tool);
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as Record<string, string>)[key];
  };

  beforeAll(async () => {
    await setup.beforeAll?.();
  });

  afterAll(async () => {
    await setup.afterAll?.();
  });

  beforeEach(async () => {
    clients = [];
    app = await listenApp([ordersModule(setup.options())]);
  });

  afterEach(async () => {
    for (const client of clients) {
      await client.close();
    }
    await app.close();
  });

  it('lists a tool bound to a final state while the instance is in it, and it can be called there', async () => {
    const agent = await connect();
    const orderId = await start(agent, 'order.place', 'orderId');
    const placed = await agent.names();
    expect(placed).toContain('order.deliver');
    expect(placed).not.toContain('order.invoice');

    const changes = agent.listChanged();
    const delivered = await agent.call('order.deliver', { orderId });
    expect(delivered.isError).toBeFalsy();
    const gate = delivered._meta?.['nestjs-mcp-fsm/state'] as { machine: string; state: string; allowedTools: string[] };
    expect(gate).toMatchObject({ machine: 'order', state: 'delivered' });
    expect(gate.allowedTools).toContain('order.invoice');
    expect(gate.allowedTools).not.toContain('order.deliver');
    await eventually(() => agent.listChanged() > changes);

    const done = await agent.names();
    expect(done).toContain('order.invoice');
    expect(done).not.toContain('order.deliver');

    // Listed again and again, and callable as often: the instance stays in the final state.
    for (let i = 0; i < 2; i += 1) {
      const invoice = await agent.call('order.invoice', { orderId });
      expect(invoice.isError).toBeFalsy();
      expect(invoice.structuredContent).toEqual({ invoice: `INV-${orderId}`, state: 'delivered' });
      expect(await agent.names()).toContain('order.invoice');
    }
    expect(app.get(OrdersLog).count('order.invoice')).toBe(2);

    // A fresh session that looks the order up gets the same tool.
    const reader = await connect();
    expect(await reader.names()).not.toContain('order.invoice');
    expect((await reader.call('order.status', { orderId })).structuredContent).toEqual({ orderId, state: 'delivered' });
    expect(await reader.names()).toContain('order.invoice');
  });

  it('a session that finished 30 workflows lists what a fresh session lists, with as many store round trips', async () => {
    const worn = await connect();
    const fresh = await connect();
    const freshNames = sorted(await fresh.names());
    expect(freshNames).not.toContain('ticket.close');

    // While a ticket is open, its tool is on the menu: the menu does follow the session's instances.
    const probe = await start(worn, 'ticket.open', 'ticketId');
    expect(await worn.names()).toContain('ticket.close');
    expect((await worn.call('ticket.close', { ticketId: probe })).isError).toBeFalsy();

    for (let i = 1; i < 30; i += 1) {
      const ticketId = await start(worn, 'ticket.open', 'ticketId');
      const closed = await worn.call('ticket.close', { ticketId });
      expect(closed.isError).toBeFalsy();
      expect(closed._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'ticket', state: 'closed' });
    }
    expect(app.get(OrdersLog).count('ticket.close')).toBe(30);

    expect(sorted(await worn.names())).toEqual(freshNames);
    const logger = setup.logger?.();
    if (logger) {
      const freshQueries = await logger.during(() => fresh.names());
      const wornQueries = await logger.during(() => worn.names());
      expect(wornQueries).toHaveLength(freshQueries.length);
      expect(freshQueries.length).toBeLessThanOrEqual(1);
    }
  });

  it('McpWorkflowService.end ends an instance: its handle is UNKNOWN_HANDLE and the sessions get list_changed', async () => {
    const owner = await connect();
    const follower = await connect();
    const orderId = await start(owner, 'order.place', 'orderId');
    expect((await follower.call('order.status', { orderId })).isError).toBeFalsy();
    expect(await owner.names()).toContain('order.deliver');
    expect(await follower.names()).toContain('order.deliver');

    const [ownerChanges, followerChanges] = [owner.listChanged(), follower.listChanged()];
    const cancelled = await owner.call('order.cancel', { orderId });
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toEqual({ ended: true });

    // Another session that follows the order is told its menu changed.
    await eventually(() => follower.listChanged() > followerChanges);
    expect(await follower.names()).not.toContain('order.deliver');

    const log = app.get(OrdersLog);
    const runs = [...log.runs];
    for (const client of [owner, follower]) {
      for (const tool of ['order.deliver', 'order.status', 'order.cancel']) {
        const refused = await client.call(tool, { orderId });
        expect(refused.isError).toBe(true);
        expect(codeOf(refused)).toBe('UNKNOWN_HANDLE');
      }
    }
    expect(log.runs).toEqual(runs);
    expect(await app.get<FsmStateStore>(FsmStateStore).load(`order:${orderId}`)).toBeUndefined();
    expect(await owner.names()).not.toContain('order.deliver');

    // The session that ended it is told too, like after any call that changes its menu.
    await eventually(() => owner.listChanged() > ownerChanges);
  });
});
