import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TypeOrmTestDatabase, describeTypeOrmStore } from './typeorm-store.fixture.js';

describe('TypeOrmFsmStateStore on SQLite (better-sqlite3)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'fsm-sqlite-'));
  const database = new TypeOrmTestDatabase({
    type: 'better-sqlite3',
    database: join(directory, 'store.sqlite'),
    enableWAL: true,
  });

  describeTypeOrmStore('SQLite', database, {
    claimWithContext: 1,
    claimAnyState: 1,
    commitWithHistory: 4,
    transactionBegin: 1,
    transactionCommitWithHistory: 3,
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
});
