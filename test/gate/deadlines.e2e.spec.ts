import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { z } from 'zod';
import {
  defineMachine,
  InMemoryFsmStateStore,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  type McpToolContext,
} from '../../lib/index.js';
import { McpDeadline } from '../../lib/extend.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
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
