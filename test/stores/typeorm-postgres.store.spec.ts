import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  AddMcpFsmApprovals1766102400000,
  AddMcpFsmContext1764547200000,
  AddMcpFsmTeam1766016000000,
  CreateMcpFsmState1764460800000,
  TypeOrmFsmStateStore,
} from '../../lib/typeorm.js';
import { TypeOrmTestDatabase, describeTypeOrmStore } from './typeorm-store.fixture.js';

const url = process.env.TEST_POSTGRES_URL;
if (!url) {
  // Written to stderr: Jest drops console output of a suite whose tests are all skipped.
  process.stderr.write(
    `\nSKIPPED: TypeOrmFsmStateStore on PostgreSQL — TEST_POSTGRES_URL is not set (for example postgres://postgres@127.0.0.1:5432/test).\n\n`,
  );
}

(url ? describe : describe.skip)('TypeOrmFsmStateStore on PostgreSQL', () => {
  const applicationName = `fsm-store-spec-${randomUUID()}`;
  const database = new TypeOrmTestDatabase({ type: 'postgres', url, applicationName });

  describeTypeOrmStore('PostgreSQL', database, {
    claimWithContext: 1,
    claimAnyState: 1,
    commitWithHistory: 1,
    transactionBegin: 2,
    transactionCommitWithHistory: 2,
  });

  it('throws while its connections are gone and works again without a restart', async () => {
    const store = new TypeOrmFsmStateStore(database.dataSource, database.tables);
    const handle = `invoice:${randomUUID()}`;
    await store.create(handle, { state: 'draft', updatedAt: new Date().toISOString() });
    const admin = new DataSource({ type: 'postgres', url });
    await admin.initialize();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    } finally {
      await admin.destroy();
    }
    const failures: unknown[] = [];
    let state: string | undefined;
    for (let attempt = 0; attempt < 20 && state === undefined; attempt++) {
      try {
        state = (await store.load(handle))?.state ?? 'missing';
      } catch (error) {
        failures.push(error);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    expect(state).toBe('draft');
    expect(failures.every((failure) => failure instanceof Error)).toBe(true);
  });

  it("uses the tables its migrations created in the DataSource's schema", async () => {
    const schema = `fsm_schema_${randomUUID().slice(0, 8)}`;
    const admin = new DataSource({ type: 'postgres', url });
    await admin.initialize();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const dataSource = new DataSource({
      type: 'postgres',
      url,
      schema,
      migrations: [
        CreateMcpFsmState1764460800000,
        AddMcpFsmContext1764547200000,
        AddMcpFsmTeam1766016000000,
        AddMcpFsmApprovals1766102400000,
      ],
      migrationsRun: true,
    });
    try {
      await dataSource.initialize();
      const store = new TypeOrmFsmStateStore(dataSource);
      await store.onApplicationBootstrap();
      const handle = `invoice:${randomUUID()}`;
      await store.create(handle, { state: 'draft', updatedAt: new Date().toISOString() });
      const claimed = await store.claim({ key: handle, allowedStates: ['draft'], token: 't', leaseMs: 5_000 });
      expect(claimed).toMatchObject({ status: 'claimed', snapshot: { state: 'draft' } });
      expect(await store.commit(handle, 't', { snapshot: { state: 'review', updatedAt: new Date().toISOString() } })).toBe(true);
      const rows = (await admin.query(`SELECT state FROM ${schema}.mcp_fsm_state WHERE handle = $1`, [handle])) as { state: string }[];
      expect(rows).toEqual([{ state: 'review' }]);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.destroy();
    }
  });
});
