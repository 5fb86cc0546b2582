import 'reflect-metadata';
import { FsmStateStore } from '../lib/index.js';
import { McpSessionRegistry } from '../lib/extend.js';
import { startBaselineServer } from './baseline.server.js';
import { AsyncCounter, type AsyncCounts } from './bench.async-counter.js';
import { BenchProfiler, type ProfiledWindow } from './bench.profiler.js';
import { startNestApp, type NestTargetOptions } from './bench.app.js';
import { POSTGRES_TARGETS } from './bench.postgres.js';
import { SETTINGS } from './bench.settings.js';
import { startSampleApp } from './bench.sample.js';
import { startSampleBaselineServer } from './sample-baseline.server.js';

/**
 * The `McpModule` servers the bench runs (on the direct route unless named `express`): the in-memory store (XState engine, table engine, a
 * copy that one scenario crowds with idle sessions, and one whose sessions finish many docs),
 * `TypeOrmFsmStateStore` on better-sqlite3, and on PostgreSQL with 1,000 and 100,000 rows; the
 * deadline rows' pairs on both databases: the loop with a deadline beside 100,000 doc instances,
 * with no pending timer or one on each.
 */
const NEST_TARGETS = {
  'nest-memory': { store: 'memory' },
  'nest-memory-express': { store: 'memory', route: 'express' },
  'nest-memory-table': { store: 'memory', engine: 'table' },
  'nest-memory-crowd': { store: 'memory' },
  'nest-memory-docs': { store: 'memory' },
  'nest-sqlite': { store: 'sqlite' },
  'nest-sqlite-timers-0': { store: 'sqlite', name: 'timers-0', instances: SETTINGS.deadlineInstances, deadline: true },
  'nest-sqlite-timers-100k': { store: 'sqlite', name: 'timers-100k', instances: SETTINGS.deadlineInstances, deadline: true, timers: true },
  'nest-pg-1k': { store: 'postgres', ...POSTGRES_TARGETS['nest-pg-1k'] },
  'nest-pg-100k': { store: 'postgres', ...POSTGRES_TARGETS['nest-pg-100k'] },
  'nest-pg-timers-0': { store: 'postgres', ...POSTGRES_TARGETS['nest-pg-timers-0'] },
  'nest-pg-timers-100k': { store: 'postgres', ...POSTGRES_TARGETS['nest-pg-timers-100k'] },
} satisfies Record<string, NestTargetOptions>;

/**
 * Servers the bench runs (in a child process: one core serves, the other drives the clients):
 * the bare SDK, the sample written by hand on the bare SDK, `McpModule` apps and
 * the sample as `npm run sample` serves it.
 */
export type BenchTarget = 'baseline' | 'baseline-gate' | 'sample-baseline' | 'sample' | keyof typeof NEST_TARGETS;

/** Request from the bench runner to a target process. */
export type TargetRequest =
  | { id: number; cmd: 'cpu' }
  | { id: number; cmd: 'mem' }
  | { id: number; cmd: 'sessions' }
  | { id: number; cmd: 'retained'; keys: string[] }
  | { id: number; cmd: 'profile-start' }
  | { id: number; cmd: 'profile-stop'; file: string }
  | { id: number; cmd: 'count-start' }
  | { id: number; cmd: 'count-stop' }
  | { id: number; cmd: 'close' };

/** Reply of a target process. */
export interface TargetReply {
  id: number;
  cpuUs?: number;
  heapUsed?: number;
  rss?: number;
  gc?: boolean;
  /** Live sessions of every server in the process. */
  sessions?: number;
  retained?: number;
  /** What `profile-stop` measured since `profile-start`. */
  window?: ProfiledWindow;
  /** What `count-stop` counted since `count-start`. */
  counts?: AsyncCounts;
  error?: string;
}

interface Running {
  port: number;
  sessions: () => number;
  retained: (keys: string[]) => Promise<number>;
  close: () => Promise<void>;
}

async function start(target: BenchTarget): Promise<Running> {
  if (target === 'baseline' || target === 'baseline-gate') {
    const server = await startBaselineServer({ handGate: target === 'baseline-gate' });
    return { ...server, retained: async () => 0 };
  }
  if (target === 'sample-baseline') {
    return { ...(await startSampleBaselineServer()), retained: async () => 0 };
  }
  const nest = target === 'sample' ? await startSampleApp() : await startNestApp(NEST_TARGETS[target]);
  const registry = nest.app.get(McpSessionRegistry, { strict: false });
  const store = nest.app.get<symbol, FsmStateStore>(FsmStateStore, { strict: false });
  return {
    port: nest.port,
    sessions: () => registry.size,
    retained: async (keys) => {
      const loaded = await Promise.all(keys.map((key) => store.load(key)));
      return loaded.filter(Boolean).length;
    },
    close: nest.close,
  };
}

/** Two full collections, so what is left is what is reachable. */
function collect(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  gc();
  gc();
  return true;
}

/**
 * Serves every target named in argv[2] (comma-separated), each on its own port. Sharing one
 * process lets the code they have in common (SDK, HTTP, Nest) warm up once for all of them.
 */
async function main(): Promise<void> {
  const send = (message: object) => process.send!(message);
  // The runner owns this process: when it goes away, so do the servers.
  process.on('disconnect', () => process.exit(0));
  const names = process.argv[2].split(',') as BenchTarget[];
  const servers: Running[] = [];
  for (const name of names) servers.push(await start(name));
  const running = {
    sessions: () => servers.reduce((sum, server) => sum + server.sessions(), 0),
    retained: async (keys: string[]) => (await Promise.all(servers.map((server) => server.retained(keys)))).reduce((a, b) => a + b, 0),
    close: async () => void (await Promise.all(servers.map((server) => server.close()))),
  };
  const profiler = new BenchProfiler();
  const counter = new AsyncCounter();
  process.on('message', (request: TargetRequest) => {
    void (async (): Promise<TargetReply> => {
      switch (request.cmd) {
        case 'cpu': {
          const usage = process.cpuUsage();
          return { id: request.id, cpuUs: usage.user + usage.system };
        }
        case 'mem': {
          const gc = collect();
          const memory = process.memoryUsage();
          return { id: request.id, gc, heapUsed: memory.heapUsed, rss: memory.rss, sessions: running.sessions() };
        }
        case 'sessions':
          return { id: request.id, sessions: running.sessions() };
        case 'retained':
          return { id: request.id, retained: await running.retained(request.keys) };
        case 'profile-start':
          await profiler.start();
          return { id: request.id };
        case 'profile-stop':
          return { id: request.id, window: await profiler.stop(request.file) };
        case 'count-start':
          counter.start();
          return { id: request.id };
        case 'count-stop':
          return { id: request.id, counts: counter.stop() };
        case 'close':
          await running.close();
          setImmediate(() => process.exit(0));
          return { id: request.id };
      }
    })()
      .catch((error: unknown) => ({ id: request.id, error: String(error) }))
      .then(send);
  });
  send({ ready: true, ports: Object.fromEntries(names.map((name, index) => [name, servers[index].port])) });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench target failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
