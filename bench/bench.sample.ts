import { NestFactory } from '@nestjs/core';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppModule } from '../sample/app.module.js';
import type { BenchApp } from './bench.app.js';

/**
 * The sample as `npm run sample` serves it (its `AppModule` on Express, stateful Streamable
 * HTTP at `/mcp`, workflows, ledger and sessions in one SQLite file with WAL and
 * `synchronous = NORMAL`) with its defaults, on 127.0.0.1:0 with its SQLite file (`SAMPLE_DB`) in `os.tmpdir()`.
 * Only warnings and errors are logged: the sample logs nothing per request.
 */
export async function startSampleApp(): Promise<BenchApp> {
  const file = join(tmpdir(), `nestjs-mcp-fsm-bench-sample-${process.pid}.sqlite`);
  removeDatabase(file);
  // The sample's defaults, whatever the runner's environment says: SQLite, stateful HTTP, no auth, no relay.
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'MCP_TRANSPORT',
    'HTTP_ADAPTER',
    'SAMPLE_AUTH',
    'SAMPLE_HANDLER_DELAY_MS',
    'MCP_HANDLE_TOOLS',
  ]) {
    delete process.env[name];
  }
  process.env.SAMPLE_DB = file;
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  return {
    app,
    port,
    close: async () => {
      await app.close();
      removeDatabase(file);
    },
  };
}

function removeDatabase(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
}
