import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { McpModule } from '../lib/index.js';
import { WorkflowDeadlineScheduler } from '../lib/extend.js';
import { TypeOrmFsmStateStore } from '../lib/typeorm.js';
import { openSqlite, type BenchDatabase } from './bench.app.js';
import { pool } from './bench.load.js';
import { LAPSE_TIMER, lapseMachine } from './bench.machines.js';
import { openPostgresDataSource, POSTGRES_FIRING_SCHEMA } from './bench.postgres.js';
import { SETTINGS } from './bench.settings.js';

/** How many instances the setup writes at once (not timed). */
const SETUP_CONCURRENCY = 8;

/** What one run of the firing row measured. */
export interface FiringRun {
  /** Wall time from the first poll until the poll that found nothing more due, in seconds. */
  seconds: number;
  /** Polls it took (`batchSize` timers each, and the last one empty). */
  polls: number;
  /** CPU time of this process (the app: scheduler, gate, driver) meanwhile, in seconds. */
  cpuSeconds: number;
}

/**
 * The firing row on one database, in this process: an app with the handle-keyed `lapse`
 * machine on `TypeOrmFsmStateStore` (history on, the default `batchSize`; its own polls an
 * hour apart, so only the measured ones fire), and per run `SETTINGS.dueTimers` instances in
 * `held` whose timers are already due (written through the store, not timed). Timed: calls of
 * `WorkflowDeadlineScheduler.poll` (claim a batch, fire each timer through the gate: claim of
 * the instance, guards, commit with its history row and the fired timer's delete) until one
 * claims nothing. Throws unless every instance then is in `lapsed`.
 */
export async function measureFiring(database: 'sqlite' | 'postgres', runs: number): Promise<FiringRun[]> {
  const opened: BenchDatabase =
    database === 'sqlite'
      ? await openSqlite('firing')
      : await (async () => {
          const dataSource = await openPostgresDataSource(POSTGRES_FIRING_SCHEMA, 0);
          return { dataSource, close: () => dataSource.destroy() };
        })();
  const store = new TypeOrmFsmStateStore(opened.dataSource, { history: true });

  @Module({
    imports: [
      McpModule.forRoot({
        name: 'bench-firing',
        version: '1.0.0',
        machines: [lapseMachine],
        store,
        gate: { deadlines: { pollMs: 3_600_000 } },
      }),
    ],
  })
  class FiringModule {}

  const app = await NestFactory.create(FiringModule, { logger: false });
  try {
    await app.init();
    const scheduler = app.get(WorkflowDeadlineScheduler, { strict: false });
    const measured: FiringRun[] = [];
    for (let run = 0; run < runs; run++) {
      const keys = Array.from({ length: SETTINGS.dueTimers }, () => `${lapseMachine.id}:${randomBytes(16).toString('base64url')}`);
      const dueAt = Date.now() - 1_000;
      await pool(keys.length, SETUP_CONCURRENCY, async (index) => {
        const snapshot = { state: 'held', updatedAt: new Date(dueAt).toISOString() };
        await store.create(keys[index], snapshot, undefined, {
          machine: lapseMachine.id,
          schedule: [{ id: LAPSE_TIMER, event: LAPSE_TIMER, dueAt }],
          cancel: [],
        });
      });
      const startedAt = performance.now();
      const cpuBefore = process.cpuUsage();
      let polls = 0;
      while ((await scheduler.poll()) > 0) polls += 1;
      const seconds = (performance.now() - startedAt) / 1_000;
      const cpu = process.cpuUsage(cpuBefore);
      const states = await store.loadStates(keys);
      const moved = keys.filter((key) => states.get(key) === 'lapsed').length;
      if (moved !== keys.length) throw new Error(`firing on ${database}: ${moved} of ${keys.length} instances moved`);
      measured.push({ seconds, polls: polls + 1, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
    }
    return measured;
  } finally {
    await app.close();
    await opened.close();
  }
}
