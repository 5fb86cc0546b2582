import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { DataSource } from 'typeorm';
import { WORKFLOW_TASK_RESULTS, type WorkflowTaskResults } from '../../lib/extend.js';
import { createMcpTaskMigration, TypeOrmMcpTaskStore } from '../../lib/typeorm.js';
import { tasksModule } from '../fixtures/tasks.app.js';
import { databaseTargets, uniqueSuffix, type DatabaseTarget } from '../utils/databases.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { connectClient, eventually, type TestClient } from '../utils/http-client.js';
import { startServerProcess, type SampleProcess } from '../utils/sample-process.js';

const SERVER = join(process.cwd(), 'test', 'fixtures', 'holding-tasks.server.mjs');
const targets = databaseTargets('a waiting task across a SIGKILL', { networkedOnly: true });
const describeTargets = targets.length
  ? describe.each(targets)
  : describe.skip.each<DatabaseTarget>([{ name: 'no server', options: () => ({ type: 'better-sqlite3', database: ':memory:' }) }]);

describeTargets('a task that waits, through a SIGKILL, on processes sharing $name', (target: DatabaseTarget) => {
  const tableName = `mcp_task_${uniqueSuffix()}_${randomBytes(3).toString('hex')}`;
  let dataSource: DataSource;
  let processes: SampleProcess[];
  let clients: TestClient[];
  let settler: INestApplication | undefined;

  const start = () =>
    startServerProcess(SERVER, {
      DB_TYPE: target.options().type as string,
      DB_URL: target.url!,
      TASK_TABLE: tableName,
      LEASE_MS: '1500',
      SWEEP_MS: '300',
    }).then((child) => {
      processes.push(child);
      return child;
    });
  const connect = async (child: SampleProcess, principal: string) => {
    const client = await connectClient(child.url, { authorization: `Bearer ${principal}` });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    dataSource = await openMigrated(target.options(), [createMcpTaskMigration({ tableName })], `${tableName}_migrations`);
  }, 60_000);

  afterAll(() => dropMigrated(dataSource), 60_000);

  beforeEach(() => {
    processes = [];
    clients = [];
    settler = undefined;
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(processes.map((child) => child.stop()));
    await settler?.close();
  });

  it('stays working after its process is killed, and another replica settles it for the requester to read', async () => {
    const [first, second] = [await start(), await start()];
    const agent = await connect(first, 'alice');
    const { jobId } = (await agent.call('job.create')).structuredContent as { jobId: string };
    const { task } = await agent.client.request(
      { method: 'tools/call', params: { name: 'job.hold', arguments: { jobId }, task: {} } },
      CreateTaskResultSchema,
    );
    await eventually(
      async () => (await agent.client.experimental.tasks.getTask(task.taskId)).statusMessage === 'Waits for a second person',
      5_000,
    );
    await first.stop('SIGKILL');
    const reader = await connect(second, 'alice');
    expect(await reader.client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'working',
      statusMessage: 'Waits for a second person',
    });
    const waiting = reader.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);

    // Another replica: an app in this process on the same task table settles the task, as an approval does.
    const moduleRef = await Test.createTestingModule({
      imports: [tasksModule({ tasks: { store: new TypeOrmMcpTaskStore(dataSource, { tableName }) } })],
    }).compile();
    settler = moduleRef.createNestApplication();
    await settler.init();
    await settler.get<WorkflowTaskResults>(WORKFLOW_TASK_RESULTS).settle(task.taskId, {
      content: [{ type: 'text', text: 'released' }],
      structuredContent: { released: true },
    });
    expect((await waiting).structuredContent).toEqual({ released: true });
    expect(await reader.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });
    const stranger = await connect(second, 'mallory');
    await expect(stranger.client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
  }, 60_000);

  it('carries on, on another process, a task of a workflow read whose process was killed while its call ran: never failed', async () => {
    const [first, second] = [await start(), await start()];
    const agent = await connect(first, 'alice');
    const { jobId } = (await agent.call('job.create')).structuredContent as { jobId: string };
    const { task } = await agent.client.request(
      { method: 'tools/call', params: { name: 'job.slow', arguments: { jobId }, task: {} } },
      CreateTaskResultSchema,
    );
    // Longer than a lease: the running process renews it, nobody takes it for gone.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await agent.client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await first.stop('SIGKILL');
    const reader = await connect(second, 'alice');
    await eventually(async () => (await reader.client.experimental.tasks.getTask(task.taskId)).status === 'completed', 10_000);
    // The call ran again on the second process, which answers as an in-band call there would: this fixture keeps each
    // process's jobs in memory, so the second one does not know the job (test/sample/sample-task-resume shares them).
    const result = await reader.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE', tool: 'job.slow' });
  }, 60_000);

  it('fails a task of a tool outside any workflow whose process was killed while its call ran, on the next sweep of another process', async () => {
    const [first, second] = [await start(), await start()];
    const agent = await connect(first, 'alice');
    const { task } = await agent.client.request(
      { method: 'tools/call', params: { name: 'job.wait', arguments: { note: 'n' }, task: {} } },
      CreateTaskResultSchema,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    await first.stop('SIGKILL');
    const reader = await connect(second, 'alice');
    await eventually(async () => (await reader.client.experimental.tasks.getTask(task.taskId)).status === 'failed', 10_000);
    expect((await reader.client.experimental.tasks.getTask(task.taskId)).statusMessage).toMatch(
      /^The server process running this task stopped/,
    );
    await expect(reader.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32603 });
  }, 60_000);
});
