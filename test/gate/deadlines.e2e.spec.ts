import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  BindState,
  defineMachine,
  InMemoryFsmStateStore,
  McpContext,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type McpToolContext,
} from '../../lib/index.js';
import { McpDeadline } from '../../lib/extend.js';
import { DEFAULT_WORKFLOW_TIMER_TABLE, TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { createStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

const holdMachine = defineMachine(
  {
    id: 'hold',
    initial: 'new',
    states: {
      new: { on: { PLACE: 'held' } },
      held: { after: { 300: 'released' }, on: { CANCEL: 'cancelled' } },
      released: { type: 'final' },
      cancelled: { type: 'final' },
    },
  },
  { stateHandleKey: 'holdId' },
);
const TIMER = 'xstate.after.300.hold.held';

/** Session-keyed: a quiz is open from the start, and closes by itself. */
const quizMachine = defineMachine({
  id: 'quiz',
  initial: 'open',
  states: {
    open: { after: { 300: 'closed' }, on: { ANSWER: { target: 'open' } } },
    closed: { type: 'final' },
  },
});
const QUIZ_TIMER = 'xstate.after.300.quiz.open';

/** Counts the effect's runs, and fails the first `failures` of them. */
@Injectable()
class HoldEffects {
  runs = 0;
  failures = 0;
  readonly seen: Array<{ handle?: string; state: unknown }> = [];

  @McpDeadline(holdMachine, 'held')
  release(ctx: McpToolContext): void {
    this.runs += 1;
    this.seen.push({ handle: ctx.handle, state: ctx.state });
    if (this.runs <= this.failures) throw new Error(`release failed (run ${this.runs})`);
  }
}

@McpWorkflow(holdMachine)
@Injectable()
class HoldTools {
  @McpTool({ name: 'hold.place', description: 'Place a hold.', inputSchema: z.object({}) })
  @McpStartWorkflow(holdMachine, 'PLACE')
  place() {
    return { placed: true };
  }

  @McpTool({ name: 'hold.drop', description: 'End a hold: it is gone afterwards.', inputSchema: z.object({ holdId: z.string() }) })
  async drop(@McpContext() ctx: McpToolContext) {
    return { ended: await this.workflows.end(ctx) };
  }

  constructor(private readonly workflows: McpWorkflowService) {}
}

@McpWorkflow(quizMachine)
@Injectable()
class QuizTools {
  @McpTool({ name: 'quiz.answer', description: 'Answer while the quiz is open.', inputSchema: z.object({}) })
  @BindState('open', 'ANSWER')
  answer() {
    return { answered: true };
  }
}

describe('deadlines through the gate', () => {
  let app: INestApplication;
  let agent: TestClient;
  const store = new InMemoryFsmStateStore({ history: true });

  beforeAll(async () => {
    @Module({})
    class HoldAppModule {}
    app = await listenApp([
      {
        module: HoldAppModule,
        imports: [
          McpModule.forRoot({
            name: 'holds',
            version: '1.0.0',
            machines: [holdMachine],
            store,
            gate: { deadlines: { pollMs: 50, retryMs: 100, maxAttempts: 3 } },
          }),
        ],
        providers: [HoldEffects, HoldTools],
      },
    ]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
  });

  const place = async () => {
    const placed = await agent.call('hold.place', {});
    return (placed.structuredContent as { holdId: string }).holdId;
  };
  const key = (holdId: string) => `hold:${holdId}`;

  it('fires the timer as a call whose actor is the deadline, running the effect once, and leaves no timer', async () => {
    const effects = app.get(HoldEffects);
    const runs = effects.runs;
    const holdId = await place();
    expect(await store.pendingTimers(key(holdId))).toEqual([expect.objectContaining({ id: TIMER, event: TIMER })]);
    await eventually(async () => (await store.load(key(holdId)))?.state === 'released', 3_000);
    expect(effects.runs - runs).toBe(1);
    expect(effects.seen.at(-1)).toEqual({ handle: holdId, state: 'held' });
    expect((await store.history(key(holdId))).map(({ from, to, event, principal }) => ({ from, to, event, principal }))).toEqual([
      { from: null, to: 'held', event: 'PLACE', principal: expect.anything() },
      { from: 'held', to: 'released', event: TIMER, principal: `deadline:${TIMER}` },
    ]);
    expect(await store.pendingTimers(key(holdId))).toEqual([]);
  });

  it('rolls a failing effect back and retries it with backoff, then gives up after maxAttempts', async () => {
    const effects = app.get(HoldEffects);
    effects.runs = 0;
    effects.failures = 1;
    const retried = await place();
    await eventually(async () => (await store.load(key(retried)))?.state === 'released', 4_000);
    expect(effects.runs).toBe(2);

    effects.runs = 0;
    effects.failures = 100;
    const stuck = await place();
    await eventually(() => effects.runs >= 3, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(effects.runs).toBe(3);
    expect((await store.load(key(stuck)))?.state).toBe('held');
    expect(await store.pendingTimers(key(stuck))).toEqual([]);
    effects.failures = 0;
  });
});

const directory = mkdtempSync(join(tmpdir(), 'deadlines-e2e-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe.each([
  ['in memory', async () => ({ store: new InMemoryFsmStateStore(), close: async () => {} })],
  [
    'TypeORM on SQLite',
    async () => {
      const dataSource = new DataSource({ type: 'better-sqlite3', database: join(directory, `${randomUUID()}.sqlite`), enableWAL: true });
      await dataSource.initialize();
      await createStoreTables(dataSource, { timerTableName: DEFAULT_WORKFLOW_TIMER_TABLE });
      return { store: new TypeOrmFsmStateStore(dataSource), close: () => dataSource.destroy() };
    },
  ],
] as const)('timers that start with an instance or go with it (%s)', (_name, open) => {
  let app: INestApplication;
  let agent: TestClient;
  let store: InMemoryFsmStateStore | TypeOrmFsmStateStore;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ store, close } = await open());
    @Module({})
    class TimersAppModule {}
    app = await listenApp([
      {
        module: TimersAppModule,
        imports: [
          McpModule.forRoot({
            name: 'timers',
            version: '1.0.0',
            machines: [holdMachine, quizMachine],
            store,
            gate: { deadlines: { pollMs: 50 } },
          }),
        ],
        providers: [HoldEffects, HoldTools, QuizTools],
      },
    ]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
    await close();
  });

  it('schedules the initial state’s timers when a claim creates a session’s instance in it, and fires them', async () => {
    const quizzer = await connectClient(await mcpUrl(app));
    try {
      expect((await quizzer.call('quiz.answer', {})).isError).toBeFalsy();
      const quiz = `quiz:session:${quizzer.transport.sessionId}`;
      expect(await store.load(quiz)).toMatchObject({ state: 'open' });
      expect(await store.pendingTimers(quiz)).toEqual([expect.objectContaining({ id: QUIZ_TIMER, event: QUIZ_TIMER })]);
      // A later call on the stored instance does not restart them.
      const [{ dueAt }] = await store.pendingTimers(quiz);
      expect((await quizzer.call('quiz.answer', {})).isError).toBeFalsy();
      expect(await store.pendingTimers(quiz)).toEqual([expect.objectContaining({ id: QUIZ_TIMER, dueAt })]);
      await eventually(async () => (await store.load(quiz))?.state === 'closed', 3_000);
      expect(await store.pendingTimers(quiz)).toEqual([]);
    } finally {
      await quizzer.close();
    }
  });

  it('ends an instance with its timers (McpWorkflowService.end)', async () => {
    const effects = app.get(HoldEffects);
    const runs = effects.runs;
    const placed = await agent.call('hold.place', {});
    const { holdId } = placed.structuredContent as { holdId: string };
    expect(await store.pendingTimers(`hold:${holdId}`)).toHaveLength(1);
    expect((await agent.call('hold.drop', { holdId })).structuredContent).toEqual({ ended: true });
    expect(await store.load(`hold:${holdId}`)).toBeUndefined();
    expect(await store.pendingTimers(`hold:${holdId}`)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(effects.runs).toBe(runs);
  });

  it('fires a batch on several instances at once (concurrency), each timer once', async () => {
    const effects = app.get(HoldEffects);
    const runs = effects.runs;
    const holdIds: string[] = [];
    for (let index = 0; index < 10; index++) {
      const placed = await agent.call('hold.place', {});
      holdIds.push((placed.structuredContent as { holdId: string }).holdId);
    }
    await eventually(async () => {
      const states = await Promise.all(holdIds.map(async (holdId) => (await store.load(`hold:${holdId}`))?.state));
      return states.every((state) => state === 'released');
    }, 5_000);
    expect(effects.runs - runs).toBe(10);
    for (const holdId of holdIds) expect(await store.pendingTimers(`hold:${holdId}`)).toEqual([]);
  });
});
