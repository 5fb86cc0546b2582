import { randomUUID } from 'node:crypto';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { openEventStream } from '../utils/event-stream.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

/**
 * The console keeps teams apart (design §10 "Added in 0.5", issue 37): with SAMPLE_AUTH=jwt a
 * `workflows:read` token sees only the payments of its org (its `org` claim, the payment
 * machine's team rule) in the list, a search, an instance page and the live streams; a token
 * with `workflows:admin` sees every payment; a live stream ends when its token expires, or when
 * its browser signs out. On sample processes sharing PostgreSQL, then MariaDB.
 */
describeNetworkedTargets('console per team')('the sample console per team, on $name', ({ url }) => {
  let issuer: TestIssuer;
  let sample: SampleProcess;
  let clients: BearerClient[];
  // Orgs of this run alone, so payments of earlier runs in the same database never share a team with these.
  const acme = `acme-${randomUUID().slice(0, 8)}`;
  const globex = `globex-${randomUUID().slice(0, 8)}`;

  const token = (sub: string, org: string | undefined, scope: string, expiresIn?: number) =>
    issuer.sign({ sub, scope, ...(org === undefined ? {} : { org }) }, { audience: sample.url.href, expiresIn });
  const connect = async (sub: string, org: string) => {
    const client = await connectBearerClient(sample.url, await token(sub, org, 'payments:refund workflows:read'));
    clients.push(client);
    return client;
  };
  const authorize = async (agent: BearerClient) =>
    ((await agent.call('payment.authorize', { amount: 42, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  const get = async (path: string, bearer: string) => {
    const response = await fetch(new URL(path, sample.url), { headers: { authorization: `Bearer ${bearer}` } });
    return { status: response.status, html: await response.text() };
  };
  const listed = (html: string) => [...html.matchAll(/<tr data-instance="([^"]+)" data-machine="payment"/g)].map(([, id]) => id);

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    sample = await startSample({
      DATABASE_URL: url!,
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
  }, 60_000);

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

  it("shows eve's token none of acme's payments anywhere (list, search, instance page, streams); bob of acme sees them; workflows:admin sees every org's", async () => {
    const alice = await connect('alice', acme);
    const eve = await connect('eve', globex);
    const acmePayment = await authorize(alice);
    const globexPayment = await authorize(eve);
    const eveRead = await token('eve', globex, 'workflows:read');
    const bobRead = await token('bob', acme, 'workflows:read');
    const admin = await token('ops', undefined, 'workflows:read workflows:admin');

    const eveList = listed((await get('/workflows?machine=payment', eveRead)).html);
    expect(eveList).toContain(globexPayment);
    expect(eveList).not.toContain(acmePayment);
    expect(listed((await get(`/workflows?q=${acmePayment}`, eveRead)).html)).toEqual([]);
    expect(listed((await get('/workflows?q=alice', eveRead)).html)).toEqual([]);
    const evePage = await get(`/workflows/payment/${acmePayment}`, eveRead);
    expect(evePage.status).toBe(404);
    expect(evePage.html).not.toContain('alice');
    expect((await get(`/workflows/payment/${acmePayment}/events`, eveRead)).status).toBe(404);
    // eve's counts are of her org's payments alone.
    expect((await get('/workflows?machine=payment', eveRead)).html).toMatch(/data-state="authorized" data-count="1"/);

    const bobList = listed((await get('/workflows?machine=payment', bobRead)).html);
    expect(bobList).toContain(acmePayment);
    expect(bobList).not.toContain(globexPayment);
    expect((await get(`/workflows/payment/${acmePayment}`, bobRead)).status).toBe(200);

    const adminList = listed((await get('/workflows?machine=payment', admin)).html);
    expect(adminList).toEqual(expect.arrayContaining([acmePayment, globexPayment]));
    expect((await get(`/workflows/payment/${acmePayment}`, admin)).status).toBe(200);
    expect((await get(`/workflows/payment/${globexPayment}`, admin)).status).toBe(200);

    // Live: a capture of acme's payment reaches bob's and the admin's list streams, never eve's.
    const streams = await Promise.all(
      [eveRead, bobRead, admin].map((bearer) =>
        openEventStream(new URL('/workflows/events?machine=payment', sample.url), { authorization: `Bearer ${bearer}` }),
      ),
    );
    try {
      const [eveStream, bobStream, adminStream] = streams;
      expect((await alice.call('payment.capture', { paymentId: acmePayment })).isError).toBeFalsy();
      const moved = (event: { event: string; data: string }) =>
        event.event === 'transition' && JSON.parse(event.data).instance === acmePayment;
      expect(JSON.parse((await bobStream.next(moved)).data)).toMatchObject({ state: 'captured', team: acme, owner: 'alice' });
      await adminStream.next(moved);
      // eve's own payment moves after acme's: her stream carries that one, and never acme's.
      expect((await eve.call('payment.void', { paymentId: globexPayment })).isError).toBeFalsy();
      await eveStream.next((event) => event.event === 'transition' && JSON.parse(event.data).instance === globexPayment);
      expect(eveStream.text()).not.toContain(acmePayment);
    } finally {
      streams.forEach((stream) => stream.close());
    }
  }, 60_000);

  it('ends a live stream when its token expires, and tells the page so', async () => {
    const stream = await openEventStream(new URL('/workflows/events', sample.url), {
      authorization: `Bearer ${await token('bob', acme, 'workflows:read', 2)}`,
    });
    expect(stream.status).toBe(200);
    const ended = await stream.next((event) => event.event === 'ended', 10_000);
    expect(JSON.parse(ended.data)).toMatchObject({ reason: 'expired' });
    await stream.ended;
  }, 20_000);

  it('ends the live streams of a browser that signs out', async () => {
    const signIn = new URL('/workflows/sign-in', sample.url);
    const form = await fetch(signIn);
    const csrfCookie = form.headers
      .getSetCookie()
      .find((line) => line.startsWith('mcp_console_csrf='))!
      .split(';')[0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1];
    const signedIn = await fetch(signIn, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie },
      body: new URLSearchParams({ csrf, token: await token('bob', acme, 'workflows:read') }).toString(),
    });
    expect(signedIn.status).toBe(303);
    const cookie = `${csrfCookie}; ${
      signedIn.headers
        .getSetCookie()
        .find((line) => line.startsWith('mcp_console_token='))!
        .split(';')[0]
    }`;
    const stream = await openEventStream(new URL('/workflows/events', sample.url), { cookie });
    expect(stream.status).toBe(200);
    const signedOut = await fetch(new URL('/workflows/sign-out', sample.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(signedOut.status).toBe(303);
    expect(JSON.parse((await stream.next((event) => event.event === 'ended')).data)).toMatchObject({ reason: 'signed-out' });
    await stream.ended;
  });
});
