import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { McpModule, type McpModuleOptions } from '../lib/index.js';
import { AddMcpFsmContext1764547200000, CreateMcpFsmState1764460800000, TypeOrmFsmStateStore } from '../lib/stores/typeorm/index.js';
import { docMachine, loopMachine } from './bench.machines.js';
import { DocTools, EchoTools, LoopTools } from './bench.tools.js';

/** A started bench app on a loopback port, and how to stop it. */
export interface BenchApp {
  app: INestApplication;
  port: number;
  close: () => Promise<void>;
}

/** Which store and engine a Nest target runs with. */
export interface NestTargetOptions {
  store: 'memory' | 'sqlite';
  engine?: McpModuleOptions['engine'];
}

/** Starts the bench tools on `McpModule` (stateful Streamable HTTP at `/mcp`) on 127.0.0.1:0. */
export async function startNestApp(target: NestTargetOptions): Promise<BenchApp> {
  let dataSource: DataSource | undefined;
  let dbFile: string | undefined;
  const options: McpModuleOptions = {
    name: 'bench',
    version: '1.0.0',
    machines: [loopMachine, docMachine],
    engine: target.engine ?? 'auto',
    // The memory scenario opens thousands of sessions; the cap is not what is measured.
    sessions: { maxSessions: 100_000 },
  };
  if (target.store === 'sqlite') {
    dbFile = join(tmpdir(), `nestjs-mcp-fsm-bench-${process.pid}.sqlite`);
    removeDb(dbFile);
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: dbFile,
      enableWAL: true,
      migrations: [CreateMcpFsmState1764460800000, AddMcpFsmContext1764547200000],
      migrationsRun: true,
      synchronize: false,
    });
    await dataSource.initialize();
    options.store = new TypeOrmFsmStateStore(dataSource);
  }

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
      await dataSource?.destroy();
      if (dbFile) removeDb(dbFile);
    },
  };
}

function removeDb(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    rmSync(file + suffix, { force: true });
  }
}
