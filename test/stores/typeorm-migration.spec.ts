import { randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { WorkflowSnapshot } from '../../lib/stores/fsm-state-store.interface.js';
import {
  TypeOrmFsmStateStore,
  createWorkflowApprovalMigration,
  createWorkflowContextMigration,
  createWorkflowStateMigration,
  createWorkflowTeamMigration,
} from '../../lib/typeorm.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';

/**
 * Upgrading from 0.1: tables made by `CreateMcpFsmState1764460800000` alone, holding rows that
 * 0.1 wrote, get the `context` column from `AddMcpFsmContext1764547200000` and keep working.
 */
describe.each(databaseTargets('Store migration 0.1 → 0.2'))('$name: AddMcpFsmContext on 0.1 tables', (target: DatabaseTarget) => {
  const prefix = `fsm_mig_${uniqueSuffix()}_${randomUUID().slice(0, 6)}`;
  const tables = { tableName: `${prefix}_state`, historyTableName: `${prefix}_transition` };
  const migrationsTableName = `${prefix}_migrations`;
  const logger = new CountingLogger();
  let dataSource: DataSource | undefined;

  const open = async (migrations: DataSourceOptions['migrations']): Promise<DataSource> => {
    dataSource = new DataSource({ ...target.options(), logger, migrations, migrationsTableName } as DataSourceOptions);
    return dataSource.initialize();
  };
  const quote = (name: string) => (target.options().type === 'postgres' ? `"${name}"` : `\`${name}\``);
  const placeholders = (count: number) =>
    Array.from({ length: count }, (_, i) => (target.options().type === 'postgres' ? `$${i + 1}` : '?')).join(', ');

  /** The INSERT of 0.1's `TypeOrmFsmStateStore.create`/`claim` (createWith), verbatim: 0.1 had no context column. */
  const insertAs01 = (source: DataSource, handle: string, snapshot: WorkflowSnapshot, lease?: { token: string; until: number }) =>
    source.query(
      `INSERT INTO ${quote(tables.tableName)} (handle, machine, state, owner, lease_token, lease_until, created_at, updated_at) VALUES (${placeholders(8)})`,
      [
        handle,
        handle.slice(0, handle.indexOf(':')),
        snapshot.state,
        snapshot.owner ?? null,
        lease?.token ?? null,
        lease?.until ?? null,
        Date.now(),
        Date.parse(snapshot.updatedAt),
      ],
    );

  afterAll(async () => {
    if (!dataSource?.isInitialized) return;
    const runner = dataSource.createQueryRunner();
    try {
      for (const table of [tables.historyTableName, tables.tableName, migrationsTableName]) await runner.dropTable(table, true);
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
  }, 60_000);

  it('loads and claims 0.1 rows after the migration, round-trips contexts written afterwards, and rolls back', async () => {
    const v01 = await open([createWorkflowStateMigration(tables)]);
    expect((await v01.runMigrations()).map((migration) => migration.name)).toEqual(['CreateMcpFsmState1764460800000']);
    const owned = `invoice:${randomUUID()}`;
    const crashed = `invoice:session:${randomUUID()}`;
    const ownedSnapshot: WorkflowSnapshot = { state: 'review.legal', owner: 'alice', updatedAt: '2025-11-30T10:00:00.000Z' };
    const crashedSnapshot: WorkflowSnapshot = { state: 'draft', updatedAt: '2025-11-30T11:00:00.000Z' };
    await insertAs01(v01, owned, ownedSnapshot);
    await insertAs01(v01, crashed, crashedSnapshot, { token: randomUUID(), until: Date.now() - 1_000 });
    // An app upgraded without the new migration fails at bootstrap, naming the migrations to run.
    await expect(new TypeOrmFsmStateStore(v01, tables).onApplicationBootstrap()).rejects.toThrow(
      /is not ready for this version of nestjs-mcp-fsm \(.*\)\. Run its migrations: CreateMcpFsmState1764460800000, then AddMcpFsmContext1764547200000/,
    );
    await v01.destroy();

    // Straight to this version: the team and approval columns (0.4) come with it.
    const v02 = await open([
      createWorkflowStateMigration(tables),
      createWorkflowContextMigration(tables),
      createWorkflowTeamMigration(tables),
      createWorkflowApprovalMigration(tables),
    ]);
    expect((await v02.runMigrations()).map((migration) => migration.name)).toEqual([
      'AddMcpFsmContext1764547200000',
      'AddMcpFsmTeam1766016000000',
      'AddMcpFsmApprovals1766102400000',
    ]);
    const runner = v02.createQueryRunner();
    try {
      const table = (await runner.getTable(tables.tableName))!;
      expect(table.findColumnByName('context')?.isNullable).toBe(true);
      expect(table.findColumnByName('waiting')?.isNullable).toBe(true);
      expect((await runner.getTable(tables.historyTableName))!.findColumnByName('approval')?.isNullable).toBe(true);
      expect(table.primaryColumns.map((column) => column.name)).toEqual(['handle']);
      expect(table.indices.map((index) => index.name)).toContain(`IDX_${tables.tableName}_machine`);
    } finally {
      await runner.release();
    }

    const store = new TypeOrmFsmStateStore(v02, tables);
    await expect(store.onApplicationBootstrap()).resolves.toBeUndefined();
    expect(await store.load(owned)).toStrictEqual(ownedSnapshot);
    expect(await store.loadMany([owned, crashed])).toStrictEqual(
      new Map([
        [owned, ownedSnapshot],
        [crashed, crashedSnapshot],
      ]),
    );
    expect(await store.claim({ key: owned, allowedStates: ['review.legal'], token: 't', leaseMs: 60_000 })).toEqual({
      status: 'unknown',
    });
    const held = { key: owned, allowedStates: ['review.legal'], owner: 'alice', token: randomUUID(), leaseMs: 60_000 };
    let claimed: unknown;
    expect(await logger.during(async () => (claimed = await store.claim(held)))).toHaveLength(1);
    expect(claimed).toStrictEqual({ status: 'claimed', snapshot: ownedSnapshot });
    const large = { total: 3, note: 'ü'.repeat(40_000) };
    const moved: WorkflowSnapshot = { state: 'approved', context: large, owner: 'alice', updatedAt: new Date().toISOString() };
    expect(await store.commit(owned, held.token, { snapshot: moved })).toBe(true);
    expect(await store.load(owned)).toStrictEqual(moved);
    const waiting = {
      requestId: 'r-1',
      tool: 'invoice.pay',
      event: 'PAY',
      input: { amount: 120 },
      requestedBy: 'alice',
      from: { state: 'approved', context: large },
      at: moved.updatedAt,
    };
    const parked: WorkflowSnapshot = { state: 'paying', context: large, owner: 'alice', waiting, updatedAt: new Date().toISOString() };
    const again = { ...held, allowedStates: ['approved'], token: randomUUID() };
    expect(await store.claim(again)).toMatchObject({ status: 'claimed' });
    expect(await store.commit(owned, again.token, { snapshot: parked })).toBe(true);
    expect(await store.load(owned)).toStrictEqual(parked);

    const anyone = { key: crashed, allowedStates: ['draft'], owner: 'bob', token: randomUUID(), leaseMs: 60_000 };
    expect(await store.claim(anyone)).toStrictEqual({ status: 'claimed', snapshot: crashedSnapshot });
    await store.release(crashed, anyone.token);
    const saved: WorkflowSnapshot = { state: 'draft', context: { step: 1 }, updatedAt: new Date().toISOString() };
    await store.save(crashed, saved);
    expect(await store.claim({ key: crashed, token: randomUUID(), leaseMs: 60_000 })).toStrictEqual({
      status: 'claimed',
      snapshot: saved,
    });

    await v02.undoLastMigration();
    await v02.undoLastMigration();
    await v02.undoLastMigration();
    const fresh = `invoice:${randomUUID()}`;
    await insertAs01(v02, fresh, crashedSnapshot);
    const rows = await v02.query(`SELECT * FROM ${quote(tables.tableName)} WHERE handle = ${placeholders(1)}`, [fresh]);
    expect(Object.keys(rows[0]).sort()).toEqual(
      ['created_at', 'handle', 'lease_token', 'lease_until', 'machine', 'owner', 'state', 'updated_at'].sort(),
    );
  }, 60_000);
});
