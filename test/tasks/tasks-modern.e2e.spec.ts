import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { tasksModule } from '../fixtures/tasks.app.js';
import { eventually, mcpUrl } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** `Bearer <name>` is the caller <name>; no header is anonymous. */
const authenticate = (req: IncomingMessage) => {
  const name = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  return name ? { token: name, clientId: name, scopes: [] } : undefined;
};

const PROTOCOL = '2026-07-28';
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

type RawResponse = {
  result?: Record<string, unknown> & { structuredContent?: unknown };
  error?: { code: number; message: string; data?: unknown };
};

describe('MCP tasks in 2026-07-28 (the io.modelcontextprotocol/tasks extension)', () => {
  let app: INestApplication;
  let url: URL;
  let nextId = 1;

  /** One raw 2026-07-28 request by `principal`, declaring `capabilities`. */
  const raw = async (
    principal: string,
    method: string,
    params: Record<string, unknown>,
    capabilities: object = TASKS,
  ): Promise<RawResponse> => {
    const name = (params.name ?? params.taskId) as string | undefined;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL,
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name }),
        authorization: `Bearer ${principal}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL,
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': capabilities,
          },
        },
      }),
    });
    const body = await response.text();
    return JSON.parse(body.startsWith('{') ? body : /^data: (.*)$/m.exec(body)![1]) as RawResponse;
  };
  const createJob = async (principal: string) =>
    ((await raw(principal, 'tools/call', { name: 'job.create', arguments: {} })).result!.structuredContent as { jobId: string }).jobId;

  beforeEach(async () => {
    app = await listenApp([tasksModule({ auth: { fromRequest: authenticate }, transports: { http: { direct: true } } })]);
    url = await mcpUrl(app);
  });

  afterEach(() => app.close());

  it('runs a bound tool as a task of its requester, whose tasks/get inlines the step’s result', async () => {
    const jobId = await createJob('alice');
    const created = (await raw('alice', 'tools/call', { name: 'job.run', arguments: { jobId, delayMs: 200 } })).result!;
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 86_400_000, pollIntervalMs: 1_000 });
    const taskId = created.taskId as string;
    let task: Record<string, unknown> = {};
    await eventually(async () => (task = (await raw('alice', 'tasks/get', { taskId })).result!).status === 'completed', 5_000);
    expect(task.result).toMatchObject({ structuredContent: { ran: true, delayMs: 200 } });

    for (const other of ['bob', 'anonymous-looking']) {
      expect((await raw(other, 'tasks/get', { taskId })).error).toMatchObject({ code: -32602 });
      expect((await raw(other, 'tasks/cancel', { taskId })).error).toMatchObject({ code: -32602 });
    }
    expect((await raw('alice', 'tasks/get', { taskId }, {})).error).toMatchObject({ code: -32021 });
    expect((await raw('alice', 'tasks/list', {})).error).toMatchObject({ code: -32601 });
  });

  it('answers in-band without the extension, and -32021 for a tool that requires a task', async () => {
    const jobId = await createJob('alice');
    const inBand = (await raw('alice', 'tools/call', { name: 'job.run', arguments: { jobId } }, {})).result!;
    expect(inBand.resultType).toBe('complete');
    expect(inBand.structuredContent).toEqual({ ran: true, delayMs: 0 });
    const required = await raw('alice', 'tools/call', { name: 'job.hold', arguments: { jobId: await createJob('alice') } }, {});
    expect(required.error).toMatchObject({ code: -32021, data: { requiredCapabilities: TASKS } });
  });

  it('cancels a running task: an empty acknowledgement, the call abandoned, the instance unmoved', async () => {
    const jobId = await createJob('alice');
    const taskId = (await raw('alice', 'tools/call', { name: 'job.run', arguments: { jobId, delayMs: 500 } })).result!.taskId as string;
    expect((await raw('alice', 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    expect((await raw('alice', 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect((await raw('alice', 'tasks/get', { taskId })).result).toMatchObject({ status: 'cancelled' });
    expect((await raw('alice', 'tools/call', { name: 'job.run', arguments: { jobId } }, {})).result!.structuredContent).toEqual({
      ran: true,
      delayMs: 0,
    });
  });
});
