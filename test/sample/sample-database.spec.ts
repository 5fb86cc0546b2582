import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { sampleDataSourceOptions } from '../../sample/database.js';

describe("the sample's database options", () => {
  const dir = mkdtempSync(join(tmpdir(), 'sample-db-'));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the embedded SQLite in WAL mode with synchronous = NORMAL, and migrates it', async () => {
    const dataSource = new DataSource(sampleDataSourceOptions({ SAMPLE_DB: join(dir, 'sample.sqlite') }));
    await dataSource.initialize();
    try {
      expect(await dataSource.query('PRAGMA journal_mode')).toEqual([{ journal_mode: 'wal' }]);
      expect(await dataSource.query('PRAGMA synchronous')).toEqual([{ synchronous: 1 }]);
      const tables = (await dataSource.query("SELECT name FROM sqlite_master WHERE type = 'table'")) as { name: string }[];
      expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['mcp_fsm_state', 'sample_ledger']));
    } finally {
      await dataSource.destroy();
    }
  });

  it('picks PostgreSQL or MySQL from DATABASE_URL, and refuses other schemes', () => {
    expect(sampleDataSourceOptions({ DATABASE_URL: 'postgres://u@h/db' }).type).toBe('postgres');
    expect(sampleDataSourceOptions({ DATABASE_URL: 'mariadb://u@h/db' })).toMatchObject({ type: 'mysql', url: 'mysql://u@h/db' });
    expect(() => sampleDataSourceOptions({ DATABASE_URL: 'redis://h' })).toThrow('DATABASE_URL: unsupported scheme "redis:"');
  });
});
