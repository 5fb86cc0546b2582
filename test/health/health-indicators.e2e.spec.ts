import { Controller, Get, Injectable, type INestApplication, Module, type DynamicModule, type Provider } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import {
  defineMachine,
  InMemoryFsmStateStore,
  McpHealthService,
  McpModule,
  type McpModuleOptions,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  type WorkflowSnapshot,
  type FsmStateStore,
} from '../../lib/index.js';
import { McpDeadline } from '../../lib/extend.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { eventually } from '../utils/http-client.js';
import { McpDeadlineHealthIndicator, McpRelayHealthIndicator, McpStoreHealthIndicator } from '../../lib/terminus.js';
import { PostgresTransitionRelay, TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { HealthController } from '../../sample/health.controller.js';
import { invoiceMachine } from '../fixtures/billing.machines.js';
import { uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { getHealth } from '../utils/health-check.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';
import { listenApp } from '../utils/test-app.js';

const STORE_TIMEOUT_MS = 1000;
/** Scheduling slack on a loaded 2-core machine, on top of the bound the store promises. */
const SLACK_MS = 1500;

/** What a readiness probe that takes a replica with a lost relay out reads (the sample's controller serves `/health`). */
@Controller('health/strict')
class StrictHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly relay: McpRelayHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.relay.isHealthy('transitionRelay', { whenDisconnected: 'down' })]);
  }
}

/** An app with McpModule on `options` and the health controller of the sample (an app's own, written with the indicators). */
function healthApp(options: Partial<McpModuleOptions>, extraProviders: Provider[] = []): DynamicModule {
  @Module({})
  class HealthAppModule {}
  return {
    module: HealthAppModule,
    imports: [McpModule.forRoot({ name: 'health', version: '1.0.0', machines: [invoiceMachine], ...options }), TerminusModule.forRoot()],
    controllers: [HealthController, StrictHealthController],
    providers: [McpStoreHealthIndicator, McpRelayHealthIndicator, McpDeadlineHealthIndicator, ...extraProviders],
  };
}

/** `GET path` of the app. */
function healthOf(app: INestApplication, path = '/health') {
  const { port } = app.getHttpServer().address() as { port: number };
  return getHealth(new URL(`http://127.0.0.1:${port}${path}`));
}

/** A plain load/save store whose calls never answer while `hung`. */
class HangingStore implements FsmStateStore {
  hung = false;
  private readonly rows = new Map<string, WorkflowSnapshot>();
  load(key: string): Promise<WorkflowSnapshot | undefined> {
    return this.hung ? new Promise(() => undefined) : Promise.resolve(this.rows.get(key));
  }
  async save(key: string, snapshot: WorkflowSnapshot): Promise<void> {
    this.rows.set(key, snapshot);
  }
}

/** An in-memory store whose timer claims fail while `failing` (the deadline scheduler's polls), everything else working. */
class FlakyTimerStore extends InMemoryFsmStateStore {
  failing = false;
  override async claimDueTimers(request: Parameters<InMemoryFsmStateStore['claimDueTimers']>[0]) {
    if (this.failing) throw new Error('timers unreachable');
    return super.claimDueTimers(request);
  }
}

/** A machine whose only state lapses 10 ms after it is entered. */
const lapseMachine = defineMachine(
  { id: 'lapse', initial: 'open', states: { open: { after: { 10: 'lapsed' } }, lapsed: {} } },
  { stateHandleKey: 'lapseId' },
);

/** The lapse's effect, which always fails: the timer is given up. */
@Injectable()
class LapseEffect {
  @McpDeadline(lapseMachine, 'open')
  lapse(): void {
    throw new Error('the lapse cannot be recorded');
  }
}

/** Starts a lapse. */
@McpWorkflow(lapseMachine)
@Injectable()
class LapseTools {
  @McpTool({ name: 'lapse.open', description: 'Open a lapse' })
  @McpStartWorkflow(lapseMachine)
  open() {
    return { opened: true };
  }
}

