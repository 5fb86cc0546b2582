import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Loaded with `--import` into a server: counts every statement it runs on better-sqlite3
 * (`Statement.run/get/all/iterate` and `Database.exec`, by their SQL) and on PostgreSQL (`pg`'s
 * `Client.query`, pooled clients included, by their text; `LISTEN` and the like count too), and
 * writes the counts so far to `<flag>.json` (and starts again from zero) whenever the file
 * `<flag>` appears, where `<flag>` is `STATEMENT_COUNTER_FLAG`. A bench tool: see `statements.ts`.
 */
const flag = process.env.STATEMENT_COUNTER_FLAG!;
const require = createRequire(import.meta.url);
const counts = new Map<string, number>();
const count = (sql: string) => {
  const key = sql.replace(/\s+/g, ' ').trim().slice(0, 100);
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

const Database = require('better-sqlite3') as typeof import('better-sqlite3');
const probe = new Database(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
probe.close();
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = statement[method];
  statement[method] = function (this: { source: string }, ...args: unknown[]) {
    count(this.source);
    return original.apply(this, args);
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function (this: InstanceType<typeof Database>, sql: string) {
  count(sql);
  return exec.call(this, sql);
};

const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
  const [config] = args;
  count(typeof config === 'string' ? config : String((config as { text?: unknown } | undefined)?.text ?? ''));
  return query.apply(this, args);
};

setInterval(() => {
  if (!existsSync(flag)) return;
  rmSync(flag);
  writeFileSync(`${flag}.json`, JSON.stringify([...counts]));
  counts.clear();
}, 20).unref();
