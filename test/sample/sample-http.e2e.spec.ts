import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ACCEPT, connectClient, eventually, textOf, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

type Status = { paymentId: string; state: string; refundable: number; ledger: { kind: string; amount: number }[] };

describe('the sample over stateful HTTP, on its SQLite file', () => {
  let dir: string;
  let env: Record<string, string>;
  let sample: SampleProcess;
  let clients: TestClient[];

  const connect = async (headers?: Record<string, string>, elicitation?: ElicitResult) => {
    const client = await connectClient(sample.url, headers, { elicitation });
    clients.push(client);
    return client;
  };
  const status = async (agent: TestClient, paymentId: string) =>
    (await agent.call('payment.status', { paymentId })).structuredContent as Status;
  const authorize = async (agent: TestClient, amount = 12.5) => {
    const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };
  const restart = async (extra: Record<string, string> = {}, signal: NodeJS.Signals = 'SIGTERM') => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    await sample.stop(signal);
    sample = await startSample({ ...env, ...extra });
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-'));
    env = { SAMPLE_DB: join(dir, 'sample.sqlite') };
    sample = await startSample(env);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await sample.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('offers the review checklist prompt only in review, and each workflow as resources', async () => {
    const agent = await connect();
    const prompts = async () => (await agent.client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(await prompts()).toEqual([]);
    expect((await agent.client.listResources()).resources.map((resource) => resource.uri)).toEqual([
      'workflow://invoice/diagram',
      'workflow://invoice/instance',
      'workflow://payment/diagram',
    ]);
    await agent.call('invoice.submit');
    expect(await prompts()).toEqual(['invoice.review-checklist']);
    const checklist = await agent.client.getPrompt({ name: 'invoice.review-checklist' });
    expect(checklist.messages[0].content).toMatchObject({ type: 'text', text: expect.stringContaining('Before calling invoice.approve') });
    const instance = (await agent.client.readResource({ uri: 'workflow://invoice/instance' })).contents[0] as { text: string };
    expect(JSON.parse(instance.text)).toMatchObject({
      machine: 'invoice',
      state: 'review',
      allowedTools: expect.arrayContaining(['invoice.approve']),
    });
    await agent.call('invoice.approve');
    expect(await prompts()).toEqual([]);
  });

  it('asks a person before discharging: a no keeps the invoice approved, a client without elicitation is refused, a yes discharges', async () => {
    const approved = async (agent: TestClient) => {
      await agent.call('invoice.submit');
      await agent.call('invoice.approve');
    };
    const decliner = await connect(undefined, { action: 'decline' });
    await approved(decliner);
    const declined = await decliner.call('invoice.discharge');
    expect(declined._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'DECLINED', state: 'approved' });
    expect(decliner.asked[0].message).toMatch(/^Discharge invoice INV-/);
    expect(await decliner.names()).toContain('invoice.discharge');

    const silent = await connect();
    await approved(silent);
    const refused = await silent.call('invoice.discharge');
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'CONFIRMATION_REQUIRED', state: 'approved' });
    expect((await silent.call('invoice.status')).structuredContent).toMatchObject({ state: 'approved' });

    const agreeing = await connect(undefined, ACCEPT);
    await approved(agreeing);
    expect((await agreeing.call('invoice.discharge'))._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'discharged' });
    const history = (await agreeing.call('invoice.status')).structuredContent as { history: { event: string }[] };
    expect(history.history.filter((row) => row.event === 'DISCHARGE')).toHaveLength(1);
  });

  it('refuses invoice.discharge on stateless HTTP with CONFIRMATION_REQUIRED: nobody can be asked there', async () => {
    await restart({ MCP_TRANSPORT: 'stateless' });
    const agent = await connect(undefined, ACCEPT);
    const refused = await agent.call('invoice.discharge');
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'CONFIRMATION_REQUIRED', tool: 'invoice.discharge' });
    expect(textOf(refused)).toContain('this stateless HTTP connection has no way to put a question to the client');
    expect(agent.asked).toEqual([]);
  });

  it('serves the workflow diagrams docs/primitives.md shows (npm run diagrams writes them)', async () => {
    const agent = await connect();
    const page = readFileSync('docs/primitives.md', 'utf8');
    const block = page.slice(page.indexOf('<!-- sample-diagrams:start'), page.indexOf('<!-- sample-diagrams:end -->'));
    const shown = [...block.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((match) => match[1]);
    const served = [];
    for (const machine of ['invoice', 'payment']) {
      const [content] = (await agent.client.readResource({ uri: `workflow://${machine}/diagram` })).contents as { text: string }[];
      served.push(content.text);
    }
    expect(shown).toEqual(served);
  });

  it('walks the invoice workflow: menus per state, FORBIDDEN, list_changed, compact description', async () => {
    const agent = await connect(undefined, ACCEPT);
    const tools = async () => (await agent.client.listTools()).tools;
    const draft = await tools();
    expect(draft.map((tool) => tool.name)).toEqual(['invoice.submit', 'invoice.status', 'payment.authorize', 'payment.status']);
    expect(draft.find((tool) => tool.name === 'invoice.status')?.description).toBe('Show the invoice state.');
    const early = await agent.call('invoice.discharge');
    expect(textOf(early)).toBe(
      'FORBIDDEN: "invoice.discharge" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
    );
    await agent.call('invoice.submit');
    await eventually(() => agent.listChanged() === 1);
    const review = await tools();
    expect(review.map((tool) => tool.name)).toEqual([
      'invoice.approve',
      'invoice.reject',
      'invoice.status',
      'payment.authorize',
      'payment.status',
    ]);
    expect(review.find((tool) => tool.name === 'invoice.status')?.description).toMatch(/^Show this session's invoice/);
    await agent.call('invoice.approve');
    await agent.call('invoice.discharge');
    expect(agent.asked.map((question) => question.message)).toEqual([
      `Discharge invoice INV-${agent.transport.sessionId!.slice(0, 8)}? It is paid out and cannot be undone.`,
    ]);
    const history = (await agent.call('invoice.status')).structuredContent as { state: string; history: { event: string }[] };
    expect(history.state).toBe('discharged');
    expect(history.history.map((row) => row.event)).toEqual(['SUBMIT', 'APPROVE', 'DISCHARGE']);
  });

  it('captures a payment exactly once under 50 concurrent calls, with the ledger to show it', async () => {
    const agent = await connect();
    const paymentId = await authorize(agent);
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.call('payment.capture', { paymentId })));
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(await status(agent, paymentId)).toEqual({
      paymentId,
      state: 'captured',
      refundable: 12.5,
      ledger: [
        { kind: 'authorize', amount: 12.5 },
        { kind: 'capture', amount: 12.5 },
      ],
    });
    const forged = await agent.call('payment.capture', { paymentId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(forged._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
  });

  it('refunds in parts from XState context; a refund larger than what is left is GUARD_REJECTED and writes nothing', async () => {
    const agent = await connect();
    const paymentId = await authorize(agent, 10);
    await agent.call('payment.capture', { paymentId });
    const part = await agent.call('payment.refund', { paymentId, amount: 3.5 });
    expect(part._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'partially_refunded' });
    expect(await status(agent, paymentId)).toMatchObject({ state: 'partially_refunded', refundable: 6.5 });
    const tooMuch = await agent.call('payment.refund', { paymentId, amount: 7 });
    expect(tooMuch.isError).toBe(true);
    expect(tooMuch._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'GUARD_REJECTED', state: 'partially_refunded' });
    expect(textOf(tooMuch)).toMatch(
      /^GUARD_REJECTED: "payment.refund" did not run: payment is "partially_refunded", .*"refundLeavesNothing".* event "REFUND"/,
    );
    const rest = await agent.call('payment.refund', { paymentId });
    expect(rest.structuredContent).toMatchObject({ refunded: 6.5 });
    expect(await status(agent, paymentId)).toEqual({
      paymentId,
      state: 'refunded',
      refundable: 0,
      ledger: [
        { kind: 'authorize', amount: 10 },
        { kind: 'capture', amount: 10 },
        { kind: 'refund', amount: 3.5 },
        { kind: 'refund', amount: 6.5 },
      ],
    });
  });

  it('never refunds more than was captured under 50 concurrent partial refunds', async () => {
    const agent = await connect();
    const paymentId = await authorize(agent, 10);
    await agent.call('payment.capture', { paymentId });
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.call('payment.refund', { paymentId, amount: 3 })));
    const refunded = results.filter((result) => !result.isError).length;
    expect(refunded).toBeGreaterThanOrEqual(1);
    expect(refunded).toBeLessThanOrEqual(3);
    const after = await status(agent, paymentId);
    const refunds = after.ledger.filter((entry) => entry.kind === 'refund');
    expect(refunds).toHaveLength(refunded);
    expect(after.refundable).toBe(10 - 3 * refunded);
    for (const result of results.filter((result) => result.isError)) {
      expect(['BUSY', 'GUARD_REJECTED', 'FORBIDDEN']).toContain((result._meta?.['nestjs-mcp-fsm/error'] as { code: string }).code);
    }
  });

  it('keeps a payment started by an authenticated client from anonymous and other clients: call, read and menu', async () => {
    await restart({ SAMPLE_AUTH: 'optional' });
    const alice = await connect({ Authorization: 'Bearer alice' });
    const paymentId = await authorize(alice);
    for (const stranger of [await connect(), await connect({ Authorization: 'Bearer bob' })]) {
      for (const tool of ['payment.capture', 'payment.void', 'payment.status']) {
        const refused = await stranger.call(tool, { paymentId });
        expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE', tool });
      }
      expect(await stranger.names()).not.toContain('payment.capture');
      expect(stranger.listChanged()).toBe(0);
    }
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect((await status(alice, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);
    const anonymousPayment = await authorize(await connect());
    expect((await alice.call('payment.status', { paymentId: anonymousPayment })).isError).toBeFalsy();
  });

  it('runs the invoice (per authenticated principal) and the payment for a 2026-07-28 client, next to 2025 sessions', async () => {
    await restart({ SAMPLE_AUTH: 'optional' });
    const asked: { message: string }[] = [];
    const alice = await connectModernClient(sample.url, { authorization: 'Bearer alice' }, { answer: { action: 'accept' }, asked });
    const other = await connectModernClient(sample.url, { authorization: 'Bearer bob' });
    const legacyAgent = await connect({ authorization: 'Bearer alice' });
    try {
      expect(alice.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const listed = await alice.listTools();
      expect((await other.listTools()).tools).toEqual(listed.tools);
      // payment.approve_refund and payment.reject_refund need payments:approve, which a demo principal may hold
      // (Bearer <name>;payments:approve): the lists vary by authorization.
      expect(listed).toMatchObject({ cacheScope: 'private' });
      const state = (result: { _meta?: Record<string, unknown> }) =>
        (result._meta?.['nestjs-mcp-fsm/state'] as { state: string } | undefined)?.state;

      expect(state(await alice.callTool({ name: 'invoice.submit', arguments: {} }))).toBe('review');
      expect(state(await alice.callTool({ name: 'invoice.approve', arguments: {} }))).toBe('approved');
      expect(state(await alice.callTool({ name: 'invoice.discharge', arguments: {} }))).toBe('discharged');
      expect(asked).toEqual([expect.objectContaining({ message: 'Discharge invoice INV-alice? It is paid out and cannot be undone.' })]);
      // The 2025 session of the same principal has its own invoice, still in draft.
      expect(await legacyAgent.names()).toContain('invoice.submit');

      const started = await alice.callTool({ name: 'payment.authorize', arguments: { amount: 20, currency: 'EUR' } });
      const { paymentId } = started.structuredContent as { paymentId: string };
      const stolen = await other.callTool({ name: 'payment.capture', arguments: { paymentId } });
      expect(stolen._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
      expect(state(await alice.callTool({ name: 'payment.capture', arguments: { paymentId } }))).toBe('captured');
      expect(state(await alice.callTool({ name: 'payment.refund', arguments: { paymentId, amount: 5 } }))).toBe('partially_refunded');
      const status = (await alice.callTool({ name: 'payment.status', arguments: { paymentId } })).structuredContent as Status;
      expect(status).toMatchObject({ state: 'partially_refunded', refundable: 15 });
      expect(status.ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture', 'refund']);
    } finally {
      await alice.close();
      await other.close();
    }
  });

  it('shows a new session the tools of a payment it looked up with payment.status', async () => {
    const paymentId = await authorize(await connect());
    const other = await connect();
    expect(await other.names()).not.toContain('payment.capture');
    await status(other, paymentId);
    await eventually(() => other.listChanged() === 1);
    expect(await other.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.void']));
    await other.call('payment.status', { paymentId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(other.listChanged()).toBe(1);
  });

  it('keeps a payment authorized before a restart, capturable after it', async () => {
    const paymentId = await authorize(await connect());
    await restart();
    const agent = await connect();
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect((await status(agent, paymentId)).state).toBe('captured');
  });

  it('a process killed inside a handler leaves no stuck payment and no half-written capture', async () => {
    const paymentId = await authorize(await connect());
    await restart({ SAMPLE_HANDLER_DELAY_MS: '3000' });
    const doomed = await connect();
    const inFlight = doomed.call('payment.capture', { paymentId }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 800));
    await restart({}, 'SIGKILL');
    await inFlight;
    const agent = await connect();
    expect((await status(agent, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize']);
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    expect((await status(agent, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);
  });
});
