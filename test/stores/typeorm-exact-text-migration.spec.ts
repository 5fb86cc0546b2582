import { randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions, type MigrationInterface } from 'typeorm';
import type { WorkflowAttemptRecord } from '../../lib/stores/workflow-attempt.interface.js';
import { collateTextColumns, PAD_SPACE_COLLATION } from '../../lib/stores/typeorm/mysql-text-collation.js';
import {
  TypeOrmFsmStateStore,
  TypeOrmMcpTaskStore,
  createExactTextMigration,
  createMcpSessionHandleMigration,
  createMcpSessionMigration,
  createMcpTaskMigration,
  createWorkflowApprovalMigration,
  createWorkflowAttemptDetailsMigration,
  createWorkflowAttemptMigration,
  createWorkflowContextMigration,
  createWorkflowEventMigration,
  createWorkflowListIndexMigration,
  createWorkflowStateMigration,
  createWorkflowTeamMigration,
  createWorkflowTimerMigration,
} from '../../lib/typeorm.js';
import { taskRecord } from '../../lib/testing.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';

type Migration = new () => MigrationInterface;

/** The tables of one test database, by what they hold. */
function tablesOf(prefix: string) {
  return {
    tableName: `${prefix}_state`,
    historyTableName: `${prefix}_transition`,
    attemptTableName: `${prefix}_attempt`,
    timerTableName: `${prefix}_timer`,
    eventTableName: `${prefix}_event`,
    session: `${prefix}_session`,
    sessionEvent: `${prefix}_session_event`,
    sessionHandle: `${prefix}_session_handle`,
    task: `${prefix}_task`,
  };
}
type Tables = ReturnType<typeof tablesOf>;

/** What 0.4 shipped, for `tables`. */
const migrations04 = (tables: Tables): Migration[] => [
  createWorkflowStateMigration(tables),
  createWorkflowContextMigration(tables),
  createWorkflowListIndexMigration(tables),
  createWorkflowAttemptMigration(tables),
  createWorkflowTeamMigration(tables),
  createWorkflowApprovalMigration(tables),
  createWorkflowTimerMigration(tables),
  createWorkflowEventMigration(tables),
  createMcpSessionMigration({ tableName: tables.session, eventTableName: tables.sessionEvent }),
  createMcpSessionHandleMigration({ handleTableName: tables.sessionHandle }),
  createMcpTaskMigration({ tableName: tables.task }),
];

/** What 0.5 adds (this engineer's part). */
const migrations05 = (tables: Tables): Migration[] => [
  createExactTextMigration({ tableNames: Object.values(tables) }),
  createWorkflowAttemptDetailsMigration(tables),
];

/**
 * Upgrading from 0.4: tables as 0.4's migrations made them (on MariaDB their text `utf8mb4_bin`,
 * which ignores trailing spaces), holding rows 0.4 wrote, get exact text and the attempt details;
 * they end in the same schema as a database made by 0.5, the 0.4 rows keep working, and a padded
 * principal or team is another one before the migration (the store's SQL) and after it (the columns).
 */
