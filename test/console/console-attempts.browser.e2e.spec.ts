import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { connectClient, textOf, type TestClient } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

/** A handle of the sample's format that no payment has. */
const forgedHandle = () => randomBytes(16).toString('base64url');

const errorCode = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

describe('refused attempts and the list on the console, in a real browser (the sample on SQLite, SAMPLE_AUTH=optional)', () => {
  let directory: string;
  let sample: SampleProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let clients: TestClient[];

  const consoleUrl = (path = '/workflows') => new URL(path, sample.url).href;
  const client = async (name?: string, options?: Parameters<typeof connectClient>[2]) => {
    const connected = await connectClient(sample.url, name ? { Authorization: `Bearer ${name}` } : undefined, options);
    clients.push(connected);
    return connected;
  };
  const authorize = async (agent: TestClient) =>
    ((await agent.call('payment.authorize', { amount: 25, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  /** What the attempts table shows, newest first. */
  const attempts = () =>
    page.locator('tr[data-attempt]').evaluateAll((rows) =>
      rows.map((row) => ({
        tool: row.getAttribute('data-tool'),
        code: row.getAttribute('data-code'),
        principal: row.querySelector('.principal')?.textContent,
        time: row.querySelector('time')?.getAttribute('datetime'),
        hooks: [row.getAttribute('data-principal'), row.getAttribute('data-at')],
      })),
    );
  const attemptRows = () => {
    const db = new Database(join(directory, 'sample.sqlite'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM mcp_fsm_attempt').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'console-attempts-'));
    sample = await startSample({ SAMPLE_DB: join(directory, 'sample.sqlite'), SAMPLE_AUTH: 'optional' });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sample?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  beforeEach(async () => {
    clients = [];
    context = await browser.newContext();
    page = await context.newPage();
  });

  afterEach(async () => {
    await Promise.all(clients.map((connected) => connected.close().catch(() => undefined)));
    await context.close();
  });

  it("shows a payment's refused calls with tool, code, principal and time; a stranger's and a forged handle's calls leave no row", async () => {
    const alice = await client('alice');
    const paymentId = await authorize(alice);
    const before = Date.now();
    expect(errorCode(await alice.call('payment.refund', { paymentId }))).toBe('FORBIDDEN');
    // Bob cannot see alice's payment: UNKNOWN_HANDLE, and nothing is written on it.
    const bob = await client('bob');
    expect(errorCode(await bob.call('payment.capture', { paymentId }))).toBe('UNKNOWN_HANDLE');
    const rowsBefore = attemptRows();
    // A flood of forged handles, anonymous: no instance, no row.
    const anonymous = await client();
    const forged = await Promise.all(Array.from({ length: 100 }, () => anonymous.call('payment.capture', { paymentId: forgedHandle() })));
    expect(forged.every((result) => errorCode(result) === 'UNKNOWN_HANDLE')).toBe(true);
    expect(attemptRows()).toBe(rowsBefore);

    await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    const shown = await attempts();
    expect(shown).toEqual([
      { tool: 'payment.refund', code: 'FORBIDDEN', principal: 'alice', time: expect.any(String), hooks: ['alice', shown[0].time] },
    ]);
    expect(Date.parse(shown[0].time!)).toBeGreaterThanOrEqual(before - 1000);
    expect(await page.locator('tr[data-attempt] td').allTextContents()).not.toContain(paymentId);
  });

  it("shows an invoice's declined confirmation and the call of a client that cannot confirm, and the owner of the session's invoice", async () => {
    const carol = await client('carol', { elicitation: { action: 'decline' } });
    await carol.call('invoice.submit');
    await carol.call('invoice.approve');
    const declined = await carol.call('invoice.discharge');
    expect(errorCode(declined)).toBe('DECLINED');
    const sessionId = carol.transport.sessionId!;

    await page.goto(consoleUrl(`/workflows/invoice/${sessionId}`));
    expect(await attempts()).toEqual([
      { tool: 'invoice.discharge', code: 'DECLINED', principal: 'carol', time: expect.any(String), hooks: ['carol', expect.any(String)] },
    ]);
    // The session's invoice names its caller.
    expect(await page.locator('.facts dd.mono').first().textContent()).toBe('carol');
    expect(textOf(declined)).toMatch(/^DECLINED/);

    // A call out of state on the same invoice: FORBIDDEN, newest first.
    expect(errorCode(await carol.call('invoice.submit'))).toBe('FORBIDDEN');
    await page.reload();
    expect((await attempts()).map((entry) => entry.code)).toEqual(['FORBIDDEN', 'DECLINED']);

    // A client that declared no elicitation cannot confirm: CONFIRMATION_REQUIRED, on its own invoice.
    const frank = await client('frank');
    await frank.call('invoice.submit');
    await frank.call('invoice.approve');
    expect(errorCode(await frank.call('invoice.discharge'))).toBe('CONFIRMATION_REQUIRED');
    await page.goto(consoleUrl(`/workflows/invoice/${frank.transport.sessionId!}`));
    expect(await attempts()).toEqual([
      {
        tool: 'invoice.discharge',
        code: 'CONFIRMATION_REQUIRED',
        principal: 'frank',
        time: expect.any(String),
        hooks: ['frank', expect.any(String)],
      },
    ]);
  });

  it('finds instances by handle prefix or by owner, says how many match in all, and shows owners of session-keyed invoices', async () => {
    const dave = await client('dave');
    const paymentId = await authorize(dave);
    await dave.call('invoice.submit');
    await page.goto(consoleUrl());
    await page.fill('#filter-search', paymentId.slice(0, 10));
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/q=/);
    expect(
      await page.locator('tbody#instances tr[data-instance]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-instance'))),
    ).toEqual([paymentId]);
    expect(await page.locator('#summary').getAttribute('data-total')).toBe('1');
    expect(await page.locator('#summary').textContent()).toMatch(/matching ".{10}", newest first\. 1 in all\.$/);

    await page.goto(consoleUrl(`/workflows?q=dave`));
    const rows = await page
      .locator('tbody#instances tr[data-instance]')
      .evaluateAll((found) =>
        found.map((row) => ({ machine: row.getAttribute('data-machine'), owner: row.querySelector('.owner')?.textContent })),
      );
    expect(rows).toEqual(
      expect.arrayContaining([
        { machine: 'payment', owner: 'dave' },
        { machine: 'invoice', owner: 'dave' },
      ]),
    );
    expect(rows).toHaveLength(2);

    // The total of the unfiltered list counts every instance, beyond the page.
    await page.goto(consoleUrl());
    const total = Number(await page.locator('#summary').getAttribute('data-total'));
    expect(total).toBeGreaterThanOrEqual(await page.locator('tbody#instances tr[data-instance]').count());
    expect(await page.locator('#summary').textContent()).toContain(`${total.toLocaleString('en')} in all.`);
  });

  it('shows the State column of the list at 420 px wide, without scrolling sideways', async () => {
    const erin = await client('erin');
    await authorize(erin);
    await page.setViewportSize({ width: 420, height: 800 });
    await page.goto(consoleUrl());
    const badge = page.locator('tbody#instances tr[data-instance] .badge').first();
    await badge.waitFor();
    const box = (await badge.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(420);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await page.screenshot({ path: '/tmp/harden/narrow.png' });
  });
});
