import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseTargets } from '../utils/databases.js';
import { connectClient, eventually, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { paymentStatus, startSample, type SampleProcess } from '../utils/sample-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the sample waits in a payment handler, and how long the tests let a handler run before SIGTERM. */
const HANDLER_MS = 2000;
const BEFORE_SIGNAL_MS = 500;

describe.each(databaseTargets('graceful shutdown of the sample'))('the sample on SIGTERM, on $name', ({ url }) => {
  let dir: string;
  let env: Record<string, string>;
  let samples: SampleProcess[];
  let clients: TestClient[];

  const start = async (extra: Record<string, string> = {}) => {
    const sample = await startSample({ ...env, ...extra });
    samples.push(sample);
    return sample;
  };
  const connectTo = async (sample: SampleProcess) => {
    const client = await connectClient(sample.url);
    clients.push(client);
    return client;
  };
  const authorize = async (agent: TestClient, amount: number) => {
    const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-shutdown-'));
    env = url ? { DATABASE_URL: url } : { SAMPLE_DB: join(dir, 'sample.sqlite') };
    samples = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(samples.map((sample) => sample.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers the result of a call in flight at SIGTERM, once; after a restart on the same database the session goes on', async () => {
    const first = await start({ SAMPLE_HANDLER_DELAY_MS: String(HANDLER_MS) });
    const agent = await connectTo(first);
    await agent.call('invoice.submit');
    const paymentId = await authorize(agent, 12.5);
    const capture = agent.call('payment.capture', { paymentId });
    await sleep(BEFORE_SIGNAL_MS);
    const stopped = first.stop('SIGTERM');

    const result = await capture;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ captured: 12.5, currency: 'EUR' });
    await stopped;

    const sessionId = agent.transport.sessionId;
    await start({ PORT: first.url.port });
    expect(await paymentStatus(agent, paymentId)).toMatchObject({
      state: 'captured',
      ledger: [
        { kind: 'authorize', amount: 12.5 },
        { kind: 'capture', amount: 12.5 },
      ],
    });
    // The session's own invoice, submitted before the restart, is where it was left.
    expect((await agent.call('invoice.approve')).isError).toBeFalsy();
    expect(agent.transport.sessionId).toBe(sessionId);
  });

  it('answers a call that outlives the drain with a JSON-RPC error, and stores none of it', async () => {
    const first = await start({ SAMPLE_HANDLER_DELAY_MS: String(HANDLER_MS * 2), SAMPLE_DRAIN_MS: '1000' });
    const agent = await connectTo(first);
    const paymentId = await authorize(agent, 30);
    // A hang would end in the SDK's own RequestTimeout (-32001), not in the server's answer.
    const capture = agent.client.callTool({ name: 'payment.capture', arguments: { paymentId } }, undefined, { timeout: 20_000 }).then(
      () => new Error('the capture was answered with a result'),
      (error: unknown) => error,
    );
    await sleep(BEFORE_SIGNAL_MS);
    const stopped = first.stop('SIGTERM');

    const error = await capture;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32000);
    expect((error as McpError).code).not.toBe(ErrorCode.RequestTimeout);
    expect((error as McpError).message).toMatch(/shut down before the call finished .*workflow transition was not stored/);
    await stopped;

    const reader = await connectTo(await start());
    expect(await paymentStatus(reader, paymentId)).toEqual({
      paymentId,
      state: 'authorized',
      refundable: 0,
      ledger: [{ kind: 'authorize', amount: 30 }],
    });
    // Nothing holds the payment any more: the capture goes through on the next process.
    expect((await reader.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect((await paymentStatus(reader, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);
  });
});

describe('the sample on SIGTERM and on slow or half-open connections, on SQLite', () => {
  let dir: string;
  let sample: SampleProcess | undefined;
  let clients: TestClient[];

  const start = async (extra: Record<string, string> = {}) => {
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), ...extra });
    return sample;
  };
  const connectTo = async (to: SampleProcess) => {
    const client = await connectClient(to.url);
    clients.push(client);
    return client;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-shutdown-'));
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await sample?.stop();
    sample = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses new sessions and new requests while it drains: 503, Retry-After and a JSON-RPC error', async () => {
    const draining = await start({ SAMPLE_HANDLER_DELAY_MS: String(HANDLER_MS) });
    const agent = await connectTo(draining);
    const started = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const capture = agent.call('payment.capture', { paymentId });
    await sleep(BEFORE_SIGNAL_MS);
    const stopped = draining.stop('SIGTERM');

    // Requests sent before Nest reaches the module's shutdown hook are still served.
    await eventually(() => draining.stderr().includes('Shutting down: 1 MCP request(s) in flight'), HANDLER_MS);
    const refused = await postMcp(draining.url, RAW_INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: expect.stringMatching(/shutting down/) },
    });

    const onSession = await postMcp(
      draining.url,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { 'mcp-session-id': agent.transport.sessionId! },
    );
    expect(onSession.status).toBe(503);
    expect(onSession.headers.get('retry-after')).toBe('1');
    expect(await onSession.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32000 } });

    expect((await capture).isError).toBeFalsy();
    await stopped;
  });

  it('replaces a GET stream that went silent when its session opens a new one, and sends the new one the notifications', async () => {
    const served = await start();
    const initialized = await postMcp(served.url, RAW_INITIALIZE);
    const sessionId = initialized.headers.get('mcp-session-id')!;
    await initialized.body?.cancel();
    const session = { 'mcp-session-id': sessionId };
    await (await postMcp(served.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const authorized = await (await postMcp(served.url, rawCall(2, 'payment.authorize', { amount: 8, currency: 'EUR' }), session)).text();
    const { paymentId } = sseResult(authorized, 2).structuredContent as { paymentId: string };

    const silent = await openSilentGet(served.url, sessionId);
    try {
      // Within 5 s of its opening the stream is kept (two loops of one client do not take turns); a half-open one is replaced after.
      const early = await fetch(served.url, { headers: { accept: 'text/event-stream', ...session } });
      expect([early.status, await early.text()]).toEqual([409, expect.stringContaining('opened')]);
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      const reopened = await fetch(served.url, { headers: { accept: 'text/event-stream', ...session } });
      expect(reopened.status).toBe(200);
      expect(reopened.headers.get('content-type')).toMatch(/^text\/event-stream/);

      const other = await connectTo(served);
      expect((await other.call('payment.capture', { paymentId })).isError).toBeFalsy();
      expect(await readUntil(reopened, 'notifications/tools/list_changed')).toContain('notifications/tools/list_changed');
    } finally {
      silent.destroy();
    }
  });

  it('drops a request whose body trickles in past its request timeout, and still streams a longer call', async () => {
    const guarded = await start({ SAMPLE_REQUEST_TIMEOUT_MS: '2000', SAMPLE_HANDLER_DELAY_MS: '2500' });
    const startedAt = Date.now();
    const loris = await slowBody(guarded.url, 4096);
    const droppedAfterMs = loris.closedAt - startedAt;
    expect(loris.response).toMatch(/^HTTP\/1\.1 408 /);
    expect(loris.sent).toBeLessThan(4096);
    // The request timeout (2 s) plus Node's check interval (1 s in the sample), far below Node's 300 s.
    expect(droppedAfterMs).toBeLessThan(10_000);

    const agent = await connectTo(guarded);
    const started = await agent.call('payment.authorize', { amount: 3, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
  });
});

/** A raw `tools/call` request. */
function rawCall(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** The result of response `id` in an SSE body. */
function sseResult(body: string, id: number): { structuredContent?: unknown } {
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const message = JSON.parse(line.slice(6)) as { id?: number; result?: { structuredContent?: unknown } };
    if (message.id === id && message.result) return message.result;
  }
  throw new Error(`no result for request ${id} in:\n${body}`);
}

/** Opens a session's GET stream on a raw socket, reads its response head, then neither reads nor closes: a half-open client. */
async function openSilentGet(url: URL, sessionId: string): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${sessionId}\r\n\r\n`);
  const head = await new Promise<string>((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\r\n\r\n')) resolve(text);
    });
    socket.once('error', reject);
  });
  expect(head).toMatch(/^HTTP\/1\.1 200 /);
  socket.pause();
  return socket;
}

/** Reads an SSE response until `marker` arrives (or 5 s pass), then cancels it. */
async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => void reader.cancel(), 5000);
  try {
    while (!text.includes(marker)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** POSTs a body of `length` bytes one byte every 100 ms until the server closes the connection (the client gives up after 15 s). */
async function slowBody(url: URL, length: number): Promise<{ response: string; sent: number; closedAt: number }> {
  const socket = connect(Number(url.port), url.hostname);
  socket.write(
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`,
  );
  let sent = 0;
  let response = '';
  const trickle = setInterval(() => {
    if (sent < length && socket.writable) {
      socket.write(' ');
      sent += 1;
    }
  }, 100);
  socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
  socket.on('error', () => undefined);
  const giveUp = setTimeout(() => socket.destroy(), 15_000);
  await new Promise((resolve) => socket.once('close', resolve));
  clearTimeout(giveUp);
  clearInterval(trickle);
  return { response, sent, closedAt: Date.now() };
}
