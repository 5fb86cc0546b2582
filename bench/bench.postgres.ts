import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  AddMcpFsmApprovals1766102400000,
  AddMcpFsmContext1764547200000,
  AddMcpFsmTeam1766016000000,
  CreateMcpFsmState1764460800000,
  CreateMcpFsmTimer1766534400000,
} from '../lib/typeorm.js';
import { docMachine } from './bench.machines.js';
import { fillPendingTimers } from './bench.prefill.js';
import { SETTINGS } from './bench.settings.js';

/** The PostgreSQL of the bench: `BENCH_POSTGRES_URL`, by default the test database. */
export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The PostgreSQL targets, each in its own schema, pre-filled with unrelated doc instances (and a pending timer for each, with `timers`). */
export const POSTGRES_TARGETS = {
  'nest-pg-1k': { schema: 'bench_pg_1k', instances: 1_000 },
  'nest-pg-100k': { schema: 'bench_pg_100k', instances: 100_000 },
  'nest-pg-timers-0': { schema: 'bench_pg_timers_0', instances: SETTINGS.deadlineInstances, deadline: true },
  'nest-pg-timers-100k': { schema: 'bench_pg_timers_100k', instances: SETTINGS.deadlineInstances, deadline: true, timers: true },
} as const;

/** The schema of the firing row (the runner's own app). */
export const POSTGRES_FIRING_SCHEMA = 'bench_pg_firing';

/** A PostgreSQL bench target. */
export type PostgresTarget = keyof typeof POSTGRES_TARGETS;

/** `application_name` of the targets' connections, by which the runner finds their backends. */
const APPLICATION_NAME = 'nestjs-mcp-fsm-bench';

/**
 * A DataSource on `schema` (which must exist) with the shipped migrations run and `instances`
 * unrelated instances of the handle-keyed doc machine inserted, each with a pending timer when `timers`.
 */
export async function openPostgresDataSource(schema: string, instances: number, timers = false): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url: POSTGRES_URL,
    schema,
    applicationName: APPLICATION_NAME,
    extra: {
      // Backends live for the whole run, so the runner's CPU samples see all of their work.
      idleTimeoutMillis: 0,
    },
    migrations: [
      CreateMcpFsmState1764460800000,
      AddMcpFsmContext1764547200000,
      AddMcpFsmTeam1766016000000,
      AddMcpFsmApprovals1766102400000,
      CreateMcpFsmTimer1766534400000,
    ],
    migrationsRun: true,
    synchronize: false,
  });
  await dataSource.initialize();
  // Keys as lib/stores/fsm-instance-key.ts formats them ("<machine>:<handle>"), handles shaped
  // like minted ones (16 random bytes, base64url).
  await dataSource.query(
    `INSERT INTO ${schema}.mcp_fsm_state (handle, machine, state, created_at, updated_at)
     SELECT $1 || ':' || rtrim(translate(encode(decode(replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'), '+/', '-_'), '='),
            $1, 'draft', $2, $2
     FROM generate_series(1, $3)`,
    [docMachine.id, Date.now(), instances],
  );
  await dataSource.query(`ANALYZE ${schema}.mcp_fsm_state`);
  if (timers) await fillPendingTimers(dataSource, schema);
  return dataSource;
}

/** The runner's own connection: resets and drops the targets' schemas and reads their backends' CPU. */
export class PostgresAdmin {
  private readonly schemas = [...Object.values(POSTGRES_TARGETS).map(({ schema }) => schema), POSTGRES_FIRING_SCHEMA];

  private constructor(
    private readonly client: pg.Client,
    /** Whether the backends' CPU is readable: PostgreSQL runs on this machine (its backend is in /proc). */
    readonly seesBackendCpu: boolean,
  ) {}

  /** Connects, or returns why the PostgreSQL rows are skipped (`why`) and the driver's error. */
  static async connect(): Promise<PostgresAdmin | { why: string; error: string }> {
    const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5_000 });
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      return { why: `no PostgreSQL at ${redacted(POSTGRES_URL)}`, error: String(error) };
    }
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const comm = await readFile(`/proc/${rows[0].pid}/comm`, 'utf8').catch(() => '');
    return new PostgresAdmin(client, comm.trim() === 'postgres');
  }

  /** Drops the targets' schemas left by an earlier run and creates them empty. */
  async resetSchemas(): Promise<void> {
    await this.dropSchemas();
    for (const schema of this.schemas) await this.client.query(`CREATE SCHEMA ${schema}`);
  }

  /** Drops the targets' schemas with everything in them. */
  async dropSchemas(): Promise<void> {
    for (const schema of this.schemas) await this.client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }

  /** CPU time so far of each backend serving a target, by pid, in microseconds (none when not readable). */
  async backendCpu(): Promise<Map<number, number>> {
    const cpu = new Map<number, number>();
    if (!this.seesBackendCpu) return cpu;
    const { rows } = await this.client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [
      APPLICATION_NAME,
    ]);
    for (const { pid } of rows) {
      const us = await backendCpuUs(pid);
      if (us !== undefined) cpu.set(pid, us);
    }
    return cpu;
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/** CPU time of a local process from /proc/<pid>/schedstat (nanoseconds, unlike the 10 ms ticks of /proc/<pid>/stat). */
async function backendCpuUs(pid: number): Promise<number | undefined> {
  const text = await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : Number(text.split(' ')[0]) / 1_000;
}

function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
