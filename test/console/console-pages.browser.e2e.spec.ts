import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { connectClient, type TestClient } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

const errorCode = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

/**
 * The sample's payment pages read at a glance (issue 41), in Chromium at 1280 px: a summary per
 * payment, deadlines that say where they lead and when, refused attempts with their reason and
 * arguments, waiting states that stand out, counts per state, a diagram with every transition
 * and the current state in view; and at 420 px no page scrolls sideways.
 */
describe('the console at a glance, in a real browser (the sample on SQLite, SAMPLE_AUTH=optional)', () => {
  let directory: string;
  let sample: SampleProcess;
  let browser: Browser;
  let alice: TestClient;
  const payments: Record<'authorized' | 'refunded' | 'waiting', string> = { authorized: '', refunded: '', waiting: '' };

  const consoleUrl = (path = '/workflows') => new URL(path, sample.url).href;
  const authorize = async (amount: number) =>
    ((await alice.call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  const open = async (width: number, path: string): Promise<Page> => {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    const response = await page.goto(consoleUrl(path));
    expect(response!.status()).toBe(200);
    return page;
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'console-pages-'));
    sample = await startSample({ SAMPLE_DB: join(directory, 'sample.sqlite'), SAMPLE_AUTH: 'optional' });
    browser = await launchChromium();
    alice = await connectClient(sample.url, { Authorization: 'Bearer alice' });
    payments.authorized = await authorize(25);
    payments.refunded = await authorize(60);
    expect((await alice.call('payment.capture', { paymentId: payments.refunded })).isError).toBeFalsy();
    expect((await alice.call('payment.refund', { paymentId: payments.refunded, amount: 50 })).isError).toBeFalsy();
    // More than is left: refused, and kept as an attempt with its reason and arguments.
    expect(errorCode(await alice.call('payment.refund', { paymentId: payments.refunded, amount: 20 }))).toBe('GUARD_REJECTED');
    payments.waiting = await authorize(160);
    expect((await alice.call('payment.capture', { paymentId: payments.waiting })).isError).toBeFalsy();
    expect((await alice.call('payment.refund', { paymentId: payments.waiting, amount: 150 })).isError).toBeFalsy();
  }, 60_000);

  afterAll(async () => {
    await alice?.close().catch(() => undefined);
    await browser?.close();
    await sample?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('lists each payment with its summary, team and next deadline; a waiting one stands out; counts per state link to their filter', async () => {
    const page = await open(1280, '/workflows?machine=payment');
    const row = (paymentId: string) => page.locator(`tr[data-instance="${paymentId}"]`);
    expect(await row(payments.refunded).getAttribute('data-summary')).toBe('60.00 EUR · captured 60.00 · refunded 50.00');
    expect(await row(payments.authorized).getAttribute('data-summary')).toBe('25.00 EUR');
    expect(await row(payments.authorized).locator('td.deadline').textContent()).toMatch(
      /authorizationTtl → voided in 6 d|authorizationTtl → voided in 7 d/,
    );
    expect(await row(payments.waiting).getAttribute('data-waiting')).toBe('');
    expect(await row(payments.waiting).locator('.flag').textContent()).toBe('needs a person');
    expect(await row(payments.refunded).getAttribute('data-waiting')).toBeNull();
    const waitingCount = page.locator('section.counts li[data-waiting][data-state="refund_pending"]');
    expect(await waitingCount.getAttribute('data-count')).toBe('1');
    await waitingCount.locator('a').click();
    await page.waitForURL(/state=refund_pending/);
    expect(await page.locator('tr[data-instance]').evaluateAll((rows) => rows.map((each) => each.getAttribute('data-instance')))).toEqual([
      payments.waiting,
    ]);
    await page.close();
  });

  it("shows a payment's summary, readable deadlines and refused attempts with their reason and arguments", async () => {
    const authorized = await open(1280, `/workflows/payment/${payments.authorized}`);
    const deadline = authorized.locator('tr[data-deadline]');
    expect(await deadline.locator('.name').textContent()).toBe('authorizationTtl');
    expect(await deadline.locator('.target').textContent()).toBe('voided');
    expect(await deadline.locator('.in').textContent()).toMatch(/^in [67] d$/);
    expect(await deadline.locator('time').getAttribute('datetime')).toBe(await deadline.getAttribute('data-due-at'));
    await authorized.close();

    const refunded = await open(1280, `/workflows/payment/${payments.refunded}`);
    expect(await refunded.locator('#summary-line').textContent()).toBe('60.00 EUR · captured 60.00 · refunded 50.00');
    const attempt = refunded.locator('tr[data-attempt][data-code="GUARD_REJECTED"]');
    expect(await attempt.locator('.reason').textContent()).toContain('GUARD_REJECTED');
    expect(JSON.parse((await attempt.locator('.args').textContent())!)).toMatchObject({ amount: 20, paymentId: payments.refunded });
    await refunded.close();

    const waiting = await open(1280, `/workflows/payment/${payments.waiting}`);
    const expiry = waiting.locator('tr[data-deadline="mcp.approval-expiry.payment.refund"]');
    expect(await expiry.locator('.target').textContent()).toBe('captured');
    expect(await expiry.locator('.in').textContent()).toMatch(/^in 2[34] h$/);
    await waiting.close();
  });

  it('draws every transition, the after one and the approval waits included, with the current state in view at 1280 px', async () => {
    const page = await open(1280, `/workflows/payment/${payments.waiting}`);
    const edges = await page
      .locator('svg.diagram g.edge')
      .evaluateAll((groups) => groups.map((group) => `${group.getAttribute('data-from')}>${group.getAttribute('data-to')}`));
    expect(edges).toEqual(
      expect.arrayContaining([
        'pending>authorized',
        'authorized>captured',
        'authorized>voided',
        'captured>refunded',
        'captured>partially_refunded',
        'partially_refunded>partially_refunded',
        'partially_refunded>refunded',
        'captured>refund_pending',
        'refund_pending>refunded',
        'refund_pending>captured',
      ]),
    );
    expect(await page.locator('svg.diagram g.edge text').filter({ hasText: 'after authorizationTtl' }).count()).toBe(1);
    const current = page.locator('[data-state-node="refund_pending"][aria-current="step"]');
    const [box, frame] = await Promise.all([current.boundingBox(), page.locator('figure#diagram').boundingBox()]);
    expect(box!.x).toBeGreaterThanOrEqual(frame!.x);
    expect(box!.x + box!.width).toBeLessThanOrEqual(frame!.x + frame!.width);
    expect(await page.locator('figure#diagram').evaluate((figure) => figure.scrollWidth <= figure.clientWidth)).toBe(true);
    await page.close();
  });

  it('scrolls no page sideways at 420 px', async () => {
    const paths = [
      '/workflows',
      '/workflows?machine=payment&state=refund_pending',
      '/workflows/approvals',
      ...Object.values(payments).map((paymentId) => `/workflows/payment/${paymentId}`),
    ];
    for (const path of paths) {
      const page = await open(420, path);
      const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, body: document.body.scrollWidth }));
      expect({ path, ...widths }).toEqual({ path, page: 420, body: 420 });
      await page.close();
    }
  });
});
