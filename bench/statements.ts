import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BenchServerProcess } from './bench-server.process.js';
import { openClient } from './bench.load.js';

/**
 * The store statements each operation of the mixed workload runs, counted in the server's
 * process (`statement-counter.preload.ts`), in a session following 20 captured payments: a
 * deterministic measure, which the machine's load does not move.
 *
 *   node .sample-dist/bench/statements.js [--sample <dist>] [--hand] [--postgres <url>]
 *
 * `--sample <dist>`: another build's sample (`.sample-dist/main`); `--hand`: the hand-written
 * server; `--postgres <url>`: the sample on that PostgreSQL database (`DATABASE_URL`, its
 * LISTEN/NOTIFY relay included) instead of a SQLite file.
 */
const OPERATIONS = 10;

async function main(): Promise<void> {
  const index = process.argv.indexOf('--sample');
  const hand = process.argv.includes('--hand');
  const postgres = process.argv.includes('--postgres') ? process.argv[process.argv.indexOf('--postgres') + 1] : undefined;
  const script = hand
    ? fileURLToPath(new URL('./sample-baseline.main.js', import.meta.url))
    : index < 0
      ? fileURLToPath(new URL('../sample/main.js', import.meta.url))
      : resolve(process.argv[index + 1], 'sample/main.js');
  const flag = join(tmpdir(), `nestjs-mcp-fsm-statements-${process.pid}`);
  const database = join(tmpdir(), `nestjs-mcp-fsm-statements-${process.pid}.sqlite`);
  const preload = new URL('./statement-counter.preload.js', import.meta.url).href;
  const server = await BenchServerProcess.start('server', script, {
    PORT: '0',
    NO_COLOR: '1',
    SAMPLE_DB: database,
    DATABASE_URL: postgres,
    REDIS_URL: undefined,
    STATEMENT_COUNTER_FLAG: flag,
    NODE_OPTIONS: `--import ${preload}`,
  });
  const { client } = await openClient(server.url);
  const call = async (name: string, args: Record<string, unknown>) =>
    ((await client.callTool({ name, arguments: args })) as CallToolResult).structuredContent as Record<string, unknown>;
  const counted = async (label: string, work: () => Promise<unknown>) => {
    await new Promise((done) => setTimeout(done, 100));
    rmSync(`${flag}.json`, { force: true });
    writeFileSync(flag, '');
    while (!existsSync(`${flag}.json`)) await new Promise((done) => setTimeout(done, 20));
    await new Promise((done) => setTimeout(done, 20));
    await work();
    await new Promise((done) => setTimeout(done, 100));
    writeFileSync(flag, '');
    while (existsSync(flag)) await new Promise((done) => setTimeout(done, 20));
    await new Promise((done) => setTimeout(done, 20));
    const counts = JSON.parse(readFileSync(`${flag}.json`, 'utf8')) as [string, number][];
    console.log(`${label}: ${counts.reduce((sum, [, n]) => sum + n, 0) / OPERATIONS} statements per operation`);
    for (const [sql, n] of counts) console.log(`  ${(n / OPERATIONS).toFixed(1).padStart(5)}  ${sql}`);
  };
  try {
    for (let i = 0; i < 20; i++) {
      const { paymentId } = await call('payment.authorize', { amount: 1, currency: 'EUR' });
      await call('payment.capture', { paymentId });
    }
    await client.listTools();
    const ids: string[] = [];
    await counted('payment.authorize', async () => {
      for (let i = 0; i < OPERATIONS; i++) ids.push((await call('payment.authorize', { amount: 1, currency: 'EUR' })).paymentId as string);
    });
    await counted('payment.status', async () => {
      for (const paymentId of ids) await call('payment.status', { paymentId });
    });
    await counted('payment.capture', async () => {
      for (const paymentId of ids) await call('payment.capture', { paymentId });
    });
    await counted('tools/list', async () => {
      for (let i = 0; i < OPERATIONS; i++) await client.listTools();
    });
  } finally {
    await client.close();
    await server.stop();
    for (const suffix of ['', '-wal', '-shm']) rmSync(database + suffix, { force: true });
    rmSync(`${flag}.json`, { force: true });
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`statements failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
