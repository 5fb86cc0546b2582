import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import type { McpDecider, WorkflowSnapshot } from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { createWorkflowAttemptDetailsMigration, createWorkflowAttemptMigration, TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { PayoutLog, payoutModule } from '../fixtures/payout-approval.app.js';
import { uniqueSuffix } from './databases.js';
import { createStoreTables, dropStoreTables } from './store-tables.js';

/** The store of the payout app: SQLite through TypeORM, whose next `failLoads` reads (`load`) fail as a dropped connection would; claims and commits never do. */
export class ReadFaultStore extends TypeOrmFsmStateStore {
  failLoads = 0;

  override load(key: string): Promise<WorkflowSnapshot | undefined> {
    if (this.failLoads > 0) {
      this.failLoads -= 1;
      return Promise.reject(new Error('read failed: connection dropped'));
    }
    return super.load(key);
  }
}

/** What the refusal of a tool call says in `_meta`. */
export type Refusal = { code: string; state?: string | null; waitingRequestId?: string; tool?: string };

/** The refusal of a tool result, if it is one. */
export const refusalOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as Refusal | undefined;

/** The text of a tool result. */
export const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** A person as the app's own code knows them (a console): principal, scopes and (with `org`) the team claim. */
export const person = (clientId: string, scopes: string[] = [], org?: string): McpDecider => ({
  authInfo: { token: '', clientId, scopes, extra: { claims: org === undefined ? {} : { org } } },
});

/** One connected caller of the payout app. */
export interface PayoutAgent {
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  names: () => Promise<string[]>;
}

/** Everything the attack suites read of one payout: its row, its history and its attempts (the store's own readers). */
export interface PayoutRecords {
  row: WorkflowSnapshot | undefined;
  history: Awaited<ReturnType<TypeOrmFsmStateStore['history']>>;
  attempts: Awaited<ReturnType<TypeOrmFsmStateStore['recentAttempts']>>;
}

/**
 * The payout app (test/fixtures/payout-approval.app.ts) on SQLite through the shipped migrations,
 * history, attempts, timers and receipts kept, rebuilt for every test: its hooks are registered where this
 * is called. `stop()` closes the app early (its attempt writes are flushed then).
 */
export function payoutBed() {
  const suffix = `pay_${uniqueSuffix()}`;
  const tables = {
    tableName: `pay_state_${suffix}`,
    historyTableName: `pay_history_${suffix}`,
    timerTableName: `pay_timer_${suffix}`,
    attemptTableName: `pay_attempt_${suffix}`,
    // A task's call carries an idempotency key (its task's id): its commit writes a receipt.
    receiptTableName: `pay_receipt_${suffix}`,
  };
  const attemptTable = [new (createWorkflowAttemptMigration(tables))(), new (createWorkflowAttemptDetailsMigration(tables))()];
  const bed = {
    dataSource: undefined as unknown as DataSource,
    store: undefined as unknown as ReadFaultStore,
    app: undefined as unknown as INestApplication,
    log: undefined as unknown as PayoutLog,
    clients: [] as Client[],
    closed: false,
  };

  beforeAll(async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'mcp-fsm-payout-')), 'payout.sqlite');
    bed.dataSource = await new DataSource({ type: 'better-sqlite3', database }).initialize();
    await createStoreTables(bed.dataSource, tables);
    const runner = bed.dataSource.createQueryRunner();
    try {
      for (const migration of attemptTable) await migration.up(runner);
    } finally {
      await runner.release();
    }
  });

  afterAll(async () => {
    const runner = bed.dataSource.createQueryRunner();
    try {
      for (const migration of [...attemptTable].reverse()) await migration.down(runner);
    } finally {
      await runner.release();
    }
    await dropStoreTables(bed.dataSource, tables);
    await bed.dataSource.destroy();
  });

  beforeEach(async () => {
    bed.store = new ReadFaultStore(bed.dataSource, { ...tables, history: true, attempts: true });
    const moduleRef = await Test.createTestingModule({ imports: [payoutModule(bed.store)] }).compile();
    bed.app = moduleRef.createNestApplication();
    await bed.app.init();
    bed.log = bed.app.get(PayoutLog);
    bed.clients = [];
    bed.closed = false;
  });

  afterEach(() => stop());

  /** Closes the clients and the app, once; the attempt writes in flight are done when it resolves. */
  async function stop(): Promise<void> {
    if (bed.closed) return;
    bed.closed = true;
    await Promise.all(bed.clients.map((client) => client.close()));
    await bed.app.close();
  }

  /** A caller of principal `clientId` (none: anonymous) holding `scopes`, of team `org` (none: no team), on an MCP session of its own. */
  async function connect(clientId: string | undefined, scopes: string[] = [], org?: string, claims: Record<string, unknown> = {}) {
    const extra = { claims: { ...claims, ...(org === undefined ? {} : { org }) } };
    const client = await createMcpTestClient(bed.app, clientId === undefined ? {} : { auth: { clientId, scopes, extra } });
    bed.clients.push(client);
    const agent: PayoutAgent = {
      client,
      call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
      names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    };
    return agent;
  }

  /** A payout opened by `agent`, with a payment of `amount` waiting for a second person: its id and the request's. */
  async function waiting(agent: PayoutAgent, amount = 50) {
    const { payoutId } = (await agent.call('payout.open')).structuredContent as { payoutId: string };
    const parked = await agent.call('payout.pay', { payoutId, amount });
    expect(parked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'awaiting' });
    return { payoutId, requestId: (parked.structuredContent as { requestId: string }).requestId };
  }

  /** What the store holds of payout `payoutId`. */
  async function records(payoutId: string): Promise<PayoutRecords> {
    const key = `payout:${payoutId}`;
    return { row: await bed.store.load(key), history: await bed.store.history(key), attempts: await bed.store.recentAttempts(key, 100) };
  }

  return { bed, stop, connect, waiting, records };
}
