import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { assign, setup } from 'xstate';
import { z } from 'zod';
import {
  defineMachine,
  InMemoryFsmStateStore,
  McpBindState,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type McpMachineEvent,
} from '../../lib/index.js';
import { WorkflowRefusal } from '../../lib/extend.js';
import { TypeOrmFsmStateStore, type TypeOrmFsmStateStoreOptions } from '../../lib/typeorm.js';
import { invoiceMachine } from '../fixtures/billing.machines.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

/** A parcel: only the carrier may say it was delivered (the guard reads `event.principal`); SCAN stays in `shipped`. */
const parcelMachine = defineMachine(
  setup({
    types: {
      context: {} as { scans: number; depot: string | null },
      events: {} as McpMachineEvent<'SHIP' | 'SCAN' | 'DELIVERED' | 'LOST', { depot?: string }>,
    },
    guards: { byCarrier: ({ event }) => event.principal?.id === 'carrier' },
    actions: { count: assign({ scans: ({ context }) => context.scans + 1, depot: ({ event }) => event.input?.depot ?? null }) },
  }).createMachine({
    id: 'parcel',
    initial: 'new',
    context: { scans: 0, depot: null },
    states: {
      new: { on: { SHIP: 'shipped' } },
      shipped: {
        on: { SCAN: { target: 'shipped', actions: 'count' }, DELIVERED: { guard: 'byCarrier', target: 'delivered' }, LOST: 'lost' },
      },
      delivered: { type: 'final' },
      lost: { type: 'final' },
    },
  }),
  { stateHandleKey: 'parcelId' },
);

@McpWorkflow(parcelMachine)
@Injectable()
class ParcelTools {
  @McpTool({ name: 'parcel.ship', description: 'Ship a parcel.', inputSchema: z.object({}) })
  @McpStartWorkflow(parcelMachine, 'SHIP')
  ship() {
    return { shipped: true };
  }

  @McpTool({ name: 'parcel.lose', description: 'Report the parcel lost.' })
  @McpBindState(parcelMachine, 'shipped', 'LOST')
  lose() {
    return { lost: true };
  }
}

const refusalOf = async (sent: Promise<unknown>): Promise<WorkflowRefusal> => {
  const error = await sent.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WorkflowRefusal);
  return error as WorkflowRefusal;
};

