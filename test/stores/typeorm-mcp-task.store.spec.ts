import { randomBytes } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { CreateMcpTasks1766448000000, createMcpTaskMigration } from '../../lib/stores/typeorm/mcp-task.migration.js';
import { TypeOrmMcpTaskStore } from '../../lib/stores/typeorm/typeorm-mcp-task.store.js';
import { describeMcpTaskStoreContract, taskRecord } from '../../lib/testing.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';

/** Round trips of an update that applies (MySQL/MariaDB have no `UPDATE … RETURNING`: they read the row back). */
const updateRoundTrips: Record<string, number> = { SQLite: 1, PostgreSQL: 1, MariaDB: 2 };

describe.each(databaseTargets('TypeOrmMcpTaskStore'))('TypeOrmMcpTaskStore on $name', (target: DatabaseTarget) => {
  const tableName = `mcp_task_${uniqueSuffix()}_${randomBytes(3).toString('hex')}`;
  const migrationsTableName = `${tableName}_migrations`;
  const logger = new CountingLogger();
  let dataSource: DataSource;
  let peerSource: DataSource;

  beforeAll(async () => {
    dataSource = await openMigrated(
      { ...target.options(), logger } as DataSourceOptions,
      [createMcpTaskMigration({ tableName })],
      migrationsTableName,
    );
    // A second DataSource stands for another process on the same database.
    peerSource = await new DataSource(target.options()).initialize();
  }, 60_000);

  afterAll(async () => {
    await peerSource.destroy();
    await dropMigrated(dataSource);
  }, 60_000);

  describeMcpTaskStoreContract(target.name, async () => ({
    store: new TypeOrmMcpTaskStore(dataSource, { tableName }),
    peer: new TypeOrmMcpTaskStore(peerSource, { tableName }),
    cleanup: async () => undefined,
  }));

  it('takes one round trip per operation (an update on MariaDB: two)', async () => {
    const store = new TypeOrmMcpTaskStore(dataSource, { tableName });
    const record = taskRecord('carol', 1_000);
    expect(await logger.during(() => store.create(record))).toHaveLength(1);
    expect(await logger.during(() => store.find(record.taskId))).toHaveLength(1);
    expect(
      await logger.during(() => store.update(record.taskId, { status: 'completed', result: { content: [] } }, ['working'], 1_500)),
    ).toHaveLength(updateRoundTrips[target.name]);
    expect(await logger.during(() => store.list('carol', 1_500, 10))).toHaveLength(1);
    expect(await logger.during(() => store.sweep(1_500, 10))).toHaveLength(1);
  });

  it('fails the bootstrap naming the migration when the table is missing', async () => {
    const missing = `mcp_task_missing_${randomBytes(3).toString('hex')}`;
    const store = new TypeOrmMcpTaskStore(dataSource, { tableName: missing });
    const error = await store.onApplicationBootstrap().catch((caught: Error) => caught);
    expect((error as Error).message).toContain('CreateMcpTasks1766448000000');
    expect((error as Error).message).toContain(missing);
  });

  it('ships the migration under its fixed name, with the default table', () => {
    expect(new CreateMcpTasks1766448000000().name).toBe('CreateMcpTasks1766448000000');
  });
});
