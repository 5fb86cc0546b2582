import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { signedInPage, startJwtSample } from '../utils/console-browser.js';
import type { SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Status = { state: string; ledger: { kind: string; amount: number }[] };

const errorCode = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

/**
 * An operator's actions on the sample's console (SAMPLE_AUTH=jwt): each behind its own scope
 * (`workflows:send` voids an authorized payment, the payment machine's operator event;
 * `workflows:end` ends one), asked to confirm, carried out through the gate, and named in the history.
 */
describe("an operator's actions in the console, in a real browser (the sample with SAMPLE_AUTH=jwt, on SQLite)", () => {
  let issuer: TestIssuer;
  let directory: string;
  let sample: SampleProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let alice: BearerClient;

  const consoleUrl = (path = '/workflows') => new URL(path, sample.url).href;
  const token = (sub: string, scope: string, org = 'acme') => issuer.sign({ sub, org, scope }, { audience: sample.url.href });
  const signIn = async (sub: string, scope: string) => {
    page = await signedInPage(browser, sample, await token(sub, scope));
    context = page.context();
  };
  const authorize = async () =>
    ((await alice.call('payment.authorize', { amount: 70, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  const status = async (paymentId: string) => (await alice.call('payment.status', { paymentId })) as { structuredContent?: Status };

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    directory = mkdtempSync(join(tmpdir(), 'console-operator-'));
    sample = await startJwtSample(issuer, directory);
    browser = await launchChromium();
    alice = await connectBearerClient(sample.url, await token('alice', 'payments:refund workflows:read'));
  }, 60_000);

  afterAll(async () => {
    await alice?.close().catch(() => undefined);
    await browser?.close();
    await sample?.stop();
    await issuer?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
  });

  it('voids an authorized payment after a confirmation, through the gate: its void entry, voided, the history names the operator', async () => {
    const paymentId = await authorize();
    await signIn('olivia', 'workflows:read workflows:send');
    await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    expect(await page.locator('[data-end-instance]').count()).toBe(0);
    await page.locator('[data-send-event="VOID"]').click();
    expect(await page.locator('#confirm-question').textContent()).toContain('VOID');
    await page.setViewportSize({ width: 420, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(420);
    // Nothing happens before the confirmation.
    expect((await status(paymentId)).structuredContent!.state).toBe('authorized');
    await page.locator('[data-confirm]').click();
    expect(await page.locator('#action-result').getAttribute('data-ok')).toBe('true');
    const voided = (await status(paymentId)).structuredContent!;
    expect(voided.state).toBe('voided');
    expect(voided.ledger.map((entry) => entry.kind)).toEqual(['authorize', 'void']);
    await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    const row = page.locator('tr[data-history-entry][data-tool="VOID"]');
    expect(await row.locator('.principal').getAttribute('data-actor')).toBe('olivia');
    // A voided payment takes no VOID: its page offers none.
    expect(await page.locator('[data-send-event]').count()).toBe(0);
  }, 30_000);

  it('ends a payment after a confirmation: its handle stops working, and its last history row names the operator', async () => {
    const paymentId = await authorize();
    await signIn('olivia', 'workflows:read workflows:admin workflows:end');
    await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    expect(await page.locator('[data-send-event]').count()).toBe(0);
    await page.locator('[data-end-instance]').click();
    await page.locator('[data-confirm]').click();
    expect(await page.locator('#action-result').getAttribute('data-ok')).toBe('true');
    expect(errorCode(await alice.call('payment.status', { paymentId }))).toBe('UNKNOWN_HANDLE');
    const gone = await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    expect(gone!.status()).toBe(404);
    const last = page.locator('tr[data-history-entry]').first();
    expect(await last.getAttribute('data-tool')).toBe('McpWorkflowService.end');
    expect(await last.locator('.event').textContent()).toBe('mcp.end');
    expect(await last.locator('.principal').getAttribute('data-actor')).toBe('olivia');
  }, 30_000);

  it('refuses an action without its scope, without the CSRF token of its page, or for an event the machine does not let operators send', async () => {
    const paymentId = await authorize();
    await signIn('olivia', 'workflows:read workflows:send');
    await page.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    const csrf = await page.locator('form input[name="csrf"]').first().inputValue();
    const post = (fields: Record<string, string>) =>
      page.evaluate(
        async ([url, body]) => (await fetch(url, { method: 'POST', body: new URLSearchParams(body), credentials: 'same-origin' })).status,
        [consoleUrl(`/workflows/payment/${paymentId}/actions`), fields] as const,
      );
    expect(await post({ csrf, action: 'end', confirmed: 'yes' })).toBe(403);
    expect(await post({ event: 'VOID', confirmed: 'yes' })).toBe(403);
    expect(await post({ csrf, event: 'CAPTURE', confirmed: 'yes' })).toBe(400);
    expect((await status(paymentId)).structuredContent!.state).toBe('authorized');
  }, 30_000);
});
