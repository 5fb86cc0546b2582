import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BENCH_TOOLS, LISTED_WITH_LIVE_DOCS } from './bench.machines.js';
import { pool, type BenchClient } from './bench.load.js';
import { POSTGRES_TARGETS } from './bench.postgres.js';
import type { BudgetRow } from './bench.results.js';
import { callTool, openRawSession, type RawSession } from './bench.session.js';
import { SETTINGS } from './bench.settings.js';
import type { BenchTarget } from './bench-target.process.js';

/** One throughput scenario: an operation driven on a target, compared with another scenario. */
export interface Scenario {
  key: string;
  label: string;
  target: BenchTarget;
  /** Key of the scenario this one is divided by (none for a baseline). */
  baseline?: string;
  /** The overhead-budget row this scenario's CPU/op ratio answers. */
  budget?: Omit<BudgetRow, 'ratios' | 'skipped'>;
  /** Prepares the scenario's sessions (not timed); may return what undoes it. */
  setup?: (clients: BenchClient[], url: URL) => Promise<void | (() => Promise<void>)>;
  operation: (client: BenchClient, index: number) => Promise<boolean>;
}

const isOk = (result: unknown, text = 'ok') => {
  const call = result as CallToolResult;
  return !call.isError && call.content[0]?.type === 'text' && call.content[0].text === text;
};
const echo = async ({ client }: BenchClient) => isOk(await client.callTool({ name: BENCH_TOOLS.echo.name, arguments: {} }));
const loop = async ({ client }: BenchClient, index: number) =>
  isOk(await client.callTool({ name: index % 2 === 0 ? BENCH_TOOLS.flip.name : BENCH_TOOLS.flop.name, arguments: {} }));
const listing =
  (expected: string[]) =>
  async ({ client }: BenchClient) => {
    const { tools } = await client.listTools();
    return tools.length === expected.length && tools.every((tool, index) => tool.name === expected[index]);
  };
/** What a session with no live doc and its loop in `a` is shown. */
const LISTED_FRESH = [BENCH_TOOLS.echo.name, BENCH_TOOLS.flip.name, BENCH_TOOLS.open.name];

const openDocs = async (clients: BenchClient[]) => {
  for (const { client } of clients) {
    for (let index = 0; index < SETTINGS.liveHandles; index++) {
      const result = (await client.callTool({ name: BENCH_TOOLS.open.name, arguments: {} })) as CallToolResult;
      if (result.isError || typeof result.structuredContent?.docId !== 'string') {
        throw new Error(`doc.open failed: ${JSON.stringify(result)}`);
      }
    }
  }
};

/** Each session opens and publishes (a final state no tool is bound to) its docs, over `fetch` in the session to spare the client's CPU. */
const finishDocs = async (clients: BenchClient[], url: URL) => {
  await Promise.all(
    clients.map(async ({ transport }) => {
      const sessionId = transport.sessionId!;
      for (let index = 0; index < SETTINGS.finishedDocs; index++) {
        const opened = await callTool(url, sessionId, BENCH_TOOLS.open.name);
        await callTool(url, sessionId, BENCH_TOOLS.publish.name, { docId: opened.structuredContent?.docId });
      }
    }),
  );
};

const openIdleSessions = async (_clients: BenchClient[], url: URL) => {
  const idle: RawSession[] = [];
  const { idleSessions, openConcurrency } = SETTINGS;
  await pool(idleSessions, openConcurrency, async () => void idle.push(await openRawSession(url)));
  if (idle.length !== idleSessions) throw new Error(`opened ${idle.length} of ${idleSessions} idle sessions`);
  return async () => void (await pool(idle.length, openConcurrency, (index) => idle[index].close()));
};

const BARE_CALL = 'bare SDK call';
const count = (value: number) => value.toLocaleString('en');
const PG_FEW = count(POSTGRES_TARGETS['nest-pg-1k'].instances);
const PG_MANY = count(POSTGRES_TARGETS['nest-pg-100k'].instances);

