import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import { databaseTargets, type DatabaseTarget } from '../utils/databases.js';
import { connectClient, eventually, type TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup, type SampleProcess } from '../utils/sample-process.js';

/** How long a task's process holds it without renewing, and how often the other processes look for tasks whose process stopped. */
const LEASE_MS = 1_500;
const SWEEP_MS = 300;

const ALICE = { authorization: 'Bearer alice;org=acme' };
const CAROL = { authorization: 'Bearer carol;org=acme;payments:approve' };

/** A captured payment of `amount` EUR, started by `agent`. */
async function captured(agent: TestClient, amount: number): Promise<string> {
  const { paymentId } = (await agent.call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string };
  expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
  return paymentId;
}

/** `payment.refund` of `amount` as an MCP task; the task as answered at once. */
async function refundTask(agent: TestClient, paymentId: string, amount: number): Promise<Task> {
  const params = { name: 'payment.refund', arguments: { paymentId, amount }, task: { ttl: 600_000 } };
  return (await agent.client.request({ method: 'tools/call', params }, CreateTaskResultSchema)).task;
}

const taskOf = (agent: TestClient, taskId: string): Promise<Task> => agent.client.experimental.tasks.getTask(taskId);
const resultOf = (agent: TestClient, taskId: string) =>
  agent.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema) as Promise<CallToolResult>;
const refunds = async (agent: TestClient, paymentId: string) =>
  (await paymentStatus(agent, paymentId)).ledger.filter((entry) => entry.kind === 'refund');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(databaseTargets('sample tasks carried on after a SIGKILL'))(
  'the sample: a refund task carried on, on $name',
  (target: DatabaseTarget) => {
    let dir: string;
    let samples: SampleGroup;
    let clients: TestClient[];
    const base = () => ({
      SAMPLE_AUTH: 'optional',
      SAMPLE_TASK_LEASE_MS: String(LEASE_MS),
      ...(target.url ? { DATABASE_URL: target.url } : { SAMPLE_DB: join(dir, 'sample.sqlite') }),
    });
    const connect = async (sample: SampleProcess, headers: Record<string, string>) => {
      const agent = await connectClient(sample.url, headers);
      clients.push(agent);
      return agent;
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'sample-task-resume-'));
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

    it('completes, with exactly one refund, a task whose process was killed before its step committed', async () => {
      // The first process holds the refund in its handler (inside the step's transaction) for 4 s.
      const first = await samples.start({ ...base(), SAMPLE_HANDLER_DELAY_MS: '4000', SAMPLE_TASK_SWEEP_MS: '600000' });
      // On SQLite the one process is restarted: it finds the task at boot (its next sweep is 10 minutes away).
      const other = target.url ? await samples.start({ ...base(), SAMPLE_TASK_SWEEP_MS: String(SWEEP_MS) }) : undefined;
      const starter = await connect(other ?? first, ALICE);
      const paymentId = await captured(starter, 60);
      const alice = await connect(first, ALICE);
      const task = await refundTask(alice, paymentId, 15);
      await sleep(1_000);
      await first.stop('SIGKILL');
      await sleep(LEASE_MS + 500);

      const survivor = other ?? (await samples.start({ ...base(), SAMPLE_TASK_SWEEP_MS: '600000' }));
      const reader = await connect(survivor, ALICE);
      await eventually(async () => (await taskOf(reader, task.taskId)).status === 'completed', 20_000);
      expect((await resultOf(reader, task.taskId)).structuredContent).toMatchObject({ refunded: 15, currency: 'EUR' });
      expect(await refunds(reader, paymentId)).toEqual([{ kind: 'refund', amount: 15 }]);
      expect((await paymentStatus(reader, paymentId)).state).toBe('partially_refunded');
    }, 90_000);

    (target.url ? it : it.skip)(
      'keeps a task working until its decision when its process was killed between parking the refund and releasing the task',
      async () => {
        const lock = await new DataSource(target.options()).initialize();
        try {
          const first = await samples.start({ ...base(), SAMPLE_TASK_SWEEP_MS: '600000' });
          const second = await samples.start({ ...base(), SAMPLE_TASK_SWEEP_MS: String(SWEEP_MS) });
          const alice = await connect(first, ALICE);
          const watcher = await connect(second, ALICE);
          const { paymentId, taskId } = await parkedWhileTaskLocked(lock, alice, watcher);
          await first.stop('SIGKILL');
          await releaseLocks();

          await eventually(
            async () => (await taskOf(watcher, taskId)).statusMessage?.includes('waits for a second person') === true,
            15_000,
          );
          // Past its old lease and several sweeps: nothing fails it, and nothing runs the refund.
          await sleep(LEASE_MS + 4 * SWEEP_MS);
          expect(await taskOf(watcher, taskId)).toMatchObject({ status: 'working' });
          expect(await refunds(watcher, paymentId)).toEqual([]);

          const carol = await connect(second, CAROL);
          const { pendingRefund } = (await carol.call('payment.status', { paymentId })).structuredContent as {
            pendingRefund: { requestId: string };
          };
          expect((await carol.call('payment.approve_refund', { paymentId, requestId: pendingRefund.requestId })).isError).toBeFalsy();
          await eventually(async () => (await taskOf(watcher, taskId)).status === 'completed', 10_000);
          expect((await resultOf(watcher, taskId)).structuredContent).toMatchObject({ refunded: 150 });
          expect(await refunds(watcher, paymentId)).toEqual([{ kind: 'refund', amount: 150 }]);
        } finally {
          await releaseLocks();
          await lock.destroy();
        }
      },
      120_000,
    );

    const held: Array<{ rollback: () => Promise<void> }> = [];
    const releaseLocks = async () => {
      for (const runner of held.splice(0)) await runner.rollback();
    };

    /**
     * Asks `alice` for a refund above the approval threshold as a task and locks its task row at
     * once, until the refund is parked (`refund_pending`, read through `watcher`): its process
     * stored the step and waits to record the task's wait. When the process recorded it first
     * (the lock came too late), tries again with a new payment.
     */
    async function parkedWhileTaskLocked(lock: DataSource, alice: TestClient, watcher: TestClient) {
      const placeholder = target.options().type === 'postgres' ? '$1' : '?';
      for (let attempt = 0; attempt < 20; attempt++) {
        const paymentId = await captured(alice, 200);
        const runner = lock.createQueryRunner();
        await runner.startTransaction();
        const task = await refundTask(alice, paymentId, 150);
        const [row] = (await runner.query(`SELECT lease_until FROM mcp_task WHERE task_id = ${placeholder} FOR UPDATE`, [
          task.taskId,
        ])) as Array<{
          lease_until: string | number | null;
        }>;
        if (row?.lease_until === null || row === undefined) {
          await runner.rollbackTransaction();
          await runner.release();
          continue;
        }
        held.push({
          rollback: async () => {
            await runner.rollbackTransaction().catch(() => undefined);
            await runner.release();
          },
        });
        await eventually(async () => (await paymentStatus(watcher, paymentId)).state === 'refund_pending', 10_000);
        return { paymentId, taskId: task.taskId };
      }
      throw new Error('the task row was never locked before its process recorded the wait');
    }
  },
);