describe.each(databaseTargets('Store migration 0.4 → 0.5'))('$name: the 0.5 migrations on 0.4 tables', (target: DatabaseTarget) => {
  const suffix = `${uniqueSuffix()}_${randomUUID().slice(0, 6)}`;
  const old = tablesOf(`x04_${suffix}`);
  const fresh = tablesOf(`x05_${suffix}`);
  const mysql = ['mysql', 'mariadb'].includes(target.options().type);
  const opened: DataSource[] = [];

  const open = async (migrations: Migration[], migrationsTableName: string): Promise<DataSource> => {
    const dataSource = await new DataSource({ ...target.options(), migrations, migrationsTableName } as DataSourceOptions).initialize();
    opened.push(dataSource);
    return dataSource;
  };
  const quote = (name: string) => (mysql ? `\`${name}\`` : `"${name}"`);
  const placeholders = (count: number) =>
    Array.from({ length: count }, (_, i) => (target.options().type === 'postgres' ? `$${i + 1}` : '?')).join(', ');
  /** The columns and indexes of `table` as TypeORM reads them, in an order that does not depend on how they were added. */
  const schemaOf = async (dataSource: DataSource, table: string) => {
    const runner = dataSource.createQueryRunner();
    try {
      const found = (await runner.getTable(table))!;
      return {
        columns: found.columns
          .map(({ name, type, length, isNullable, isPrimary, collation }) => ({ name, type, length, isNullable, isPrimary, collation }))
          .sort((a, b) => a.name.localeCompare(b.name)),
        indices: found.indices.map((index) => [...index.columnNames].join(',')).sort(),
      };
    } finally {
      await runner.release();
    }
  };
  const claim = (key: string, owner: string, team?: string) => ({
    key,
    allowedStates: ['authorized'],
    owner,
    ...(team === undefined ? {} : { team }),
    token: randomUUID(),
    leaseMs: 60_000,
  });

  afterAll(async () => {
    for (const dataSource of opened.filter((source) => source.isInitialized)) {
      const runner = dataSource.createQueryRunner();
      try {
        for (const table of [
          ...Object.values(old),
          ...Object.values(fresh),
          `${old.tableName}_migrations`,
          `${fresh.tableName}_migrations`,
        ]) {
          await runner.dropTable(table, true);
        }
      } finally {
        await runner.release();
      }
    }
    await Promise.all(opened.filter((source) => source.isInitialized).map((source) => source.destroy()));
  }, 60_000);

  it('keeps 0.4 rows working, compares padded values exactly before and after, ends in the schema of a new database, and rolls back', async () => {
    const v04 = await open(migrations04(old), `${old.tableName}_migrations`);
    await v04.runMigrations();
    // 0.4's migrations made MySQL/MariaDB text utf8mb4_bin (PAD SPACE); today's make it exact.
    if (mysql) {
      const runner = v04.createQueryRunner();
      try {
        for (const table of Object.values(old)) await collateTextColumns(runner, table, PAD_SPACE_COLLATION);
      } finally {
        await runner.release();
      }
    }
    const [solo, acme] = [`payment:${randomUUID()}`, `payment:${randomUUID()}`];
    const at = Date.parse('2026-12-01T10:00:00.000Z');
    // The INSERTs of 0.4's stores, verbatim.
    const insertState = `INSERT INTO ${quote(old.tableName)} (handle, machine, state, context, owner, waiting, team, lease_token, lease_until, created_at, updated_at) VALUES (${placeholders(11)})`;
    await v04.query(insertState, [solo, 'payment', 'authorized', null, 'solo', null, null, null, null, at, at]);
    await v04.query(insertState, [acme, 'payment', 'authorized', null, 'alice', null, 'acme', null, null, at, at]);
    await v04.query(`INSERT INTO ${quote(old.attemptTableName)} (machine, handle, tool, code, principal, at) VALUES (${placeholders(6)})`, [
      'payment',
      solo,
      'payment.refund',
      'FORBIDDEN',
      'solo',
      at,
    ]);
    const soloTask = taskRecord('principal:solo', Date.now());
    const tasks = new TypeOrmMcpTaskStore(v04, { tableName: old.task });
    expect(await tasks.create(soloTask)).toBe(true);

    // Before the migrations: the store's own SQL already compares exactly, and attempts need the details columns.
    const before = new TypeOrmFsmStateStore(v04, old);
    await before.onApplicationBootstrap();
    expect(await before.claim(claim(solo, 'solo '))).toEqual({ status: 'unknown' });
    expect(await before.claim(claim(acme, 'bob', 'acme '))).toEqual({ status: 'unknown' });
    expect(await tasks.list('principal:solo ', Date.now(), 10)).toEqual([]);
    await expect(new TypeOrmFsmStateStore(v04, { ...old, attempts: true }).onApplicationBootstrap()).rejects.toThrow(
      /AddMcpFsmAttemptDetails1766880000000/,
    );
    await v04.destroy();

    const v05 = await open([...migrations04(old), ...migrations05(old)], `${old.tableName}_migrations`);
    expect((await v05.runMigrations()).map((migration) => migration.name)).toEqual([
      'MakeMcpFsmTextExact1766793600000',
      'AddMcpFsmAttemptDetails1766880000000',
    ]);
    const store = new TypeOrmFsmStateStore(v05, { ...old, attempts: true });
    await store.onApplicationBootstrap();
    const [legacy] = await store.recentAttempts(solo, 10);
    expect(legacy).toStrictEqual({
      machine: 'payment',
      key: solo,
      tool: 'payment.refund',
      code: 'FORBIDDEN',
      principal: 'solo',
      at: new Date(at).toISOString(),
    });
    const detailed: WorkflowAttemptRecord = { ...legacy, code: 'BUSY', message: 'BUSY: try again.', args: { paymentId: solo } };
    expect(await store.recordAttempt(detailed, 'solo')).toBe(true);
    expect(await store.recordAttempt({ ...detailed, principal: 'solo ' }, 'solo ')).toBe(false);
    expect(await store.recentAttempts(solo, 10)).toEqual([legacy, detailed]);

    // Padded values are other principals and teams, in the columns themselves now.
    if (mysql) {
      const owners = await v05.query(`SELECT handle FROM ${quote(old.tableName)} WHERE owner = ? OR team = ?`, ['solo ', 'acme ']);
      expect(owners).toEqual([]);
    }
    expect(await store.claim(claim(solo, 'solo '))).toEqual({ status: 'unknown' });
    expect(await store.claim(claim(acme, 'bob', 'acme '))).toEqual({ status: 'unknown' });
    const owner = claim(solo, 'solo');
    expect(await store.claim(owner)).toMatchObject({ status: 'claimed', snapshot: { owner: 'solo' } });
    expect(
      await store.commit(solo, owner.token, { snapshot: { state: 'captured', owner: 'solo', updatedAt: new Date().toISOString() } }),
    ).toBe(true);
    expect(await store.load(solo)).toMatchObject({ state: 'captured', owner: 'solo' });
    expect(await store.claim(claim(acme, 'bob', 'acme'))).toMatchObject({ status: 'claimed', snapshot: { owner: 'alice', team: 'acme' } });
    const migratedTasks = new TypeOrmMcpTaskStore(v05, { tableName: old.task });
    expect((await migratedTasks.list('principal:solo', Date.now(), 10)).map((task) => task.taskId)).toEqual([soloTask.taskId]);
    expect(await migratedTasks.list('principal:solo ', Date.now(), 10)).toEqual([]);

    // A database made by 0.5 has the same tables, column for column.
    const v05new = await open([...migrations04(fresh), ...migrations05(fresh)], `${fresh.tableName}_migrations`);
    await v05new.runMigrations();
    for (const kind of Object.keys(old) as (keyof Tables)[]) {
      expect({ kind, ...(await schemaOf(v05, old[kind])) }).toEqual({ kind, ...(await schemaOf(v05new, fresh[kind])) });
    }

    // Undone in reverse: the details columns go, the text is 0.4's again, the rows stay.
    await v05.undoLastMigration();
    await v05.undoLastMigration();
    const rows = await v05.query(`SELECT * FROM ${quote(old.attemptTableName)} WHERE handle = ${placeholders(1)}`, [solo]);
    expect(Object.keys(rows[0])).not.toContain('message');
    expect(rows).toHaveLength(2);
    if (mysql) {
      const padded = await v05.query(`SELECT handle FROM ${quote(old.tableName)} WHERE owner = ?`, ['solo ']);
      expect(padded).toEqual([{ handle: solo }]);
    }
  }, 120_000);
});
