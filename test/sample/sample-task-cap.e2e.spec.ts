import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { databaseTargets, type DatabaseTarget } from '../utils/databases.js';
import { connectClient, type TestClient } from '../utils/http-client.js';
import { SampleGroup, type SampleProcess } from '../utils/sample-process.js';

/** The sample's cap on one requester's unfinished tasks (`tasks.maxActivePerRequester`, its default). */
const MAX_ACTIVE = 100;
const BURST = 300;

/**
 * The cap on a requester's unfinished tasks is counted and inserted in one atomic step: a burst
 * of 300 task-augmented calls split across two sample processes sharing the database gets
 * exactly 100 tasks (0.4 counted, then inserted, and a burst reached 153).
 */
describe.each(databaseTargets('the task cap on two sample processes'))(
  'a burst of task-augmented refunds on two sample processes sharing $name',
  (target: DatabaseTarget) => {
    let samples: SampleGroup;
    let directory: string | undefined;
    let clients: TestClient[];

    beforeAll(async () => {
      samples = new SampleGroup();
      directory = target.url ? undefined : mkdtempSync(join(tmpdir(), 'task-cap-'));
      const env = {
        SAMPLE_AUTH: 'optional',
        // Every refund waits for a second person: its task stays working.
        SAMPLE_APPROVAL_THRESHOLD: '0',
        ...(target.url ? { DATABASE_URL: target.url } : { SAMPLE_DB: join(directory!, 'sample.sqlite') }),
      };
      const first: SampleProcess = await samples.start(env);
      const second: SampleProcess = await samples.start(env);
      const requester = `alice-${Date.now().toString(36)}`;
      clients = await Promise.all([first, second].map((sample) => connectClient(sample.url, { Authorization: `Bearer ${requester}` })));
    }, 60_000);

    afterAll(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await samples.stop();
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    /** A captured payment of 50. */
    const capturedPayment = async (agent: TestClient): Promise<string> => {
      const authorized = await agent.call('payment.authorize', { amount: 50, currency: 'EUR' });
      expect(authorized.isError).toBeFalsy();
      const { paymentId } = authorized.structuredContent as { paymentId: string };
      expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
      return paymentId;
    };

    it(`accepts exactly ${MAX_ACTIVE} of ${BURST} tasks asked at once, and refuses the rest naming the cap`, async () => {
      const captured: string[] = [];
      for (let batch = 0; batch < BURST / 10; batch++) {
        captured.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => capturedPayment(clients[i % 2])))));
      }
      const answers = await Promise.all(
        captured.map((paymentId, i) =>
          clients[i % 2].client
            .request(
              { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId }, task: { ttl: 600_000 } } },
              CreateTaskResultSchema,
            )
            .then(
              (created) => created.task,
              (error: unknown) => {
                if (error instanceof McpError) return error;
                throw error;
              },
            ),
        ),
      );
      const refused = answers.filter((answer) => answer instanceof McpError);
      expect(answers.length - refused.length).toBe(MAX_ACTIVE);
      expect(refused.every((error) => error.code === -32602 && error.message.includes('tasks.maxActivePerRequester'))).toBe(true);
      const listed = [];
      let cursor: string | undefined;
      do {
        const page = await clients[1].client.experimental.tasks.listTasks(cursor);
        listed.push(...page.tasks);
        cursor = page.nextCursor;
      } while (cursor);
      // Every process lists the same 100: no task was created beyond the cap (one whose refund
      // failed to be stored, as a concurrent start on MariaDB can, has ended instead of waiting).
      expect(new Set(listed.map((task) => task.taskId)).size).toBe(MAX_ACTIVE);
    }, 180_000);
  },
);
