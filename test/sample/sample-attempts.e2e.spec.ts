import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { eventually, textOf } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

interface AttemptRow {
  principal: string | null;
  code: string;
  tool: string;
  message: string | null;
  args: string | null;
}

/**
 * The refused calls the sample records as attempts (`attempts: true`), as an operator reads them
 * from its database: what the refusal said and with which arguments, a teammate's missing scope
 * included (HTTP 403 before the session), never a stranger's.
 */
describeNetworkedTargets('refused attempts on the sample')('refused attempts on the sample with SAMPLE_AUTH=jwt on $name', ({ url }) => {
  let issuer: TestIssuer;
  let sample: SampleProcess;
  let database: DataSource;
  let clients: BearerClient[];
  const run = randomUUID().slice(0, 8);
  const acme = `acme-${run}`;

  const connect = async (sub: string, org: string, scope: string) => {
    const token = await issuer.sign({ sub, scope, org }, { audience: sample.url.href });
    const client = await connectBearerClient(sample.url, token);
    clients.push(client);
    return client;
  };
  const attemptsOf = async (paymentId: string): Promise<AttemptRow[]> => {
    const placeholder = database.options.type === 'postgres' ? '$1' : '?';
    return (await database.query(
      `SELECT principal, code, tool, message, args FROM mcp_fsm_attempt WHERE handle = ${placeholder} ORDER BY id`,
      [`payment:${paymentId}`],
    )) as AttemptRow[];
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

  it("keeps a teammate's call refused for a missing scope, and a refusal's message and arguments as the caller sent and read them", async () => {
    const alice = await connect(`alice-${run}`, acme, 'payments:refund');
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
    const carol = await connect(`carol-${run}`, acme, 'payments:refund');
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