describe('outside events through the gate (McpWorkflowService.send)', () => {
  let app: INestApplication;
  let agent: TestClient;
  let workflows: McpWorkflowService;
  const store = new InMemoryFsmStateStore({ history: true });

  beforeAll(async () => {
    @Module({})
    class ParcelAppModule {}
    app = await listenApp([
      {
        module: ParcelAppModule,
        imports: [McpModule.forRoot({ name: 'parcels', version: '1.0.0', machines: [parcelMachine, invoiceMachine], store })],
        providers: [ParcelTools],
      },
    ]);
    workflows = app.get(McpWorkflowService);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
  });

  const ship = async () => (((await agent.call('parcel.ship', {})).structuredContent ?? {}) as { parcelId: string }).parcelId;
  const key = (parcelId: string) => `parcel:${parcelId}`;
  const parcel = (handle: string) => ({ machine: parcelMachine, handle });

  it('applies the event once per idempotency key: history names the actor, the following session gets list_changed', async () => {
    const parcelId = await ship();
    expect(await agent.names()).toContain('parcel.lose');
    const changes = agent.listChanged();
    const runs: unknown[] = [];
    const run = (ctx: { handle: string; state: string }) => void runs.push({ handle: ctx.handle, state: ctx.state });
    expect(await workflows.send(parcel(parcelId), 'DELIVERED', { actor: 'carrier', idempotencyKey: 'evt_1', run })).toEqual({
      applied: true,
      state: 'delivered',
    });
    expect(runs).toEqual([{ handle: parcelId, state: 'shipped' }]);
    await eventually(() => agent.listChanged() > changes);
    expect(await agent.names()).not.toContain('parcel.lose');
    const history = await store.history(key(parcelId));
    expect(history.at(-1)).toMatchObject({ from: 'shipped', to: 'delivered', event: 'DELIVERED', tool: 'DELIVERED', principal: 'carrier' });

    expect(await workflows.send(parcel(parcelId), 'DELIVERED', { actor: 'carrier', idempotencyKey: 'evt_1', run })).toEqual({
      applied: false,
      state: 'delivered',
    });
    expect(runs).toHaveLength(1);
    expect(await store.history(key(parcelId))).toHaveLength(history.length);
  });

  it('applies a key once even when the state takes the event again, and each new key once', async () => {
    const parcelId = await ship();
    const scan = (idempotencyKey: string) => workflows.send(parcel(parcelId), 'SCAN', { actor: 'depot', idempotencyKey });
    expect(await scan('scan_1')).toEqual({ applied: true, state: 'shipped' });
    expect(await scan('scan_1')).toEqual({ applied: false, state: 'shipped' });
    expect(await scan('scan_2')).toEqual({ applied: true, state: 'shipped' });
    expect((await store.load(key(parcelId)))?.context).toEqual({ scans: 2, depot: null });
  });

  it('refuses an event the state does not take with FORBIDDEN naming the state, and stores nothing', async () => {
    const parcelId = await ship();
    await agent.call('parcel.lose', { parcelId });
    const refusal = await refusalOf(workflows.send(parcel(parcelId), 'DELIVERED', { actor: 'carrier', idempotencyKey: 'late' }));
    expect(refusal.data).toMatchObject({ code: 'FORBIDDEN', machine: 'parcel', state: 'lost', tool: 'DELIVERED' });
    expect(refusal.message).toContain('"lost"');
    expect(await store.hasEvent(key(parcelId), 'late')).toBe(false);
  });

  it("lets the machine's guards judge the actor (event.principal), and refuses unknown handles", async () => {
    const parcelId = await ship();
    const refusal = await refusalOf(workflows.send(parcel(parcelId), 'DELIVERED', { actor: 'neighbour' }));
    expect(refusal.data).toMatchObject({ code: 'GUARD_REJECTED', state: 'shipped' });
    expect((await store.load(key(parcelId)))?.state).toBe('shipped');
    const unknown = await refusalOf(workflows.send(parcel(randomBytes(16).toString('base64url')), 'LOST', { actor: 'carrier' }));
    expect(unknown.data.code).toBe('UNKNOWN_HANDLE');
  });

  it('rolls back an effect that throws: its error reaches the caller, nothing is stored, the key is still unused', async () => {
    const parcelId = await ship();
    const failing = () => {
      throw new Error('the depot is offline');
    };
    await expect(workflows.send(parcel(parcelId), 'LOST', { actor: 'carrier', idempotencyKey: 'k', run: failing })).rejects.toThrow(
      'the depot is offline',
    );
    expect((await store.load(key(parcelId)))?.state).toBe('shipped');
    expect(await workflows.send(parcel(parcelId), 'LOST', { actor: 'carrier', idempotencyKey: 'k' })).toEqual({
      applied: true,
      state: 'lost',
    });
  });

  it('passes { type, input } on as event.input, and names what is wrong with a bad target, event or option', async () => {
    const parcelId = await ship();
    const inputs: unknown[] = [];
    await workflows.send(
      parcel(parcelId),
      { type: 'SCAN', input: { depot: 'north' } },
      { actor: 'depot', run: (ctx) => void inputs.push(ctx.workflowContext.scans) },
    );
    expect(inputs).toEqual([0]);
    expect((await store.load(key(parcelId)))?.context).toEqual({ scans: 1, depot: 'north' });
    await expect(workflows.send({ machine: 'parcel', handle: parcelId }, 'SHIPPED', { actor: 'depot' })).rejects.toThrow(
      'no state of machine "parcel" accepts event "SHIPPED". Its events: SHIP, SCAN, DELIVERED, LOST.',
    );
    await expect(workflows.send({ machine: invoiceMachine, handle: parcelId }, 'SUBMIT', { actor: 'x' })).rejects.toThrow(
      'machine "invoice" is session-keyed',
    );
    await expect(workflows.send({ machine: 'nope', handle: parcelId }, 'X', { actor: 'x' })).rejects.toThrow('runs no machine "nope"');
    await expect(workflows.send(parcel(parcelId), 'SCAN', { actor: '' })).rejects.toThrow('actor must be a non-empty string');
    await expect(workflows.send(parcel(parcelId), 'SCAN', { actor: 'depot', idempotencyKey: 'x'.repeat(256) })).rejects.toThrow(
      'idempotencyKey must be a non-empty string of at most 255 characters, got 256 characters',
    );
  });
});

