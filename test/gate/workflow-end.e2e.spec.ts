import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { InMemoryFsmStateStore, McpWorkflowService, type McpModuleOptions } from '../../lib/index.js';
import { WorkflowRefusal } from '../../lib/extend.js';
import type { AtomicFsmStateStore } from '../../lib/stores/atomic-fsm-state-store.interface.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { ordersModule } from '../fixtures/orders.app.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';
import { uniqueSuffix } from '../utils/databases.js';

const codeOf = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;

const tables = { tableName: `end_state_${uniqueSuffix()}`, historyTableName: `end_history_${uniqueSuffix()}` };
let sqlite: DataSource;

/** Each store the end runs on, with history on. */
const setups: Array<{ name: string; store: () => AtomicFsmStateStore }> = [
  { name: 'InMemoryFsmStateStore', store: () => new InMemoryFsmStateStore({ history: true }) },
  { name: 'TypeOrmFsmStateStore on SQLite', store: () => new TypeOrmFsmStateStore(sqlite, { ...tables, history: true }) },
];

beforeAll(async () => {
  sqlite = new DataSource({ type: 'better-sqlite3', database: join(mkdtempSync(join(tmpdir(), 'mcp-fsm-end-')), 'end.sqlite') });
  await sqlite.initialize();
  await createStoreTables(sqlite, tables);
});

afterAll(async () => {
  await dropStoreTables(sqlite, tables);
  await sqlite.destroy();
});

/** `McpWorkflowService.end` goes through the gate (issue 40): a claim, a history row, `list_changed`. */
describe.each(setups)('McpWorkflowService.end through the gate, on $name', (setup) => {
  let app: INestApplication;
  let store: AtomicFsmStateStore;
  let clients: TestClient[];

  const connect = async () => {
    const client = await connectClient(await mcpUrl(app));
    clients.push(client);
    return client;
  };
  const place = async (client: TestClient) => ((await client.call('order.place')).structuredContent as { orderId: string }).orderId;

  beforeEach(async () => {
    store = setup.store();
    clients = [];
    app = await listenApp([ordersModule({ store } as Partial<McpModuleOptions>)]);
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app.close();
  });

  it("writes a last history row when a tool's handler ends its instance: event mcp.end, the tool, the state it ended in", async () => {
    const owner = await connect();
    const orderId = await place(owner);
    expect((await owner.call('order.cancel', { orderId })).structuredContent).toEqual({ ended: true });
    const rows = await store.history(`order:${orderId}`);
    expect(rows.map(({ from, to, event, tool }) => ({ from, to, event, tool }))).toEqual([
      { from: null, to: 'placed', event: null, tool: 'order.place' },
      { from: 'placed', to: 'placed', event: 'mcp.end', tool: 'order.cancel' },
    ]);
    expect(codeOf(await owner.call('order.status', { orderId }))).toBe('UNKNOWN_HANDLE');
  });

  it("tells the calling session in-band when its tool's handler ends the instance", async () => {
    const owner = await connect();
    const orderId = await place(owner);
    expect(await owner.names()).toContain('order.deliver');
    const changes = owner.listChanged();
    expect((await owner.call('order.cancel', { orderId })).structuredContent).toEqual({ ended: true });
    // In-band: on the call's own stream, before its response.
    expect(owner.listChanged()).toBeGreaterThan(changes);
    expect(await owner.names()).not.toContain('order.deliver');
    expect((await store.history(`order:${orderId}`)).at(-1)).toMatchObject({ event: 'mcp.end', tool: 'order.cancel' });
  });

  it("ends an instance from the app's own code as an actor: its history names the actor, the sessions that follow it are told; once", async () => {
    const owner = await connect();
    const orderId = await place(owner);
    expect(await owner.names()).toContain('order.deliver');
    const changes = owner.listChanged();
    const workflows = app.get(McpWorkflowService);
    expect(await workflows.end({ machine: 'order', handle: orderId }, { actor: 'ops:olivia' })).toBe(true);
    await eventually(() => owner.listChanged() > changes);
    expect(await owner.names()).not.toContain('order.deliver');
    expect((await store.history(`order:${orderId}`)).at(-1)).toMatchObject({
      event: 'mcp.end',
      tool: 'McpWorkflowService.end',
      principal: 'ops:olivia',
    });
    expect(await workflows.end({ machine: 'order', handle: orderId }, { actor: 'ops:olivia' })).toBe(false);
    expect(await workflows.end({ machine: 'order', handle: randomUUID() }, { actor: 'ops:olivia' })).toBe(false);
  });

  it('ends nothing while another call holds the instance: BUSY, and the instance stays', async () => {
    const owner = await connect();
    const orderId = await place(owner);
    const held = await store.claim({ key: `order:${orderId}`, token: randomUUID(), leaseMs: 60_000 });
    expect(held.status).toBe('claimed');
    const refused = await app
      .get(McpWorkflowService)
      .end({ machine: 'order', handle: orderId }, { actor: 'ops:olivia' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowRefusal);
    expect((refused as WorkflowRefusal).data.code).toBe('BUSY');
    expect((await store.load(`order:${orderId}`))?.state).toBe('placed');
    expect((await store.history(`order:${orderId}`)).map((row) => row.event)).toEqual([null]);
  });
});
