import type { DataSourceOptions } from 'typeorm';
import { mcpFsmMigrations } from '../lib/typeorm.js';
import { LedgerEntry } from './ledger-entry.entity.js';
import { CreateSampleLedger1764460900000 } from './migrations/1764460900000-create-sample-ledger.js';

/** Default SQLite file of the sample. */
export const DEFAULT_SAMPLE_DB = 'sample.sqlite';

/**
 * The sample's DataSource options from the environment: `DATABASE_URL=postgres://…` (or
 * `postgresql://…`) → PostgreSQL, `mysql://…` or `mariadb://…` → MySQL/MariaDB, otherwise the
 * better-sqlite3 file `SAMPLE_DB` (default `sample.sqlite`). The workflow tables and the
 * ledger come from migrations that run at startup; `synchronize` stays off.
 *
 * SQLite runs in WAL mode with `synchronous = NORMAL`: a commit is written to the WAL without
 * an fsync, so a crash of the process loses nothing and a power loss or OS crash may lose the
 * last commits (never corrupts the file). With the default `FULL`, every commit waits for the
 * disk.
 */
export function sampleDataSourceOptions(env: NodeJS.ProcessEnv = process.env): DataSourceOptions {
  const common = {
    entities: [LedgerEntry],
    migrations: [...mcpFsmMigrations, CreateSampleLedger1764460900000],
    migrationsRun: true,
    synchronize: false,
  };
  const url = env.DATABASE_URL;
  if (url) {
    const scheme = new URL(url).protocol.slice(0, -1);
    if (scheme === 'postgres' || scheme === 'postgresql') {
      return { ...common, type: 'postgres', url };
    }
    if (scheme === 'mysql' || scheme === 'mariadb') {
      return { ...common, type: 'mysql', url: url.replace(/^mariadb:/, 'mysql:') };
    }
    throw new Error(`DATABASE_URL: unsupported scheme "${scheme}:" (use postgres://, mysql:// or mariadb://).`);
  }
  return {
    ...common,
    type: 'better-sqlite3',
    database: env.SAMPLE_DB || DEFAULT_SAMPLE_DB,
    enableWAL: true,
    prepareDatabase: (db: { pragma: (source: string) => unknown }) => {
      db.pragma('synchronous = NORMAL');
    },
  };
}

/** How long a session may idle before it ends everywhere: `SAMPLE_SESSION_TTL_MS`, else the module's default. */
export function sampleSessionTtlMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  return positiveMs(env.SAMPLE_SESSION_TTL_MS);
}

/** The time limit of every store operation and transaction: `SAMPLE_STORE_TIMEOUT_MS`, else the store's default. */
export function sampleStoreTimeoutMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  return positiveMs(env.SAMPLE_STORE_TIMEOUT_MS);
}

/**
 * How a refund task's process holds it (`SAMPLE_TASK_LEASE_MS`, the module's `tasks.leaseMs`) and
 * how often every process looks for tasks whose process stopped, to carry them on
 * (`SAMPLE_TASK_SWEEP_MS`, `tasks.sweepIntervalMs`); unset, the module's defaults (30 s, 60 s).
 */
export function sampleTaskTimings(env: NodeJS.ProcessEnv = process.env): { leaseMs?: number; sweepIntervalMs?: number } {
  const leaseMs = positiveMs(env.SAMPLE_TASK_LEASE_MS);
  const sweepIntervalMs = positiveMs(env.SAMPLE_TASK_SWEEP_MS);
  return { ...(leaseMs && { leaseMs }), ...(sweepIntervalMs && { sweepIntervalMs }) };
}

function positiveMs(value: string | undefined): number | undefined {
  const ms = Number(value);
  return ms > 0 ? ms : undefined;
}
