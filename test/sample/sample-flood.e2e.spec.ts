import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RAW_INITIALIZE, textOf } from '../utils/http-client.js';
import { postFrom, RawSession } from '../utils/loopback-post.js';
import { SampleGroup } from '../utils/sample-process.js';

/** The flood of the issue: 20 loopback source addresses (127.0.0.2 … 127.0.0.21), 60 sessions each. */
const FLOOD_ADDRESSES = Array.from({ length: 20 }, (_, n) => `127.0.0.${n + 2}`);
const SESSIONS_PER_ADDRESS = 60;
/** The sample's `maxSessions` (the module's default). */
const MAX_SESSIONS = 1000;

/** Resident memory of a process, in MiB (Linux). */
function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match![1]) / 1024);
}

describe('the sample under an anonymous flood of 20 addresses × 60 sessions', () => {
  let dir: string;
  const samples = new SampleGroup();

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nestjs-mcp-fsm-flood-'));
  });

  afterAll(async () => {
    await samples.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every session that holds work (an approved invoice, a followed payment, a GET stream); evicts only sessions that never did anything', async () => {
    const sample = await samples.start({ SAMPLE_DB: join(dir, 'flood.sqlite') });
    const { url } = sample;

    // An SDK client (it keeps a GET stream open) with an approved invoice.
    const sdk = await samples.connect(sample);
    await sdk.call('invoice.submit');
    await sdk.call('invoice.approve');
    const sdkSession = sdk.transport.sessionId!;
    // A raw client with no GET stream: only its approved invoice speaks for it.
    const invoice = await RawSession.open(url, '127.0.0.1');
    expect((await invoice.call('invoice.submit')).status).toBe(200);
    expect((await invoice.call('invoice.approve')).status).toBe(200);
    // A raw client that follows a payment it authorized (its session-keyed invoice is still in draft).
    const payer = await RawSession.open(url, '127.0.0.1');
    const authorized = await payer.call('payment.authorize', { amount: 25, currency: 'EUR' });
    const paymentId = (authorized.result!.structuredContent as { paymentId: string }).paymentId;
    expect(paymentId).toEqual(expect.any(String));
    // Idle for 2 s, as in the issue: each of them is now the least recently used session.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const rssBefore = rssMiB(sample.child.pid!);

    const startedAt = Date.now();
    const flood = await Promise.all(
      FLOOD_ADDRESSES.map(async (address) => {
        const statuses: number[] = [];
        for (let n = 0; n < SESSIONS_PER_ADDRESS; n++) statuses.push((await postFrom(url, address, RAW_INITIALIZE)).status);
        return statuses;
      }),
    );
    const floodMs = Date.now() - startedAt;
    const statuses = flood.flat();
    const evictions = (sample.stderr().match(/evicted: 1000 live sessions/g) ?? []).length;
    const rssAfter = rssMiB(sample.child.pid!);
    // The figures docs/deployment.md quotes.
    process.stdout.write(
      `flood: ${statuses.length} initialize in ${floodMs} ms, ${statuses.filter((status) => status === 200).length} answered 200, ` +
        `${statuses.filter((status) => status === 503).length} answered 503, ${evictions} sessions evicted; RSS ${rssBefore} → ${rssAfter} MiB\n`,
    );

    // Each working session carries on in the same session, with its work.
    expect(sdk.transport.sessionId).toBe(sdkSession);
    const sdkStatus = await sdk.call('invoice.status');
    expect(sdkStatus.structuredContent).toMatchObject({ state: 'approved' });
    expect(await sdk.names()).toContain('invoice.discharge');
    const rawStatus = await invoice.call('invoice.status');
    expect(rawStatus.status).toBe(200);
    expect(rawStatus.result!.structuredContent).toMatchObject({ state: 'approved' });
    const payment = await payer.call('payment.status', { paymentId });
    expect(payment.status).toBe(200);
    expect(textOf(payment.result as never)).not.toMatch(/UNKNOWN_HANDLE/);
    expect(payment.result!.structuredContent).toMatchObject({ paymentId, state: 'authorized' });
    const capture = await payer.call('payment.capture', { paymentId });
    expect(capture.result!.isError).toBeFalsy();

    // Nobody was refused: sessions that never did anything made room for each newcomer.
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(evictions).toBe(FLOOD_ADDRESSES.length * SESSIONS_PER_ADDRESS + 3 - MAX_SESSIONS);
    expect(sample.stderr()).toMatch(
      /Session [0-9a-f]{8}… evicted: 1000 live sessions .* it was the oldest one never used after initialize/,
    );
    expect(sample.stderr()).not.toMatch(/it was the least recently used one that holds nothing/);
    for (const id of [sdkSession, invoice.id, payer.id]) expect(sample.stderr()).not.toContain(id.slice(0, 8));

    // A newcomer from yet another address still gets in.
    expect((await postFrom(url, '127.0.0.30', RAW_INITIALIZE)).status).toBe(200);
  }, 120_000);
});
