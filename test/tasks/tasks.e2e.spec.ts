import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  TaskStatusNotificationSchema,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { McpTaskStore, WORKFLOW_TASK_RESULTS, type WorkflowTaskResults } from '../../lib/extend.js';
import { createMcpTestClient, taskRecord } from '../../lib/testing.js';
import { HELD_MESSAGE, JobLog, tasksModule } from '../fixtures/tasks.app.js';
import type { IncomingMessage } from 'node:http';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

const TASKS = { tasks: { requests: { tools: { call: {} } } } };

describe('MCP tasks (2025-11-25) on a bound tool', () => {
  let app: INestApplication;
  let clients: Client[];

  const connect = async (clientId?: string) => {
    const client = await createMcpTestClient(app, { capabilities: TASKS, ...(clientId ? { auth: { clientId, scopes: [] } } : {}) });
    clients.push(client);
    return client;
  };
  const createJob = async (client: Client) =>
    ((await client.callTool({ name: 'job.create', arguments: {} })).structuredContent as { jobId: string }).jobId;
  const startTask = async (client: Client, name: string, args: Record<string, unknown>, ttl = 60_000) =>
    (await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl } } }, CreateTaskResultSchema)).task;
  const settled = async (client: Client, taskId: string): Promise<Task> => {
    let task: Task | undefined;
    await eventually(async () => {
      task = await client.experimental.tasks.getTask(taskId);
      return ['completed', 'failed', 'cancelled'].includes(task.status);
    });
    return task!;
  };

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [tasksModule({ tasks: { pollIntervalMs: 50 } })] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('declares tasks and lists which tools accept one', async () => {
    const client = await connect('alice');
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    await createJob(client);
    const { tools } = await client.listTools();
    const execution = Object.fromEntries(tools.map((tool) => [tool.name, tool.execution?.taskSupport]));
    expect(execution).toEqual({ 'job.create': undefined, 'job.status': undefined, 'job.run': 'optional', 'job.hold': 'required' });
  });

  it('answers the task at once and completes it with the step the call ran', async () => {
    const client = await connect('alice');
    const statuses: Task[] = [];
    client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void statuses.push(notification.params as Task));
    const jobId = await createJob(client);
    const task = await startTask(client, 'job.run', { jobId, delayMs: 300 }, 120_000);
    expect(task).toMatchObject({ status: 'working', ttl: 120_000, pollInterval: 50 });
    expect(app.get(JobLog).runs).toEqual([]);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ ran: true, delayMs: 300 });
    expect(result._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'job', state: 'done' });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    await eventually(() => statuses.some((status) => status.taskId === task.taskId && status.status === 'completed'));
    expect((await client.experimental.tasks.listTasks()).tasks.map((listed) => listed.taskId)).toEqual([task.taskId]);
  });

  it('completes with the refusal as a tool error, as an in-band call answers it', async () => {
    const client = await connect('alice');
    const jobId = await createJob(client);
    await client.callTool({ name: 'job.run', arguments: { jobId } });
    const task = await startTask(client, 'job.run', { jobId });
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^FORBIDDEN: "job.run" is not available while job is "done"/);
  });

  it('fails a call that threw with the error of an in-band call', async () => {
    const client = await connect('alice');
    const jobId = await createJob(client);
    const task = await startTask(client, 'job.run', { jobId, fail: true });
    const result = (await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((await settled(client, task.taskId)).status).toBe('completed');
  });

  it('is its requester’s alone: another principal gets, results, lists and cancels nothing', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob');
    const jobId = await createJob(alice);
    const task = await startTask(alice, 'job.run', { jobId, delayMs: 500 });
    await expect(bob.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(bob.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
    await expect(bob.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await bob.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect((await settled(alice, task.taskId)).status).toBe('completed');
    // The same principal on another session sees it.
    const again = await connect('alice');
    expect((await again.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
  });

  it('cancels a running task: its call is abandoned and nothing is stored', async () => {
    const client = await connect('alice');
    const jobId = await createJob(client);
    const task = await startTask(client, 'job.run', { jobId, delayMs: 600 });
    expect(await client.experimental.tasks.cancelTask(task.taskId)).toMatchObject({ status: 'cancelled' });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    // The instance did not move: the job runs again in-band.
    expect((await client.callTool({ name: 'job.run', arguments: { jobId } })).isError).toBeFalsy();
  });

  it('keeps a task that waits working with its message until it is settled through WORKFLOW_TASK_RESULTS', async () => {
    const client = await connect('alice');
    const jobId = await createJob(client);
    await expect(client.callTool({ name: 'job.hold', arguments: { jobId } })).rejects.toMatchObject({ code: -32601 });
    const task = await startTask(client, 'job.hold', { jobId });
    await eventually(async () => (await client.experimental.tasks.getTask(task.taskId)).statusMessage === HELD_MESSAGE);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    const settledResult = { content: [{ type: 'text' as const, text: 'released' }], structuredContent: { released: true } };
    await app.get<WorkflowTaskResults>(WORKFLOW_TASK_RESULTS).settle(task.taskId, settledResult);
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ released: true });
  });

  it('refuses a task of a tool that accepts none, and a requester over the cap', async () => {
    await app.close();
    const moduleRef = await Test.createTestingModule({ imports: [tasksModule({ tasks: { maxActivePerRequester: 1 } })] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    const client = await connect('alice');
    const jobId = await createJob(client);
    await expect(startTask(client, 'job.status', { jobId })).rejects.toMatchObject({ code: -32601 });
    await startTask(client, 'job.run', { jobId, delayMs: 1_000 });
    await expect(startTask(client, 'job.run', { jobId: await createJob(client) })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('tasks.maxActivePerRequester'),
    });
  });

  it('forgets a task once its ttl passed', async () => {
    const client = await connect('alice');
    const jobId = await createJob(client);
    const task = await startTask(client, 'job.run', { jobId }, 1_000);
    expect(task.ttl).toBe(1_000);
    expect((await settled(client, task.taskId)).status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });
});

describe('MCP tasks (2025-11-25) on stateless HTTP', () => {
  let app: INestApplication;
  let clients: TestClient[];

  /** `Bearer <name>` is the caller <name>; no header is anonymous. */
  const authenticate = (req: IncomingMessage) => {
    const name = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    return name ? { token: name, clientId: name, scopes: [] } : undefined;
  };
  const connect = async (principal?: string) => {
    const client = await connectClient(await mcpUrl(app), principal ? { authorization: `Bearer ${principal}` } : undefined);
    clients.push(client);
    return client.client;
  };

  beforeEach(async () => {
    app = await listenApp([
      tasksModule({ auth: { fromRequest: authenticate }, transports: { http: { stateless: true } }, gate: { handleToolsMenu: 'all' } }),
    ]);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it("binds each task to the request's principal: every later request of theirs finds it, nobody else's", async () => {
    const alice = await connect('alice');
    const { jobId } = (await alice.callTool({ name: 'job.create', arguments: {} })).structuredContent as { jobId: string };
    const { task } = await alice.request(
      { method: 'tools/call', params: { name: 'job.run', arguments: { jobId }, task: {} } },
      CreateTaskResultSchema,
    );
    const result = await alice.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ ran: true, delayMs: 0 });
    const bob = await connect('bob');
    await expect(bob.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    const anonymous = await connect();
    await expect(anonymous.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
    await expect(
      anonymous.request({ method: 'tools/call', params: { name: 'job.run', arguments: { jobId }, task: {} } }, CreateTaskResultSchema),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('anonymous stateless call') });
  });
});

describe('MCP tasks whose process stopped', () => {
  it('fails a working task whose lease ran out, and tells its requester', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [tasksModule({ tasks: { sweepIntervalMs: 50, pollIntervalMs: 50 } })],
    }).compile();
    const app = moduleRef.createNestApplication();
    await app.init();
    const client = await createMcpTestClient(app, { capabilities: TASKS, auth: { clientId: 'alice', scopes: [] } });
    try {
      const statuses: Task[] = [];
      client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => void statuses.push(notification.params as Task));
      // A task another process was running when it died: its lease ran out a second ago.
      const orphan = { ...taskRecord('principal:alice', Date.now(), 60_000), leaseUntil: Date.now() - 1_000 };
      await app.get<McpTaskStore>(McpTaskStore).create(orphan);
      await eventually(async () => (await client.experimental.tasks.getTask(orphan.taskId)).status === 'failed', 5_000);
      await expect(client.experimental.tasks.getTaskResult(orphan.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32603 });
      // A running call renews its own lease: it completes.
      const { jobId } = (await client.callTool({ name: 'job.create', arguments: {} })).structuredContent as { jobId: string };
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'job.run', arguments: { jobId, delayMs: 300 }, task: {} } },
        CreateTaskResultSchema,
      );
      expect((await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).structuredContent).toEqual({
        ran: true,
        delayMs: 300,
      });
    } finally {
      await client.close();
      await app.close();
    }
  });
});
