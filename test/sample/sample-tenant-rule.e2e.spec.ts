import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { eventually, textOf } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;

interface AttemptRow {
  principal: string | null;
  code: string;
  tool: string;
  message: string | null;
  args: string | null;
}

/**
 * One tenant rule on the sample as a user runs it (`SAMPLE_AUTH=jwt`, one org a team): a principal
 * or a team that differs by trailing spaces is another one (MySQL/MariaDB compared them under PAD
 * SPACE collations, where `'solo' = 'solo '`: a token with `sub: "solo "` acted on solo's payment
 * through a lease tool and rewrote its owner), and the refused calls an operator reads as
 * attempts say what the refusal said and with which arguments, a teammate's missing scope
 * included (HTTP 403 before the session), never a stranger's.
 */
describeNetworkedTargets('the tenant rule on the sample')('the sample with SAMPLE_AUTH=jwt on $name', ({ url }) => {
  let issuer: TestIssuer;
  let sample: SampleProcess;
  let database: DataSource;
  let clients: BearerClient[];
  // Names of this run only: rows of earlier runs in the same database never share them.
  const run = randomUUID().slice(0, 8);
  const solo = `solo-${run}`;
  const acme = `acme-${run}`;

  const connect = async (sub: string, org?: string, scope = 'payments:refund payments:approve') => {
    const token = await issuer.sign({ sub, scope, ...(org === undefined ? {} : { org }) }, { audience: sample.url.href });
    const client = await connectBearerClient(sample.url, token);
    clients.push(client);
    return client;
  };
  const authorize = async (agent: BearerClient) => {
    const started = await agent.call('payment.authorize', { amount: 30, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };
  /** Rows of the sample's database about one payment (`handle` is its store key). */
  const rowsOf = <T>(select: string, paymentId: string): Promise<T[]> =>
    database.query(`${select} WHERE handle = ${database.options.type === 'postgres' ? '$1' : '?'}`, [`payment:${paymentId}`]) as Promise<
      T[]
    >;
  /** The stored owner and team of a payment, as the database has them (compared in JavaScript, exactly). */
  const stored = async (paymentId: string) =>
    (
      await rowsOf<{ owner: string | null; team: string | null; state: string }>('SELECT owner, team, state FROM mcp_fsm_state', paymentId)
    )[0];
  const attemptsOf = (paymentId: string) =>
    rowsOf<AttemptRow>('SELECT principal, code, tool, message, args FROM mcp_fsm_attempt', paymentId).then((rows) =>
      rows.sort((x, y) => String(x.principal).localeCompare(String(y.principal))),
    );

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    sample = await startSample({
      DATABASE_URL: url!,
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
    database = await new DataSource(url!.startsWith('postgres') ? { type: 'postgres', url } : { type: 'mysql', url }).initialize();
  }, 60_000);

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await database?.destroy();
    await sample?.stop();
    await issuer?.close();
  });

  it('answers UNKNOWN_HANDLE to "solo " on every tool of solo\'s payment, and never rewrites its owner', async () => {
    const owner = await connect(solo);
    const paymentId = await authorize(owner);
    const padded = await connect(`${solo} `);
    for (const [tool, args] of [
      ['payment.capture', { paymentId }],
      ['payment.void', { paymentId }],
      ['payment.status', { paymentId }],
    ] as const) {
      expect({ tool, code: codeOf(await padded.call(tool, args)) }).toEqual({ tool, code: 'UNKNOWN_HANDLE' });
    }
    expect(await stored(paymentId)).toEqual({ owner: solo, team: null, state: 'authorized' });
    expect((await owner.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(await stored(paymentId)).toEqual({ owner: solo, team: null, state: 'captured' });
    expect(codeOf(await padded.call('payment.refund', { paymentId }))).toBe('UNKNOWN_HANDLE');
  });

  it('answers UNKNOWN_HANDLE to a principal of team "acme " on a payment of team "acme"; a real teammate acts', async () => {
    const alice = await connect(`alice-${run}`, acme);
    const paymentId = await authorize(alice);
    const stranger = await connect(`bob-${run}`, `${acme} `);
    expect(codeOf(await stranger.call('payment.capture', { paymentId }))).toBe('UNKNOWN_HANDLE');
    expect(codeOf(await stranger.call('payment.status', { paymentId }))).toBe('UNKNOWN_HANDLE');
    expect(await stored(paymentId)).toEqual({ owner: `alice-${run}`, team: acme, state: 'authorized' });
    const teammate = await connect(`carol-${run}`, acme);
    expect((await teammate.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(await stored(paymentId)).toEqual({ owner: `alice-${run}`, team: acme, state: 'captured' });
  });

  it("keeps a teammate's call refused for a missing scope, and a refusal's message and arguments as the caller sent and read them", async () => {
    const alice = await connect(`alice-${run}`, acme);
    const started = await alice.call('payment.authorize', { amount: 30, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();

    // Bob is of alice's team without payments:refund: HTTP 403 before his session sees the call.
    const bob = await connect(`bob-${run}`, acme, '');
    await expect(bob.call('payment.refund', { paymentId, amount: 5 })).rejects.toThrow();
    expect(bob.responses.at(-1)?.status).toBe(403);
    // Eve is of another team: nothing is written on a payment she may not see.
    const eve = await connect(`eve-${run}`, `globex-${run}`, '');
    await expect(eve.call('payment.refund', { paymentId })).rejects.toThrow();
    // Carol is a teammate with the scope, out of state: FORBIDDEN, with what she read.
    const carol = await connect(`carol-${run}`, acme);
    const forbidden: CallToolResult = await carol.call('payment.capture', { paymentId, note: 'x'.repeat(500) });
    expect(forbidden.isError).toBe(true);

    await eventually(async () => (await attemptsOf(paymentId)).length === 2, 10_000);
    const [missingScope, outOfState] = await attemptsOf(paymentId);
    expect(missingScope).toMatchObject({ principal: `bob-${run}`, code: 'INSUFFICIENT_SCOPE', tool: 'payment.refund' });
    expect(missingScope.message).toContain('payments:refund');
    expect(JSON.parse(missingScope.args!)).toEqual({ paymentId, amount: 5 });
    expect(outOfState).toMatchObject({ principal: `carol-${run}`, code: 'FORBIDDEN', tool: 'payment.capture', message: textOf(forbidden) });
    // The arguments as the tool took them: its input schema has no `note`.
    expect(JSON.parse(outOfState.args!)).toEqual({ paymentId });
  });
});
