import { randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { WorkflowSnapshot } from '../../lib/stores/fsm-state-store.interface.js';
import {
  TypeOrmFsmStateStore,
  createWorkflowApprovalMigration,
  createWorkflowContextMigration,
  createWorkflowEventMigration,
  createWorkflowStateMigration,
  createWorkflowTeamMigration,
} from '../../lib/typeorm.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';

/**
 * Upgrading from 0.3: tables made by the 0.3 migrations, holding rows 0.3 wrote (no team), get
 * the `team` column from `AddMcpFsmTeam1766016000000`; those rows keep their owner rule. The
 * receipt table of outside events (`CreateMcpFsmEvent1766620800000`) comes beside them.
 */
describe.each(databaseTargets('Store migration 0.3 → 0.4'))('$name: AddMcpFsmTeam on 0.3 tables', (target: DatabaseTarget) => {
  const prefix = `fsm_team_${uniqueSuffix()}_${randomUUID().slice(0, 6)}`;
  const tables = { tableName: `${prefix}_state`, historyTableName: `${prefix}_transition`, eventTableName: `${prefix}_event` };
  const migrationsTableName = `${prefix}_migrations`;
  let dataSource: DataSource | undefined;

  const open = async (migrations: DataSourceOptions['migrations']): Promise<DataSource> => {
    dataSource = new DataSource({ ...target.options(), migrations, migrationsTableName } as DataSourceOptions);
    return dataSource.initialize();
  };
  const postgres = target.options().type === 'postgres';
  const quote = (name: string) => (postgres ? `"${name}"` : `\`${name}\``);
  const placeholders = (count: number) => Array.from({ length: count }, (_, i) => (postgres ? `$${i + 1}` : '?')).join(', ');
  const claim = (key: string, owner: string, team?: string) => ({
    key,
    allowedStates: ['draft'],
    owner,
    ...(team === undefined ? {} : { team }),
    token: randomUUID(),
    leaseMs: 60_000,
  });

  afterAll(async () => {
    if (!dataSource?.isInitialized) return;
    const runner = dataSource.createQueryRunner();
    try {
      for (const table of [tables.eventTableName, tables.historyTableName, tables.tableName, migrationsTableName]) {
        await runner.dropTable(table, true);
      }
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
  }, 60_000);

  it('keeps 0.3 rows their owner’s, opens rows with a team to it, refuses to start without the migration, and rolls back', async () => {
    const v03 = await open([createWorkflowStateMigration(tables), createWorkflowContextMigration(tables)]);
    await v03.runMigrations();
    const old = `payment:${randomUUID()}`;
    // The INSERT of 0.3's store, verbatim: 0.3 had no team column.
    await v03.query(
      `INSERT INTO ${quote(tables.tableName)} (handle, machine, state, context, owner, lease_token, lease_until, created_at, updated_at) VALUES (${placeholders(9)})`,
      [old, 'payment', 'draft', null, 'alice', null, null, Date.now(), Date.parse('2026-11-30T10:00:00.000Z')],
    );
    await expect(new TypeOrmFsmStateStore(v03, tables).onApplicationBootstrap()).rejects.toThrow(
      /Run its migrations: CreateMcpFsmState1764460800000, then AddMcpFsmContext1764547200000, AddMcpFsmTeam1766016000000 and AddMcpFsmApprovals1766102400000/,
    );
    await expect(new TypeOrmFsmStateStore(v03, tables).assertEventSchema()).rejects.toThrow(
      'Run its migration: CreateMcpFsmEvent1766620800000',
    );
    await v03.destroy();

    const v04 = await open([
      createWorkflowStateMigration(tables),
      createWorkflowContextMigration(tables),
      createWorkflowTeamMigration(tables),
      createWorkflowApprovalMigration(tables),
      createWorkflowEventMigration(tables),
    ]);
    expect((await v04.runMigrations()).map((migration) => migration.name)).toEqual([
      'AddMcpFsmTeam1766016000000',
      'AddMcpFsmApprovals1766102400000',
      'CreateMcpFsmEvent1766620800000',
    ]);
    const store = new TypeOrmFsmStateStore(v04, tables);
    await store.onApplicationBootstrap();
    await store.assertEventSchema();
    const oldSnapshot: WorkflowSnapshot = { state: 'draft', owner: 'alice', updatedAt: '2026-11-30T10:00:00.000Z' };
    expect(await store.load(old)).toStrictEqual(oldSnapshot);
    expect(await store.claim(claim(old, 'bob', 'acme'))).toEqual({ status: 'unknown' });
    const alice = claim(old, 'alice', 'acme');
    expect(await store.claim(alice)).toStrictEqual({ status: 'claimed', snapshot: oldSnapshot });
    const receipt = { idempotencyKey: 'evt_1', machine: 'payment', event: 'VOID', actor: 'psp' };
    const updatedAt = new Date().toISOString();
    expect(await store.commit(old, alice.token, { snapshot: { ...oldSnapshot, updatedAt }, event: receipt })).toBe(true);
    expect(await store.load(old)).not.toHaveProperty('team');
    expect(await store.hasEvent(old, 'evt_1')).toBe(true);

    const fresh = `payment:${randomUUID()}`;
    const teamSnapshot: WorkflowSnapshot = { state: 'draft', owner: 'alice', team: 'acme', updatedAt: new Date().toISOString() };
    await store.create(fresh, teamSnapshot);
    expect(await store.claim(claim(fresh, 'eve', 'globex'))).toEqual({ status: 'unknown' });
    expect(await store.claim(claim(fresh, 'bob', 'acme'))).toStrictEqual({ status: 'claimed', snapshot: teamSnapshot });

    // Undone in reverse: the receipt table, the approvals' columns, then the team's.
    await v04.undoLastMigration();
    await expect(store.hasEvent(old, 'evt_1')).rejects.toThrow();
    await v04.undoLastMigration();
    await v04.undoLastMigration();
    const rows = await v04.query(`SELECT * FROM ${quote(tables.tableName)} WHERE handle = ${placeholders(1)}`, [old]);
    expect(Object.keys(rows[0])).not.toContain('team');
    expect(rows[0].owner).toBe('alice');
  }, 60_000);
});