describeNetworkedTargets('outside events on two apps sharing a database')('outside events on two apps sharing $name', ({ options }) => {
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const ledger = `ev_ledger_${suffix}`;
  const tables: TypeOrmFsmStateStoreOptions = {
    tableName: `ev_state_${suffix}`,
    historyTableName: `ev_transition_${suffix}`,
    eventTableName: `ev_event_${suffix}`,
    history: true,
  };
  let dataSource: DataSource;
  const apps: INestApplication[] = [];
  let agent: TestClient;

  const startApp = async () => {
    @Module({})
    class SharedParcelModule {}
    return listenApp([
      {
        module: SharedParcelModule,
        imports: [
          McpModule.forRoot({
            name: 'parcels',
            version: '1.0.0',
            machines: [parcelMachine],
            store: new TypeOrmFsmStateStore(dataSource, tables),
          }),
        ],
        providers: [ParcelTools],
      },
    ]);
  };

  beforeAll(async () => {
    dataSource = new DataSource(options());
    await dataSource.initialize();
    await createStoreTables(dataSource, tables);
    await dataSource.query(`CREATE TABLE ${ledger} (parcel_id varchar(64) NOT NULL, kind varchar(32) NOT NULL)`);
    apps.push(await startApp(), await startApp());
    agent = await connectClient(await mcpUrl(apps[0]));
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    for (const app of apps) await app.close();
    if (!dataSource?.isInitialized) return;
    await dropStoreTables(dataSource, tables);
    await dataSource.query(`DROP TABLE ${ledger}`);
    await dataSource.destroy();
  }, 60_000);

  const param = (n: number) => (dataSource.options.type === 'postgres' ? `$${n}` : '?');
  const entries = async (parcelId: string) =>
    ((await dataSource.query(`SELECT kind FROM ${ledger} WHERE parcel_id = ${param(1)}`, [parcelId])) as { kind: string }[]).map(
      (row) => row.kind,
    );
  /** Sends LOST from app `index`, writing a ledger row in the transaction that stores the state. */
  const lose = (index: number, parcelId: string, idempotencyKey: string, fail = false) =>
    apps[index].get(McpWorkflowService).send({ machine: parcelMachine, handle: parcelId }, 'LOST', {
      actor: 'carrier',
      idempotencyKey,
      run: async (ctx) => {
        await (ctx.manager as DataSource['manager']).query(`INSERT INTO ${ledger} (parcel_id, kind) VALUES (${param(1)}, ${param(2)})`, [
          ctx.handle,
          'lost',
        ]);
        if (fail) throw new Error('the ledger said no');
      },
    });
  const ship = async () => (((await agent.call('parcel.ship', {})).structuredContent ?? {}) as { parcelId: string }).parcelId;

  it('applies a key once across the apps: the effect writes in the transaction, a replay on the other app changes nothing', async () => {
    const parcelId = await ship();
    expect(await lose(0, parcelId, 'psp_1')).toEqual({ applied: true, state: 'lost' });
    expect(await lose(1, parcelId, 'psp_1')).toEqual({ applied: false, state: 'lost' });
    expect(await entries(parcelId)).toEqual(['lost']);
    const history = await new TypeOrmFsmStateStore(dataSource, tables).history(`parcel:${parcelId}`);
    expect(history.at(-1)).toMatchObject({ from: 'shipped', to: 'lost', principal: 'carrier' });
  });

  it('applies concurrent sends of one key on both apps once (the other answers not applied, or BUSY while the first holds it)', async () => {
    const parcelId = await ship();
    const settled = await Promise.allSettled([lose(0, parcelId, 'psp_2'), lose(1, parcelId, 'psp_2')]);
    const applied = settled.filter((result) => result.status === 'fulfilled' && result.value.applied);
    expect(applied).toHaveLength(1);
    for (const result of settled) {
      if (result.status === 'rejected') expect((result.reason as WorkflowRefusal).data?.code).toBe('BUSY');
    }
    expect(await entries(parcelId)).toEqual(['lost']);
    expect(await lose(1, parcelId, 'psp_2')).toEqual({ applied: false, state: 'lost' });
  });

  it('rolls back the ledger row and the state when the effect throws; the key stays unused', async () => {
    const parcelId = await ship();
    await expect(lose(1, parcelId, 'psp_3', true)).rejects.toThrow('the ledger said no');
    expect(await entries(parcelId)).toEqual([]);
    expect(await lose(0, parcelId, 'psp_3')).toEqual({ applied: true, state: 'lost' });
    expect(await entries(parcelId)).toEqual(['lost']);
  });
});
