import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { databaseTargets, type DatabaseTarget } from '../utils/databases.js';
import { connectClient, textOf, type TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup, type SampleProcess } from '../utils/sample-process.js';

const KEY = 'nestjs-mcp-fsm/idempotency-key';

/** This run's keys: the receipts of earlier runs on the shared test database live on (24 h). */
const RUN = randomUUID().slice(0, 8);

/** The idempotency key `name` of this run. */
const key = (name: string) => `${name}-${RUN}`;

/** `tools/call` of `name` with `args` and the idempotency key `idempotencyKey`, through `agent`. */
const keyed = (agent: TestClient, name: string, args: Record<string, unknown>, idempotencyKey: unknown) =>
  agent.client.callTool({ name, arguments: args, _meta: { [KEY]: idempotencyKey } }) as Promise<CallToolResult>;

/** A captured payment of `amount` EUR, started by `agent`. */
async function captured(agent: TestClient, amount = 60): Promise<string> {
  const { paymentId } = (await agent.call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string };
  expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
  return paymentId;
}

/** The refunds in the payment's ledger. */
const refunds = async (agent: TestClient, paymentId: string) =>
  (await paymentStatus(agent, paymentId)).ledger.filter((entry) => entry.kind === 'refund');

/** Where each database's sample processes keep their state: one SQLite file (one process at a time), or the server both share. */
const targets = databaseTargets('sample idempotency keys');

describe.each(targets)('the sample: a refund with an idempotency key, on $name', (target: DatabaseTarget) => {
  let dir: string;
  let samples: SampleGroup;
  let env: Record<string, string>;
  const alice = { authorization: 'Bearer alice' };

  /** One sample process on SQLite's file; two sharing the database server otherwise. */
  const start = async (): Promise<SampleProcess[]> =>
    target.url ? [await samples.start(env), await samples.start(env)] : [await samples.start(env)];
  const connect = async (sample: SampleProcess, headers = alice): Promise<TestClient> => {
    const agent = await connectClient(sample.url, headers);
    clients.push(agent);
    return agent;
  };
  let clients: TestClient[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sample-idempotency-'));
    env = { SAMPLE_AUTH: 'optional', ...(target.url ? { DATABASE_URL: target.url } : { SAMPLE_DB: join(dir, 'sample.sqlite') }) };
  });

  beforeEach(() => {
    samples = new SampleGroup();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((agent) => agent.close().catch(() => undefined)));
    await samples.stop();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refunds once when sent twice with one key, answers the same both times, also on another process and after a restart', async () => {
    const processes = await start();
    const first = await connect(processes[0]);
    const paymentId = await captured(first);
    const answer = await keyed(first, 'payment.refund', { paymentId, amount: 20 }, key('refund-r1'));
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ refunded: 20, currency: 'EUR' });
    expect(answer._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'payment', state: 'partially_refunded' });

    const other = await connect(processes[processes.length - 1]);
    expect(await keyed(other, 'payment.refund', { paymentId, amount: 20 }, key('refund-r1'))).toEqual(answer);
    expect(await refunds(other, paymentId)).toEqual([{ kind: 'refund', amount: 20 }]);

    await Promise.all(processes.map((sample) => sample.stop('SIGKILL')));
    const [restarted] = await start();
    const later = await connect(restarted);
    expect(await keyed(later, 'payment.refund', { paymentId, amount: 20 }, key('refund-r1'))).toEqual(answer);
    expect(await refunds(later, paymentId)).toEqual([{ kind: 'refund', amount: 20 }]);
    expect((await paymentStatus(later, paymentId)).refundable).toBe(40);
  }, 90_000);

  it('refuses the key with other arguments or another tool: IDEMPOTENCY_KEY_REUSED, and nothing runs', async () => {
    const [sample] = await start();
    const agent = await connect(sample);
    const paymentId = await captured(agent);
    expect((await keyed(agent, 'payment.refund', { paymentId, amount: 20 }, key('refund-r2'))).isError).toBeFalsy();
    const reused = await keyed(agent, 'payment.refund', { paymentId, amount: 30 }, key('refund-r2'));
    expect(reused.isError).toBe(true);
    expect(reused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      tool: 'payment.refund',
      machine: 'payment',
    });
    expect(textOf(reused)).toBe(
      `IDEMPOTENCY_KEY_REUSED: idempotency key "refund-r2-${RUN}" was already used for a call of "payment.refund" with other arguments, so "payment.refund" did not run. Repeat that call exactly to get its result again, or use a new key for a new call.`,
    );
    const otherPayment = await captured(agent);
    const elsewhere = await keyed(agent, 'payment.void', { paymentId: otherPayment }, key('refund-r2'));
    expect(elsewhere._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', tool: 'payment.void' });
    expect(await refunds(agent, paymentId)).toEqual([{ kind: 'refund', amount: 20 }]);
    expect((await paymentStatus(agent, otherPayment)).state).toBe('captured');
  }, 60_000);

  it("keeps one principal's keys apart from another's: the same key runs for each", async () => {
    const [sample] = await start();
    const agent = await connect(sample);
    const paymentId = await captured(agent);
    expect((await keyed(agent, 'payment.refund', { paymentId, amount: 5 }, key('shared-key'))).isError).toBeFalsy();
    const bob = await connect(sample, { authorization: 'Bearer bob' });
    const bobs = await captured(bob);
    expect(await keyed(bob, 'payment.refund', { paymentId: bobs, amount: 5 }, key('shared-key'))).toMatchObject({
      structuredContent: { refunded: 5 },
    });
    expect(await refunds(bob, bobs)).toEqual([{ kind: 'refund', amount: 5 }]);
  }, 60_000);

  it('runs concurrent repeats once: one refund, and every answer is the refund or BUSY', async () => {
    const processes = await start();
    const agents = [await connect(processes[0]), await connect(processes[processes.length - 1])];
    const paymentId = await captured(agents[0]);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => keyed(agents[index % 2], 'payment.refund', { paymentId, amount: 15 }, key('refund-r4'))),
    );
    for (const answer of answers) {
      if (answer.isError) expect(answer._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'BUSY' });
      else expect(answer.structuredContent).toMatchObject({ refunded: 15 });
    }
    expect(answers.some((answer) => !answer.isError)).toBe(true);
    expect(await refunds(agents[0], paymentId)).toEqual([{ kind: 'refund', amount: 15 }]);
    const again = await keyed(agents[1], 'payment.refund', { paymentId, amount: 15 }, key('refund-r4'));
    expect(again.structuredContent).toMatchObject({ refunded: 15 });
  }, 60_000);

  it('refuses a key that is not a string of 1 to 255 characters with -32602 naming the field, and runs nothing', async () => {
    const [sample] = await start();
    const agent = await connect(sample);
    const paymentId = await captured(agent);
    for (const bad of ['', 'x'.repeat(256), 42, 'line\nbreak']) {
      const refused = await keyed(agent, 'payment.refund', { paymentId, amount: 5 }, bad).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect(refused).toMatchObject({ code: -32602 });
      expect((refused as McpError).message).toContain(
        'params._meta["nestjs-mcp-fsm/idempotency-key"] must be a string of 1 to 255 characters',
      );
    }
    expect(await refunds(agent, paymentId)).toEqual([]);
    expect((await keyed(agent, 'payment.refund', { paymentId, amount: 5 }, RUN.padEnd(255, 'k'))).isError).toBeFalsy();
  }, 60_000);
});
