import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FsmStateStore, McpTool, McpWorkflow, McpContext, type McpToolContext } from '../../lib/index.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { paymentMachine } from '../fixtures/billing.machines.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { uniqueSuffix } from '../utils/databases.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

/** A workflow read of the payment machine: unbound, takes the handle. */
@Injectable()
@McpWorkflow(paymentMachine)
class PaymentLookupTools {
  readonly runs: string[] = [];

  @McpTool({ name: 'payment.lookup', description: 'Show a payment', inputSchema: z.object({ paymentId: z.string() }) })
  lookup(@McpContext() ctx: McpToolContext) {
    this.runs.push(ctx.handle!);
    return { paymentId: ctx.handle, state: ctx.state };
  }
}

function appModule(store?: FsmStateStore): DynamicModule {
  @Module({})
  class UnknownStateAppModule {}
  return {
    module: UnknownStateAppModule,
    imports: [billingModule(store ? { store } : {})],
    providers: [PaymentLookupTools],
  };
}

const errorOf = (result: CallToolResult) =>
  result._meta?.['nestjs-mcp-fsm/error'] as { code: string; tool: string; machine: string; state: string | null } | undefined;

const sorted = (names: string[]) => [...names].sort();

interface StoreSetup {
  name: string;
  beforeAll?: () => Promise<void>;
  afterAll?: () => Promise<void>;
  /** Starts the app; returns the store the test writes the stray state with. */
  start: () => Promise<{ app: INestApplication; store: FsmStateStore }>;
}

const sqliteTables = {
  tableName: `us_state_${uniqueSuffix()}`,
  historyTableName: `us_history_${uniqueSuffix()}`,
  timerTableName: `us_timer_${uniqueSuffix()}`,
};
let sqlite: DataSource;

const setups: StoreSetup[] = [
  {
    name: 'TypeOrmFsmStateStore on SQLite',
    beforeAll: async () => {
      sqlite = new DataSource({ type: 'better-sqlite3', database: join(mkdtempSync(join(tmpdir(), 'mcp-fsm-')), 'unknown-state.sqlite') });
      await sqlite.initialize();
      await createStoreTables(sqlite, sqliteTables);
    },
    afterAll: async () => {
      await dropStoreTables(sqlite, sqliteTables);
      await sqlite.destroy();
    },
    start: async () => {
      const app = await listenApp([appModule(new TypeOrmFsmStateStore(sqlite, sqliteTables))]);
      // The operator's view of the same table: a store of its own on the DataSource.
      return { app, store: new TypeOrmFsmStateStore(sqlite, sqliteTables) };
    },
  },
  {
    name: 'InMemoryFsmStateStore (the module default, via the FsmStateStore token)',
    start: async () => {
      const app = await listenApp([appModule()]);
      return { app, store: app.get<FsmStateStore>(FsmStateStore) };
    },
  },
];

describe.each(setups)('an instance stored in a state the machine does not have, $name', (setup) => {
  let app: INestApplication;
  let store: FsmStateStore;
  let agent: TestClient;
  let clients: TestClient[];

  const connect = async () => {
    const client = await connectClient(await mcpUrl(app));
    clients.push(client);
    return client;
  };

  const authorize = async (client: TestClient) => {
    const started = await client.call('payment.authorize', { amount: 10, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };

  /** Writes `state` as an operator (or an older release) would, keeping the rest of the row. */
  const strand = async (paymentId: string, state: string) => {
    const key = `payment:${paymentId}`;
    const stored = await store.load(key);
    expect(stored).toBeDefined();
    await store.save(key, { ...stored!, state });
    const written = await store.load(key);
    expect(written?.state).toBe(state);
    return written!;
  };

  const expectUnknownState = (result: CallToolResult, tool: string, state: string) => {
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toMatchObject({ code: 'UNKNOWN_STATE', tool, machine: 'payment', state });
    expect(textOf(result)).toMatch(/^UNKNOWN_STATE: /);
    expect(textOf(result)).toContain(`"${state}"`);
  };

  beforeAll(async () => {
    await setup.beforeAll?.();
  });

  afterAll(async () => {
    await setup.afterAll?.();
  });

  beforeEach(async () => {
    clients = [];
    ({ app, store } = await setup.start());
    agent = await connect();
  });

  afterEach(async () => {
    for (const client of clients) {
      await client.close();
    }
    await app.close();
  });

  it.each(['settled', 'captured.pending'])(
    'refuses bound calls and reads of an instance in "%s" with UNKNOWN_STATE, runs nothing, writes nothing',
    async (state) => {
      const log = app.get(HandlerLog);
      const lookups = app.get(PaymentLookupTools);
      const paymentId = await authorize(agent);
      const stranded = await strand(paymentId, state);
      const runsBefore = [...log.runs];

      // Twice each: a refused claim must not leave the instance held (BUSY) either.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        expectUnknownState(await agent.call('payment.capture', { paymentId }), 'payment.capture', state);
        expectUnknownState(await agent.call('payment.refund', { paymentId }), 'payment.refund', state);
        expectUnknownState(await agent.call('payment.receipt', { paymentId }), 'payment.receipt', state);
        expectUnknownState(await agent.call('payment.lookup', { paymentId }), 'payment.lookup', state);
      }
      expect(log.runs).toEqual(runsBefore);
      expect(lookups.runs).toEqual([]);
      expect(await store.load(`payment:${paymentId}`)).toEqual(stranded);

      // Another session, with the handle passed to it, is refused the same way.
      const other = await connect();
      expectUnknownState(await other.call('payment.capture', { paymentId }), 'payment.capture', state);
      expectUnknownState(await other.call('payment.lookup', { paymentId }), 'payment.lookup', state);
      expect(await store.load(`payment:${paymentId}`)).toEqual(stranded);
    },
  );

  it("tools/list still answers and shows none of the instance's bound tools; the other instances keep working", async () => {
    const fresh = sorted(await (await connect()).names());
    expect(fresh).toEqual(expect.arrayContaining(['payment.authorize', 'payment.lookup']));
    expect(fresh).not.toContain('payment.capture');

    const stray = await authorize(agent);
    const kept = await authorize(agent);
    expect((await agent.call('payment.capture', { paymentId: kept })).isError).toBeFalsy();
    expect(sorted(await agent.names())).toEqual(sorted([...fresh, 'payment.capture', 'payment.void', 'payment.receipt', 'payment.refund']));

    await strand(stray, 'settled');
    // The stray instance (authorized before) adds nothing: no capture or void; the captured one still adds its tools.
    expect(sorted(await agent.names())).toEqual(sorted([...fresh, 'payment.receipt', 'payment.refund']));

    // A session whose only instance is stray lists exactly what a fresh session lists.
    const other = await connect();
    const alone = await authorize(other);
    expect(await other.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.void']));
    await strand(alone, 'review.pending');
    expect(sorted(await other.names())).toEqual(fresh);

    // The other instances keep working, for both sessions.
    const refunded = await agent.call('payment.refund', { paymentId: kept });
    expect(refunded.isError).toBeFalsy();
    expect((await store.load(`payment:${kept}`))?.state).toBe('refunded');
    const next = await authorize(other);
    const captured = await other.call('payment.capture', { paymentId: next });
    expect(captured.isError).toBeFalsy();
    expect((await store.load(`payment:${next}`))?.state).toBe('captured');
    expect(sorted(await other.names())).toEqual(sorted([...fresh, 'payment.receipt', 'payment.refund']));
    expect(sorted(await agent.names())).toEqual(fresh);
  });
});
