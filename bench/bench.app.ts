import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type BetterSqlite3 from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { McpModule, type McpModuleOptions } from '../lib/index.js';
import {
  AddMcpFsmApprovals1766102400000,
  AddMcpFsmContext1764547200000,
  AddMcpFsmTeam1766016000000,
  CreateMcpFsmState1764460800000,
  CreateMcpFsmTimer1766534400000,
  TypeOrmFsmStateStore,
} from '../lib/typeorm.js';
import { docMachine, loopMachine, timedLoopMachine } from './bench.machines.js';
import { openPostgresDataSource } from './bench.postgres.js';
import { fillPendingTimers, fillSqliteDocs } from './bench.prefill.js';
import { DocTools, EchoTools, LoopTools } from './bench.tools.js';

/** A started bench app on a loopback port, and how to stop it. */
export interface BenchApp {
  app: INestApplication;
  port: number;
  close: () => Promise<void>;
}

/**
 * Which store (and engine) a Nest target runs with, and its HTTP route: `direct` (the lean
 * path, `transports.http.direct`, the default here) or `express` (the framework's route,
 * the module's default). With `deadline`, the loop has a deadline on `a` (`timedLoopMachine`),
 * and the store holds `instances` doc instances, each with a pending timer when `timers`.
 */
export type NestTargetOptions = { route?: 'direct' | 'express'; deadline?: boolean } & (
  | { store: 'memory'; engine?: McpModuleOptions['engine'] }
  | { store: 'sqlite'; name?: string; instances?: number; timers?: boolean }
  | { store: 'postgres'; schema: string; instances: number; timers?: boolean }
);

export interface BenchDatabase {
  dataSource: DataSource;
  close: () => Promise<void>;
}

/** Starts the bench tools on `McpModule` (stateful Streamable HTTP at `/mcp`, on the target's route) on 127.0.0.1:0. */
export async function startNestApp(target: NestTargetOptions): Promise<BenchApp> {
  const database = await openDatabase(target);
  const options: McpModuleOptions = {
    name: 'bench',
    version: '1.0.0',
    machines: [target.deadline ? timedLoopMachine : loopMachine, docMachine],
    engine: target.store === 'memory' ? (target.engine ?? 'auto') : 'auto',
    // Scenarios open thousands of sessions; the cap is not what is measured.
    transports: {
      http: { path: '/mcp', direct: target.route !== 'express', sessions: { maxSessions: 100_000, maxNewPerMinutePerClient: Infinity } },
    },
    ...(database ? { store: new TypeOrmFsmStateStore(database.dataSource) } : {}),
  };

  @Module({
    imports: [McpModule.forRoot(options)],
    providers: [EchoTools, LoopTools, DocTools],
  })
  class BenchAppModule {}

  const app = await NestFactory.create(BenchAppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  return {
    app,
    port,
    close: async () => {
      await app.close();
      await database?.close();
    },
  };
}

async function openDatabase(target: NestTargetOptions): Promise<BenchDatabase | undefined> {
  switch (target.store) {
    case 'memory':
      return undefined;
    case 'postgres': {
      const dataSource = await openPostgresDataSource(target.schema, target.instances, target.timers);
      return { dataSource, close: () => dataSource.destroy() };
    }
    case 'sqlite': {
      const database = await openSqlite(target.name);
      await fillSqliteDocs(database.dataSource, target.instances ?? 0);
      if (target.timers) await fillPendingTimers(database.dataSource);
      // Both crowded targets start from the same file shape: the prefill's pages moved out of the WAL.
      await database.dataSource.query('PRAGMA wal_checkpoint(TRUNCATE)');
      return database;
    }
  }
}

/**
 * better-sqlite3 in a file in `os.tmpdir()` (one per `name` and process), with the settings
 * the sample and docs/stores.md recommend: WAL and `synchronous = NORMAL`; the shipped migrations run.
 */
export async function openSqlite(name = 'nest'): Promise<BenchDatabase> {
  const file = join(tmpdir(), `nestjs-mcp-fsm-bench-${name}-${process.pid}.sqlite`);
  removeDb(file);
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: file,
    enableWAL: true,
    prepareDatabase: (db: BetterSqlite3.Database) => void db.pragma('synchronous = NORMAL'),
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
  return {
    dataSource,
    close: async () => {
      await dataSource.destroy();
      removeDb(file);
    },
  };
}

function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    rmSync(file + suffix, { force: true });
  }
}