/** The throughput scenarios, in the order of the tables; the budget rows follow this order. */
export const SCENARIOS: Scenario[] = [
  { key: 'call.sdk', label: '1 tools/call echo, bare SDK', target: 'baseline', operation: echo },
  { key: 'loop.sdk', label: '1b gated flip/flop, bare SDK with a hand-written gate', target: 'baseline-gate', operation: loop },
  {
    key: 'call.nest',
    label: '2 tools/call echo, McpModule (unbound)',
    target: 'nest-memory',
    baseline: 'call.sdk',
    budget: { scenario: 'unbound tool call', vs: BARE_CALL, target: 1.05 },
    operation: echo,
  },
  {
    key: 'loop.memory',
    label: '3 gated flip/flop, in-memory (XState)',
    target: 'nest-memory',
    baseline: 'call.sdk',
    budget: { scenario: 'gated transition, in-memory (XState)', vs: BARE_CALL, target: 1.2 },
    operation: loop,
  },
  {
    key: 'loop.memory.hand',
    label: '3 (the same) vs a hand-written gate on the bare SDK',
    target: 'nest-memory',
    baseline: 'loop.sdk',
    operation: loop,
  },
  {
    key: 'call.express',
    label: '2x tools/call echo, McpModule, Express route (default)',
    target: 'nest-memory-express',
    baseline: 'call.sdk',
    operation: echo,
  },
  {
    key: 'loop.express',
    label: '3x gated flip/flop, in-memory (XState), Express route',
    target: 'nest-memory-express',
    baseline: 'call.sdk',
    operation: loop,
  },
  {
    key: 'loop.table',
    label: '3b gated flip/flop, in-memory (table)',
    target: 'nest-memory-table',
    baseline: 'call.sdk',
    budget: { scenario: 'gated transition, in-memory (table)', vs: BARE_CALL, target: 1.2 },
    operation: loop,
  },
  {
    key: 'loop.sqlite',
    label: '4 gated flip/flop, TypeORM SQLite',
    target: 'nest-sqlite',
    baseline: 'call.sdk',
    budget: { scenario: 'gated transition, TypeORM on SQLite', vs: BARE_CALL, target: 1.4 },
    operation: loop,
  },
  {
    key: 'loop.crowd',
    label: `5 gated flip/flop, in-memory, +${count(SETTINGS.idleSessions)} idle sessions`,
    target: 'nest-memory-crowd',
    baseline: 'loop.memory',
    budget: { scenario: `gated transition, ${count(SETTINGS.idleSessions)} idle sessions`, vs: 'the same without them', target: 1.05 },
    setup: openIdleSessions,
    operation: loop,
  },
  { key: 'list.sdk', label: '6 tools/list, bare SDK (5 tools)', target: 'baseline', operation: listing(LISTED_WITH_LIVE_DOCS) },
  {
    key: 'list.fresh',
    label: '6a tools/list, McpModule, fresh session (3 tools)',
    target: 'nest-memory-docs',
    baseline: 'list.sdk',
    operation: listing(LISTED_FRESH),
  },
  {
    key: 'list.live',
    label: `6b tools/list, McpModule, ${SETTINGS.liveHandles} live handles (5 tools)`,
    target: 'nest-memory',
    baseline: 'list.sdk',
    setup: openDocs,
    operation: listing(LISTED_WITH_LIVE_DOCS),
  },
  {
    key: 'list.finished',
    label: `6c tools/list, McpModule, ${count(SETTINGS.finishedDocs)} finished docs (3 tools)`,
    target: 'nest-memory-docs',
    baseline: 'list.fresh',
    budget: {
      scenario: `tools/list after a session finished ${count(SETTINGS.finishedDocs)} workflows`,
      vs: 'fresh session',
      target: 1.1,
    },
    setup: finishDocs,
    operation: listing(LISTED_FRESH),
  },
  {
    key: 'loop.pg.1k',
    label: `7 gated flip/flop, TypeORM PostgreSQL, ${PG_FEW} rows`,
    target: 'nest-pg-1k',
    baseline: 'call.sdk',
    operation: loop,
  },
  {
    key: 'loop.pg.100k',
    label: `7b gated flip/flop, TypeORM PostgreSQL, ${PG_MANY} rows`,
    target: 'nest-pg-100k',
    baseline: 'loop.pg.1k',
    budget: { scenario: `gated transition on PostgreSQL, ${PG_MANY} instances`, vs: `the same with ${PG_FEW} instances`, target: 1.1 },
    operation: loop,
  },
];

const DEADLINE_ROWS = count(SETTINGS.deadlineInstances);

/**
 * The deadline phase's scenarios: the loop with a deadline on `a` (each `loop.flop` writes a
 * timer with the state, each `loop.flip` deletes it) in a store holding no pending timer, and
 * in one holding one on each of its other instances; on SQLite and on PostgreSQL.
 */
export const DEADLINE_SCENARIOS: Scenario[] = [
  {
    key: 'timers.sqlite.none',
    label: `D1 gated flip/flop with a deadline, TypeORM SQLite, ${DEADLINE_ROWS} instances, no pending timer`,
    target: 'nest-sqlite-timers-0',
    operation: loop,
  },
  {
    key: 'timers.sqlite.many',
    label: `D1b the same, ${DEADLINE_ROWS} pending timers`,
    target: 'nest-sqlite-timers-100k',
    baseline: 'timers.sqlite.none',
    budget: {
      scenario: `gated transition with a deadline, SQLite, ${DEADLINE_ROWS} pending timers`,
      vs: 'the same with none',
      target: 1.05,
    },
    operation: loop,
  },
  {
    key: 'timers.pg.none',
    label: `D2 gated flip/flop with a deadline, TypeORM PostgreSQL, ${DEADLINE_ROWS} instances, no pending timer`,
    target: 'nest-pg-timers-0',
    operation: loop,
  },
  {
    key: 'timers.pg.many',
    label: `D2b the same, ${DEADLINE_ROWS} pending timers`,
    target: 'nest-pg-timers-100k',
    baseline: 'timers.pg.none',
    budget: {
      scenario: `gated transition with a deadline, PostgreSQL, ${DEADLINE_ROWS} pending timers`,
      vs: 'the same with none',
      target: 1.05,
    },
    operation: loop,
  },
];
