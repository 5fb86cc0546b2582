import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

const codeOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;

/**
 * A principal or a team that differs by trailing spaces is another one, on the sample as a
 * user runs it (`SAMPLE_AUTH=jwt`). MySQL/MariaDB compared them under PAD SPACE collations,
 * where `'solo' = 'solo '`: a token with `sub: "solo "` acted on solo's payment through a lease
 * tool and rewrote its owner.
 */
describeNetworkedTargets('padded principals and teams on the sample')('the sample with SAMPLE_AUTH=jwt on $name', ({ url }) => {
  let issuer: TestIssuer;
  let sample: SampleProcess;
  let database: DataSource;
  let clients: BearerClient[];
  // Names of this run only: rows of earlier runs in the same database never share them.
  const run = randomUUID().slice(0, 8);
  const solo = `solo-${run}`;
  const acme = `acme-${run}`;

  const connect = async (sub: string, org?: string) => {
    const token = await issuer.sign(
      { sub, scope: 'payments:refund payments:approve', ...(org === undefined ? {} : { org }) },
      { audience: sample.url.href },
    );
    const client = await connectBearerClient(sample.url, token);
    clients.push(client);
    return client;
  };
  const authorize = async (agent: BearerClient) => {
    const started = await agent.call('payment.authorize', { amount: 30, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };
  /** The stored owner and team of a payment, as the database has them (compared in JavaScript, exactly). */
  const stored = async (paymentId: string) => {
    const postgres = database.options.type === 'postgres';
    const [row] = (await database.query(`SELECT owner, team, state FROM mcp_fsm_state WHERE handle = ${postgres ? '$1' : '?'}`, [
      `payment:${paymentId}`,
    ])) as { owner: string | null; team: string | null; state: string }[];
    return row;
  };

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
});
