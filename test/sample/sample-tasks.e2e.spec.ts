import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { databaseTargets, type DatabaseTarget } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

// Replicas matter here: the sample processes share a PostgreSQL database.
const targets = databaseTargets('sample tasks on a shared database', { networkedOnly: true }).filter(
  (target) => target.name === 'PostgreSQL',
);
const describeTargets = targets.length
  ? describe.each(targets)
  : describe.skip.each<DatabaseTarget>([{ name: 'no server', options: () => ({ type: 'better-sqlite3', database: ':memory:' }) }]);

/** One audience for every process, so a token works on each of them. */
const AUDIENCE = 'urn:nestjs-mcp-fsm:sample-tasks';

describeTargets('payment.refund as an MCP task on sample processes sharing $name', ({ url }) => {
  let issuer: TestIssuer;
  let samples: SampleProcess[];
  let clients: BearerClient[];

  const env = () => ({
    DATABASE_URL: url!,
    SAMPLE_AUTH: 'jwt',
    SAMPLE_JWT_ISSUER: issuer.issuer,
    SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    SAMPLE_JWT_AUDIENCE: AUDIENCE,
  });
  const connect = async (sample: SampleProcess, sub: string) => {
    const client = await connectBearerClient(sample.url, await issuer.sign({ sub, scope: 'payments:refund' }, { audience: AUDIENCE }));
    clients.push(client);
    return client;
  };
  const capturedPayment = async (agent: BearerClient) => {
    const { paymentId } = (await agent.call('payment.authorize', { amount: 40, currency: 'EUR' })).structuredContent as {
      paymentId: string;
    };
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    return paymentId;
  };
  const refundTask = async (agent: BearerClient, paymentId: string) =>
    (
      await agent.client.request(
        { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount: 15 }, task: { ttl: 600_000 } } },
        CreateTaskResultSchema,
      )
    ).task;
  const taskOf = (agent: BearerClient, taskId: string): Promise<Task> => agent.client.experimental.tasks.getTask(taskId);

  beforeAll(async () => {
    issuer = await TestIssuer.start();
  });

  beforeEach(async () => {
    clients = [];
    samples = [await startSample(env()), await startSample(env())];
  }, 60_000);

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(samples.map((sample) => sample.stop()));
  });

  afterAll(() => issuer.close());

  it('returns a task whose result is the refund, answered by another process after a SIGKILL', async () => {
    const [first, second] = samples;
    const alice = await connect(first, 'alice');
    expect(alice.client.getServerCapabilities()?.tasks?.requests?.tools?.call).toEqual({});
    const paymentId = await capturedPayment(alice);
    const task = await refundTask(alice, paymentId);
    expect(task).toMatchObject({ status: 'working', ttl: 600_000 });
    const result = (await alice.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ refunded: 15, currency: 'EUR', message: 'Refund recorded.' });

    await first.stop('SIGKILL');
    const again = await connect(second, 'alice');
    expect(await taskOf(again, task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
    const fromSecond = (await again.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(fromSecond.structuredContent).toEqual(result.structuredContent);
    expect((await again.client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toContain(task.taskId);
    const status = (await again.call('payment.status', { paymentId })).structuredContent as { ledger: { kind: string; amount: number }[] };
    expect(status.ledger.filter((entry) => entry.kind === 'refund')).toEqual([{ kind: 'refund', amount: 15 }]);
  }, 60_000);

  it("is its requester's alone on every process: another principal cannot get, result, list or cancel it", async () => {
    const [first, second] = samples;
    const alice = await connect(first, 'alice');
    const task = await refundTask(alice, await capturedPayment(alice));
    for (const bob of [await connect(first, 'bob'), await connect(second, 'bob')]) {
      await expect(taskOf(bob, task.taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(bob.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
      await expect(bob.client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
      expect((await bob.client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).not.toContain(task.taskId);
    }
    await eventually(async () => (await taskOf(alice, task.taskId)).status === 'completed', 10_000);
  }, 60_000);
});
