import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { eventually } from '../utils/http-client.js';
import { signedInPage, startJwtSample } from '../utils/console-browser.js';
import type { SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Status = { state: string; ledger: { kind: string; amount: number }[]; pendingRefund?: { requestId: string } };

/**
 * The approvals inbox of the sample's console (design §10 "Added in 0.5"), SAMPLE_AUTH=jwt: alice
 * (org acme) asks for a refund above the threshold as a task; bob (acme, payments:approve)
 * decides it in the inbox in Chromium; alice sees her request without the buttons; eve (another
 * org) does not see it; the decision goes through the gate exactly once.
 */
describe('the approvals inbox in a real browser (the sample with SAMPLE_AUTH=jwt, on SQLite)', () => {
  let issuer: TestIssuer;
  let directory: string;
  let sample: SampleProcess;
  let browser: Browser;
  let contexts: BrowserContext[];
  let clients: BearerClient[];

  const consoleUrl = (path = '/workflows') => new URL(path, sample.url).href;
  const token = (sub: string, org: string, scope: string) => issuer.sign({ sub, org, scope }, { audience: sample.url.href });
  const connect = async (sub: string, org: string, scope: string) => {
    const client = await connectBearerClient(sample.url, await token(sub, org, scope));
    clients.push(client);
    return client;
  };
  /** A page of a new browser context signed in as `sub`; `javaScriptEnabled: false` keeps a page as it was loaded (a stale page). */
  const signedIn = async (sub: string, org: string, scope: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Page> => {
    const page = await signedInPage(browser, sample, await token(sub, org, scope), options);
    contexts.push(page.context());
    return page;
  };
  const status = async (agent: BearerClient, paymentId: string) =>
    (await agent.call('payment.status', { paymentId })).structuredContent as Status;
  /** A payment of `amount` EUR, captured, whose refund of `refund` waits as an MCP task: its paymentId and task id. */
  const waitingRefund = async (agent: BearerClient, amount: number, refund: number) => {
    const { paymentId } = (await agent.call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string };
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    const { task } = await agent.client.request(
      { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount: refund }, task: {} } },
      CreateTaskResultSchema,
    );
    await eventually(async () => (await status(agent, paymentId)).state === 'refund_pending', 5_000);
    return { paymentId, taskId: task.taskId };
  };
  const waitingItem = (page: Page, paymentId: string) =>
    page.locator(`[data-waiting][data-machine="payment"][data-instance="${paymentId}"]`);

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    directory = mkdtempSync(join(tmpdir(), 'console-inbox-'));
    sample = await startJwtSample(issuer, directory);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sample?.stop();
    await issuer?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  beforeEach(() => {
    contexts = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  });

  it("lets bob approve alice's waiting refund once: one refund in the ledger, history names bob, alice's task completes; alice sees no Approve, eve sees nothing", async () => {
    const alice = await connect('alice', 'acme', 'payments:refund workflows:read');
    const { paymentId, taskId } = await waitingRefund(alice, 160, 150);
    const { requestId } = (await status(alice, paymentId)).pendingRefund!;

    // alice asked: she sees her request, and no Approve or Reject.
    const alicePage = await signedIn('alice', 'acme', 'workflows:read');
    await alicePage.goto(consoleUrl('/workflows/approvals'));
    const own = waitingItem(alicePage, paymentId);
    expect(await own.getAttribute('data-request-id')).toBe(requestId);
    expect(await own.locator('[data-approve], [data-reject]').count()).toBe(0);
    // eve, of another org, holding payments:approve, does not see it.
    const evePage = await signedIn('eve', 'globex', 'workflows:read payments:approve');
    await evePage.goto(consoleUrl('/workflows/approvals'));
    expect(await evePage.locator('[data-waiting]').count()).toBe(0);

    // bob sees it with the amount and who asked, and approves it.
    const bobPage = await signedIn('bob', 'acme', 'workflows:read payments:approve');
    const stalePage = await signedIn('bob', 'acme', 'workflows:read payments:approve', { javaScriptEnabled: false });
    await stalePage.goto(consoleUrl('/workflows/approvals'));
    await bobPage.goto(consoleUrl('/workflows/approvals'));
    const item = waitingItem(bobPage, paymentId);
    expect(await item.getAttribute('data-request-id')).toBe(requestId);
    expect(await item.locator('[data-argument="amount"]').textContent()).toBe('150');
    expect(await item.locator('.requester').textContent()).toContain('alice');
    expect(await item.locator('time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // At 420 px the inbox, its forms included, does not scroll sideways.
    await bobPage.setViewportSize({ width: 420, height: 800 });
    expect(await bobPage.evaluate(() => document.documentElement.scrollWidth)).toBe(420);
    await item.locator('[data-approve]').click();
    await bobPage.waitForURL(consoleUrl('/workflows/approvals'));
    expect(await bobPage.locator('#action-result').getAttribute('data-ok')).toBe('true');
    expect(await bobPage.locator('#action-result').textContent()).toContain('Approved');

    const after = await status(alice, paymentId);
    expect(after.state).toBe('partially_refunded');
    expect(after.ledger.filter((entry) => entry.kind === 'refund')).toEqual([{ kind: 'refund', amount: 150 }]);
    await eventually(async () => (await alice.client.experimental.tasks.getTask(taskId)).status === 'completed', 5_000);
    const result = await alice.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    const history = await bobPage.goto(consoleUrl(`/workflows/payment/${paymentId}`));
    expect(history!.status()).toBe(200);
    expect(
      await bobPage.locator('tr[data-history-entry][data-tool="payment.approve_refund"] .principal').first().getAttribute('data-actor'),
    ).toBe('bob');

    // The same form again, from a page loaded before the decision: no longer waiting, nothing changes.
    const stale = waitingItem(stalePage, paymentId);
    const answer = stalePage.waitForResponse(
      (response) => response.url() === consoleUrl('/workflows/approvals') && response.request().method() === 'POST',
    );
    await stale.locator('[data-approve]').click();
    expect((await answer).status()).toBe(409);
    expect(await stalePage.locator('#action-result').textContent()).toContain('no longer waiting');
    expect((await status(alice, paymentId)).ledger.filter((entry) => entry.kind === 'refund')).toHaveLength(1);
    await bobPage.goto(consoleUrl('/workflows/approvals'));
    expect(await waitingItem(bobPage, paymentId).count()).toBe(0);
  }, 60_000);

  it('refuses a decision without the CSRF token of its page, without the sign-in cookie, or by a person without payments:approve', async () => {
    const alice = await connect('alice', 'acme', 'payments:refund workflows:read');
    const { paymentId } = await waitingRefund(alice, 300, 200);
    const { requestId } = (await status(alice, paymentId)).pendingRefund!;
    const form = { machine: 'payment', handle: paymentId, requestId, verdict: 'approve' };
    const bobPage = await signedIn('bob', 'acme', 'workflows:read payments:approve');
    await bobPage.goto(consoleUrl('/workflows/approvals'));
    const post = (fields: Record<string, string>) =>
      bobPage.evaluate(
        async ([url, body]) =>
          (await fetch(url, { method: 'POST', body: new URLSearchParams(body), credentials: 'same-origin', redirect: 'manual' })).status,
        [consoleUrl('/workflows/approvals'), fields] as const,
      );
    expect(await post(form)).toBe(403);
    expect(await post({ ...form, csrf: 'x'.repeat(43) })).toBe(403);
    // A bearer header instead of the sign-in cookie: the console's forms are for its signed-in browsers.
    const bearer = await fetch(consoleUrl('/workflows/approvals'), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token('bob', 'acme', 'workflows:read payments:approve')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
    });
    expect(bearer.status).toBe(403);
    // carol, of acme, signed in without payments:approve: her page has no buttons, and a forged form is refused.
    const carolPage = await signedIn('carol', 'acme', 'workflows:read');
    await carolPage.goto(consoleUrl('/workflows/approvals'));
    expect(await carolPage.locator('[data-approve]').count()).toBe(0);
    const csrf = await bobPage.locator('input[name="csrf"]').first().inputValue();
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await status(alice, paymentId)).state).toBe('refund_pending');

    // With the token of its page, bob's decision goes through (a rejection, with his reason).
    await waitingItem(bobPage, paymentId).locator('input[name="reason"]').fill('duplicate of an earlier refund');
    await waitingItem(bobPage, paymentId).locator('[data-reject]').click();
    await bobPage.waitForURL(consoleUrl('/workflows/approvals'));
    expect(await bobPage.locator('#action-result').getAttribute('data-ok')).toBe('true');
    const rejected = await status(alice, paymentId);
    expect(rejected.state).toBe('captured');
    expect(rejected.ledger.some((entry) => entry.kind === 'refund')).toBe(false);
  }, 60_000);
});
