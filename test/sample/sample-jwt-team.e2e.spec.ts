import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Status = { state: string; refundable: number; ledger: { kind: string; amount: number }[] };

const postgres = process.env.TEST_POSTGRES_URL;
const ALL_SCOPES = 'payments:refund invoices:approve workflows:read';

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;

/** Team access in the sample (design §10): with SAMPLE_AUTH=jwt, a token's `org` claim names its team; on PostgreSQL. */
(postgres ? describe : describe.skip)('the sample with SAMPLE_AUTH=jwt: team access by the org claim, on PostgreSQL', () => {
  let issuer: TestIssuer;
  let sample: SampleProcess;
  let clients: BearerClient[];
  // One org per run, so rows of earlier runs in the same database never share a team with this one.
  const acme = `acme-${randomUUID().slice(0, 8)}`;
  const globex = `globex-${randomUUID().slice(0, 8)}`;

  const token = (sub: string, org?: string, scope = ALL_SCOPES) =>
    issuer.sign({ sub, scope, ...(org === undefined ? {} : { org }) }, { audience: sample.url.href });
  const connect = async (sub: string, org?: string) => {
    const client = await connectBearerClient(sample.url, await token(sub, org));
    clients.push(client);
    return client;
  };
  const authorize = async (agent: BearerClient, amount = 30) => {
    const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };
  const status = async (agent: BearerClient, paymentId: string) => {
    const result = await agent.call('payment.status', { paymentId });
    expect(result.isError).toBeFalsy();
    return result.structuredContent as Status;
  };
  const consolePage = async (paymentId: string) => {
    const page = await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url), {
      // An operator of no org sees every org's payments with workflows:admin (0.5: the console keeps teams apart).
      headers: { Authorization: `Bearer ${await token('ops', undefined, 'workflows:read workflows:admin')}` },
    });
    expect(page.status).toBe(200);
    return page.text();
  };
  /** The principal of the console's history row of `tool`. */
  const actorOf = (html: string, tool: string) =>
    new RegExp(`data-history-entry data-tool="${tool.replace('.', '\\.')}">[\\s\\S]*?<td class="mono principal"[^>]*>([^<]*)</td>`).exec(
      html,
    )?.[1];

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    sample = await startSample({
      DATABASE_URL: postgres!,
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
  });

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await sample?.stop();
    await issuer?.close();
  });

  it("lets a teammate (same org, another sub) read, capture and refund Alice's payment; history and the console name who acted", async () => {
    const alice = await connect('alice', acme);
    const bob = await connect('bob', acme);
    const paymentId = await authorize(alice);
    expect(await status(bob, paymentId)).toMatchObject({ state: 'authorized' });
    expect((await bob.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(await status(alice, paymentId)).toMatchObject({ state: 'captured', refundable: 30 });
    expect((await bob.call('payment.refund', { paymentId, amount: 10 })).isError).toBeFalsy();
    expect((await alice.call('payment.refund', { paymentId })).isError).toBeFalsy();
    expect(await status(bob, paymentId)).toMatchObject({ state: 'refunded', refundable: 0 });
    expect((await status(alice, paymentId)).ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture', 'refund', 'refund']);
    const resource = await bob.client.readResource({ uri: `workflow://payment/instance/${paymentId}` });
    expect(JSON.stringify(resource.contents)).toContain('refunded');

    const html = await consolePage(paymentId);
    expect(html).toMatch(/<dt>Owner<\/dt><dd class="mono">alice<\/dd>/);
    expect(html).toContain(`<dd class="mono" data-team>${acme}</dd>`);
    expect(actorOf(html, 'payment.authorize')).toBe('alice');
    expect(actorOf(html, 'payment.capture')).toBe('bob');
    expect(html).not.toMatch(new RegExp(`<td class="mono principal"[^>]*>${acme}</td>`));
  });

  it('answers UNKNOWN_HANDLE to another org on every tool, status included, and changes nothing', async () => {
    const alice = await connect('alice', acme);
    const eve = await connect('eve', globex);
    const paymentId = await authorize(alice);
    for (const name of ['payment.status', 'payment.capture', 'payment.void', 'payment.refund']) {
      expect(codeOf(await eve.call(name, { paymentId }))).toBe('UNKNOWN_HANDLE');
    }
    await expect(eve.client.readResource({ uri: `workflow://payment/instance/${paymentId}` })).rejects.toThrow();
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(codeOf(await eve.call('payment.refund', { paymentId }))).toBe('UNKNOWN_HANDLE');
    expect(await status(alice, paymentId)).toMatchObject({ state: 'captured', ledger: [{ kind: 'authorize' }, { kind: 'capture' }] });
  });

  it('keeps a payment started without an org its starter’s alone, and a token without an org out of a team’s payments', async () => {
    const carol = await connect('carol');
    const bob = await connect('bob', acme);
    const dave = await connect('dave');
    const own = await authorize(carol);
    for (const other of [bob, dave]) {
      expect(codeOf(await other.call('payment.status', { paymentId: own }))).toBe('UNKNOWN_HANDLE');
      expect(codeOf(await other.call('payment.capture', { paymentId: own }))).toBe('UNKNOWN_HANDLE');
    }
    expect((await carol.call('payment.capture', { paymentId: own })).isError).toBeFalsy();

    const alice = await connect('alice', acme);
    const teams = await authorize(alice);
    expect(codeOf(await dave.call('payment.status', { paymentId: teams }))).toBe('UNKNOWN_HANDLE');
    expect(codeOf(await carol.call('payment.capture', { paymentId: teams }))).toBe('UNKNOWN_HANDLE');
    expect(await status(bob, teams)).toMatchObject({ state: 'authorized' });
  });
});
