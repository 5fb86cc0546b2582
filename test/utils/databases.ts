import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';

/** A database the TypeORM tests run against. */
export interface DatabaseTarget {
  name: string;
  options: (url?: string) => DataSourceOptions;
  /** The server URL of a networked database (absent for SQLite). */
  url?: string;
}

/**
 * SQLite always; PostgreSQL and MariaDB when `TEST_POSTGRES_URL` / `TEST_MYSQL_URL` are set
 * (a warning says which were skipped, so a green run never hides a missing database).
 */
export function databaseTargets(suite: string, { networkedOnly = false } = {}): DatabaseTarget[] {
  const targets: DatabaseTarget[] = [];
  if (!networkedOnly) {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-'));
    targets.push({ name: 'SQLite', options: () => ({ type: 'better-sqlite3', database: join(dir, 'test.sqlite') }) });
  }
  const postgres = process.env.TEST_POSTGRES_URL;
  const mysql = process.env.TEST_MYSQL_URL;
  if (postgres) {
    targets.push({ name: 'PostgreSQL', url: postgres, options: (url = postgres) => ({ type: 'postgres', url }) });
  } else {
    console.warn(`${suite} on PostgreSQL skipped: TEST_POSTGRES_URL is not set`);
  }
  if (mysql) {
    targets.push({ name: 'MariaDB', url: mysql, options: (url = mysql) => ({ type: 'mysql', url }) });
  } else {
    console.warn(`${suite} on MariaDB skipped: TEST_MYSQL_URL is not set`);
  }
  return targets;
}

/**
 * `describe.each` over the networked targets of {@link databaseTargets}; with none set, one
 * skipped block, so the suite still reports itself (skipped) instead of vanishing.
 */
export function describeNetworkedTargets(suite: string) {
  const targets = databaseTargets(suite, { networkedOnly: true });
  return targets.length
    ? describe.each(targets)
    : describe.skip.each<DatabaseTarget>([{ name: 'no server', options: () => ({ type: 'better-sqlite3', database: ':memory:' }) }]);
}

/** A unique table-name suffix for one test run. */
export function uniqueSuffix(): string {
  return `${process.pid}_${Date.now().toString(36)}`;
}