describe('health indicators (nestjs-mcp-fsm/terminus) in an app health controller', () => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('reports the in-memory store up and no relay as up (not configured)', async () => {
    app = await listenApp([healthApp({})]);
    const { status, body } = await healthOf(app);
    expect(status).toBe(200);
    expect(body.details).toEqual({
      workflowStore: { status: 'up', store: 'InMemoryFsmStateStore', responseTimeMs: expect.any(Number) },
      transitionRelay: { status: 'up', configured: false, message: expect.stringContaining('no transition relay') },
      deadlines: { status: 'up', active: false, failedPolls: 0, gaveUp: 0, message: expect.stringContaining('no deadlines') },
    });
  });

  it('reports the deadline scheduler down once its polls keep failing, up again after one succeeds, and counts timers given up', async () => {
    const store = new FlakyTimerStore({ history: true });
    app = await listenApp([
      healthApp({ machines: [lapseMachine], store, gate: { deadlines: { pollMs: 20, maxAttempts: 1 } } }, [LapseEffect, LapseTools]),
    ]);
    const health = app.get(McpHealthService);
    await eventually(() => health.checkDeadlines().lastPollAt !== undefined, 3_000);
    expect((await healthOf(app)).body.details.deadlines).toEqual({
      status: 'up',
      active: true,
      lastPollAt: expect.any(String),
      failedPolls: 0,
      gaveUp: 0,
    });

    // A timer whose effect always fails is given up after maxAttempts (1): counted, still up.
    const client = await createMcpTestClient(app);
    await client.callTool({ name: 'lapse.open', arguments: {} });
    await client.close();
    await eventually(() => health.checkDeadlines().gaveUp === 1, 3_000);
    expect((await healthOf(app)).status).toBe(200);

    store.failing = true;
    await eventually(() => !health.checkDeadlines().up, 5_000);
    const down = await healthOf(app);
    expect(down.status).toBe(503);
    expect(down.body.error?.deadlines).toMatchObject({
      status: 'down',
      active: true,
      failingSince: expect.any(String),
      failedPolls: 5,
      gaveUp: 1,
      message: expect.stringMatching(/^5 polls for due timers failed in a row since .+: due deadlines do not fire \(timers unreachable\)$/),
    });
    expect(down.body.details.workflowStore.status).toBe('up');

    store.failing = false;
    await eventually(() => health.checkDeadlines().up, 5_000);
    const back = await healthOf(app);
    expect(back.status).toBe(200);
    expect(back.body.details.deadlines).toMatchObject({ status: 'up', failedPolls: 0 });
    expect(back.body.details.deadlines.failingSince).toBeUndefined();
  });

  it('reports a store without ping down when its load hangs, within the check timeout', async () => {
    const store = new HangingStore();
    app = await listenApp([healthApp({ store })]);
    expect((await healthOf(app)).status).toBe(200);
    store.hung = true;
    const health = app.get(McpHealthService);
    const started = Date.now();
    const down = await health.checkStore({ timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
    expect(down).toEqual({
      up: false,
      store: 'HangingStore',
      responseTimeMs: expect.any(Number),
      reason: 'HangingStore did not answer within 300 ms',
    });
  });
});

const postgres = process.env.TEST_POSTGRES_URL;
if (!postgres) console.warn('health indicators on PostgreSQL skipped: TEST_POSTGRES_URL is not set');

(postgres ? describe : describe.skip)('health indicators against PostgreSQL behind a TCP proxy', () => {
  const tables = { tableName: `health_state_${uniqueSuffix()}`, historyTableName: `health_history_${uniqueSuffix()}` };
  const channel = `health_${uniqueSuffix()}`;
  let proxy: TcpProxy;
  let direct: DataSource;
  let proxied: DataSource;
  let app: INestApplication | undefined;

  beforeAll(async () => {
    proxy = await startProxy(postgres!);
    direct = new DataSource({ type: 'postgres', url: postgres });
    proxied = new DataSource({ type: 'postgres', url: proxy.rewrite(postgres!) });
    await Promise.all([direct.initialize(), proxied.initialize()]);
    await createStoreTables(direct, tables);
  });

  afterEach(async () => {
    proxy.heal();
    await app?.close();
    app = undefined;
  });

  afterAll(async () => {
    await dropStoreTables(direct, tables);
    await Promise.all([direct.destroy(), proxied.destroy().catch(() => undefined)]);
    await proxy.stop();
  });

  it('turns /health to 503 within the store timeout when the network to the database is cut, and back to 200 when it heals', async () => {
    const store = new TypeOrmFsmStateStore(proxied, { ...tables, timeoutMs: STORE_TIMEOUT_MS });
    app = await listenApp([healthApp({ store })]);
    const up = await healthOf(app);
    expect(up.status).toBe(200);
    expect(up.body.details.workflowStore).toMatchObject({ status: 'up', store: 'TypeOrmFsmStateStore' });

    proxy.partition();
    const down = await healthOf(app);
    expect(down.status).toBe(503);
    expect(down.ms).toBeLessThan(STORE_TIMEOUT_MS + SLACK_MS);
    expect(down.body.status).toBe('error');
    expect(down.body.error?.workflowStore).toMatchObject({
      status: 'down',
      store: 'TypeOrmFsmStateStore',
      message:
        'TypeOrmFsmStateStore cannot serve calls: TypeOrmFsmStateStore: ping did not finish within timeoutMs (1000 ms); its connection is not reused.',
    });

    proxy.heal();
    let healed = await healthOf(app);
    for (let tries = 0; healed.status !== 200 && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      healed = await healthOf(app);
    }
    expect(healed.status).toBe(200);
  });

  it('reports the LISTEN/NOTIFY relay degraded (or down, when asked) while its connection is lost, and up once it listens again', async () => {
    const store = new TypeOrmFsmStateStore(direct, tables);
    const relay = new PostgresTransitionRelay(proxied, { channel, reconnectMs: 200 });
    app = await listenApp([healthApp({ store, transitionRelay: relay })]);
    const up = await healthOf(app);
    expect(up.status).toBe(200);
    expect(up.body.details.transitionRelay).toEqual({ status: 'up', configured: true, relay: 'PostgresTransitionRelay' });

    await proxy.stop();
    let lost = await healthOf(app);
    for (let tries = 0; lost.body.details.transitionRelay.status === 'up' && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lost = await healthOf(app);
    }
    expect(lost.status).toBe(200);
    expect(lost.body.status).toBe('degraded');
    expect(lost.body.details.transitionRelay).toMatchObject({
      status: 'degraded',
      configured: true,
      message: expect.stringContaining('connection lost'),
    });
    expect(lost.body.details.workflowStore.status).toBe('up');
    const strict = await healthOf(app, '/health/strict');
    expect(strict.status).toBe(503);
    expect(strict.body.error?.transitionRelay.status).toBe('down');

    await proxy.start();
    let back = await healthOf(app);
    for (let tries = 0; back.body.details.transitionRelay.status !== 'up' && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await healthOf(app);
    }
    expect(back.body.details.transitionRelay).toEqual({ status: 'up', configured: true, relay: 'PostgresTransitionRelay' });
    expect((await healthOf(app, '/health/strict')).status).toBe(200);
  });
});
