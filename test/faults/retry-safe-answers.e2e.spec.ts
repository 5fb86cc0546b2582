import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describeNetworkedTargets, type DatabaseTarget } from '../utils/databases.js';
import { connectClient, eventually, postMcpRaw, textOf, type TestClient } from '../utils/http-client.js';
import { SampleGroup, type SampleProcess } from '../utils/sample-process.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

const SECRET = 'whsec_retry_safe';
const ALICE = { authorization: 'Bearer alice' };

/** What one raw request to the sample answered: its HTTP status, `Retry-After`, and its JSON-RPC message (a 200's). */
interface Answer {
  status: number;
  retryAfter?: string;
  message?: {
    result?: { isError?: boolean; content?: Array<{ text?: string }>; _meta?: Record<string, unknown> };
    error?: { code: number; message: string };
  };
  body: string;
}

/** A JSON-RPC request on alice's session, over a connection of its own. */
async function onSession(sample: SampleProcess, agent: TestClient, method: string, params: Record<string, unknown>): Promise<Answer> {
  const headers = { ...ALICE, 'mcp-session-id': agent.transport.sessionId!, 'mcp-protocol-version': '2025-11-25' };
  const reply = await postMcpRaw(sample.url, { jsonrpc: '2.0', id: 7, method, params }, headers);
  const message = reply.status === 200 ? sentMessages(reply.body).find((sent) => sent.id === 7) : undefined;
  return {
    status: reply.status,
    retryAfter: reply.headers['retry-after'] as string | undefined,
    message: message as Answer['message'],
    body: reply.body,
  };
}

/** The JSON-RPC messages of a reply: its JSON body, or the non-empty `data:` lines of its SSE stream (a priming event has none). */
function sentMessages(body: string): Array<Answer['message'] & { id?: unknown }> {
  const text = body.trim();
  if (text.startsWith('{')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
}

/** The status a GET that opens the session's stream is answered with (the stream itself is left at once). */
function openStream(sample: SampleProcess, agent: TestClient): Promise<{ status: number; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: sample.url.hostname,
        port: sample.url.port,
        path: sample.url.pathname,
        method: 'GET',
        headers: {
          ...ALICE,
          accept: 'text/event-stream',
          'mcp-session-id': agent.transport.sessionId!,
          'mcp-protocol-version': '2025-11-25',
        },
      },
      (res) => {
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
        req.destroy();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** POSTs the provider's signed revocation of `paymentId`. */
async function revoke(sample: SampleProcess, eventId: string, paymentId: string) {
  const body = JSON.stringify({ id: eventId, type: 'authorization.revoked', paymentId });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(new URL('/webhooks/psp', sample.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signature },
    body,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
}

/** A call that did not run and says to retry: the tool error STATE_UNAVAILABLE, a JSON-RPC -32000 naming it, or HTTP 503 with Retry-After. */
function expectRetryable(answer: Answer): void {
  expect(answer.status).not.toBe(500);
  if (answer.status === 503) {
    expect(answer.retryAfter).toMatch(/^\d+$/);
    return;
  }
  expect(answer.status).toBe(200);
  if (answer.message?.error) {
    expect(answer.message.error.code).toBe(-32000);
    expect(answer.message.error.message).toMatch(/^STATE_UNAVAILABLE: .*(nothing was done|try again)/);
    return;
  }
  expect(answer.message?.result?.isError).toBe(true);
  expect(answer.message?.result?._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });
  expect(answer.message?.result?.content?.[0]?.text).toMatch(/did not run\. Try again later\.$/);
}

describeNetworkedTargets('retry-safe answers with the database cut')(
  'the sample with $name cut: every answer says it did not run and to retry',
  (target: DatabaseTarget) => {
    let proxy: TcpProxy;
    let samples: SampleGroup;
    let sample: SampleProcess;
    let alice: TestClient;

    beforeEach(async () => {
      proxy = await startProxy(target.url!);
      samples = new SampleGroup();
      sample = await samples.start({
        DATABASE_URL: proxy.rewrite(target.url!),
        SAMPLE_AUTH: 'optional',
        SAMPLE_WEBHOOK_SECRET: SECRET,
        SAMPLE_STORE_TIMEOUT_MS: '1500',
      });
      alice = await connectClient(sample.url, ALICE);
    }, 60_000);

    afterEach(async () => {
      await sample.stop('SIGKILL');
      await alice.close().catch(() => undefined);
      await samples.stop();
      proxy.heal();
      await proxy.stop();
    }, 60_000);

    for (const cut of ['reset', 'blackhole'] as const) {
      it(`answers STATE_UNAVAILABLE or 503 + Retry-After, never 500, on a live session and the webhook (${cut}); works again after`, async () => {
        const started = await alice.call('payment.authorize', { amount: 80, currency: 'EUR' });
        const { paymentId } = started.structuredContent as { paymentId: string };
        expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();
        const other = (await alice.call('payment.authorize', { amount: 10, currency: 'EUR' })).structuredContent as { paymentId: string };
        const params = { name: 'payment.refund', arguments: { paymentId, amount: 5 }, task: { ttl: 600_000 } };
        const { task } = await alice.client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
        expect((await alice.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).isError).toBeFalsy();

        if (cut === 'reset') await proxy.stop();
        else proxy.partition();
        // Past the session's touch interval: the next request of the live session writes its last-seen time.
        await new Promise((resolve) => setTimeout(resolve, 1_200));

        expectRetryable(await onSession(sample, alice, 'tools/call', { name: 'payment.refund', arguments: { paymentId, amount: 5 } }));
        expectRetryable(await onSession(sample, alice, 'tools/call', params));
        expectRetryable(await onSession(sample, alice, 'tasks/get', { taskId: task.taskId }));
        expectRetryable(await onSession(sample, alice, 'tasks/list', {}));
        expectRetryable(await onSession(sample, alice, 'tasks/cancel', { taskId: task.taskId }));
        expectRetryable(await onSession(sample, alice, 'tools/list', {}));
        // A GET is served after the session's touch failed: 200, or 409 while alice's own stream is younger than 5 s.
        expect([200, 409]).toContain((await openStream(sample, alice)).status);
        const refused = await alice.call('payment.refund', { paymentId, amount: 5 });
        expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });
        expect(textOf(refused)).toBe(
          'STATE_UNAVAILABLE: the state of payment could not be read, so "payment.refund" did not run. Try again later.',
        );

        const webhook = await revoke(sample, `evt_${cut}`, other.paymentId);
        expect(webhook.status).toBe(503);
        expect(webhook.retryAfter).toBe('1');
        expect(JSON.parse(webhook.body)).toMatchObject({ statusCode: 503 });
        expect(webhook.body).not.toMatch(/\n\s+at |Error:|ECONN|timeout/i);

        if (cut === 'reset') await proxy.start();
        else proxy.heal();
        await eventually(async () => !(await alice.call('payment.status', { paymentId })).isError, 20_000);
        expect(await revoke(sample, `evt_${cut}`, other.paymentId)).toMatchObject({
          status: 200,
          body: JSON.stringify({ applied: true, state: 'voided' }),
        });
        expect(await revoke(sample, `evt_${cut}`, other.paymentId)).toMatchObject({
          status: 200,
          body: JSON.stringify({ applied: false }),
        });
        expect((await alice.client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
        expect(sample.stderr()).not.toContain('Internal error while serving MCP');
      }, 120_000);
    }
  },
);
