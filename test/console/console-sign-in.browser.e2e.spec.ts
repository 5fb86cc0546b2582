import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

/** A sign-in form POSTed by hand (not a browser): its status, `Set-Cookie` and body. */
async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    cookies: response.headers.getSetCookie(),
    body: await response.text(),
    location: response.headers.get('location'),
  };
}

describe('signing in to the console with a bearer token, in a real browser (the sample with SAMPLE_AUTH=jwt)', () => {
  let issuer: TestIssuer;
  let directory: string;
  let sample: SampleProcess;
  let resource: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  const consoleUrl = (path = '/workflows') => new URL(path, sample.url).href;
  const token = (scope: string, options: { expiresIn?: number; audience?: string } = {}) =>
    issuer.sign({ sub: 'olivia', scope }, { audience: options.audience ?? resource, expiresIn: options.expiresIn });
  const signIn = async (bearer: string) => {
    await page.goto(consoleUrl('/workflows/sign-in'));
    await page.fill('#sign-in-token', bearer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  };
  /** The sign-in page's CSRF field and the cookie that goes with it, as a browser got them. */
  const csrfPair = async () => {
    const response = await fetch(consoleUrl('/workflows/sign-in'));
    const cookie = response.headers
      .getSetCookie()
      .find((line) => line.startsWith('mcp_console_csrf='))!
      .split(';')[0];
    const field = /name="csrf" value="([^"]+)"/.exec(await response.text())![1];
    return { cookie, field };
  };

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    directory = mkdtempSync(join(tmpdir(), 'console-sign-in-'));
    sample = await startSample({
      SAMPLE_DB: join(directory, 'sample.sqlite'),
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: issuer.issuer,
      SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
    });
    resource = sample.url.href;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sample?.stop();
    await issuer?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  beforeEach(async () => {
    context = await browser.newContext();
    page = await context.newPage();
  });

  afterEach(async () => {
    await context.close();
  });

  it('signs in from the 401 page, sets a short-lived HttpOnly SameSite=Strict cookie checked as the header is, and signs out', async () => {
    const first = await page.goto(consoleUrl());
    expect(first!.status()).toBe(401);
    await page.click('#sign-in-link');
    await page.waitForURL('**/workflows/sign-in');

    const bearer = await token('workflows:read', { expiresIn: 600 });
    await page.fill('#sign-in-token', bearer);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(consoleUrl());
    expect(await page.locator('h1').textContent()).toBe('Workflow instances');
    const cookie = (await context.cookies()).find((entry) => entry.name === 'mcp_console_token')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/workflows' });
    // Short-lived: never beyond the token's own expiry (10 minutes here), whatever the hour the sign-in allows.
    expect(cookie.expires * 1000).toBeLessThanOrEqual(Date.now() + 601_000);
    expect(cookie.expires * 1000).toBeGreaterThan(Date.now() + 500_000);
    expect(await page.content()).not.toContain(bearer);

    // The cookie goes with the console's pages and live streams, not with the MCP endpoint.
    await page.goto(consoleUrl('/workflows?machine=payment'));
    expect(
      await page
        .locator('#live-status[data-live="live"]')
        .waitFor({ timeout: 3_000 })
        .then(() => true),
    ).toBe(true);
    const mcp = await page.evaluate(
      async (url) => (await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status,
      sample.url.href,
    );
    expect(mcp).toBe(401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/workflows/sign-in');
    expect((await context.cookies()).some((entry) => entry.name === 'mcp_console_token')).toBe(false);
    expect((await page.goto(consoleUrl()))!.status()).toBe(401);
    expect(sample.stderr()).not.toContain(bearer.split('.')[2]);
  });

  it('refuses on the form, with the reason and no cookie, an expired token, one of another audience and one without the scope', async () => {
    const cases: [string, number, RegExp][] = [
      [await token('workflows:read', { expiresIn: -60 }), 401, /expired/],
      [await token('workflows:read', { audience: 'http://127.0.0.1:1/mcp' }), 401, /not issued for this resource/],
      [await token('payments:refund'), 403, /workflows:read/],
      ['not-a-jwt', 401, /./],
    ];
    for (const [bearer, status, reason] of cases) {
      const response = page.waitForResponse(
        (answer) => answer.url().endsWith('/workflows/sign-in') && answer.request().method() === 'POST',
      );
      await signIn(bearer);
      expect((await response).status()).toBe(status);
      expect(await page.locator('#sign-in-error').textContent()).toMatch(reason);
      expect(await page.content()).not.toContain(bearer);
      expect((await context.cookies()).some((entry) => entry.name === 'mcp_console_token')).toBe(false);
    }
    // A token that later expires stops working at once, as the header would: the cookie is checked every time.
    await signIn(await token('workflows:read', { expiresIn: 2 }));
    expect((await page.goto(consoleUrl()))!.status()).toBe(200);
    // Past its expiry and the verifier's clock tolerance (5 s).
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    expect((await page.goto(consoleUrl()))!.status()).toBe(401);
  }, 30_000);

  it('refuses a sign-in or sign-out without the CSRF token of its own cookie, or from another origin; Secure behind a proxy that says https', async () => {
    const bearer = await token('workflows:read');
    const url = consoleUrl('/workflows/sign-in');
    const { cookie, field } = await csrfPair();
    expect((await postForm(url, { token: bearer })).status).toBe(403);
    expect((await postForm(url, { token: bearer, csrf: field })).status).toBe(403);
    const other = await csrfPair();
    expect((await postForm(url, { token: bearer, csrf: other.field }, { cookie })).status).toBe(403);
    expect((await postForm(consoleUrl('/workflows/sign-out'), {}, { cookie })).status).toBe(403);
    expect((await postForm(url, { token: bearer, csrf: field }, { cookie, origin: 'http://evil.example' })).status).toBe(403);

    const accepted = await postForm(url, { token: bearer, csrf: field }, { cookie });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toBe('/workflows');
    expect(accepted.cookies.find((line) => line.startsWith('mcp_console_token='))).toMatch(
      /; Path=\/workflows; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    // A cookie this console did not write is no token: 401, as without one (never a 500).
    expect((await fetch(consoleUrl(), { headers: { cookie: 'mcp_console_token=%E0%A4%A' } })).status).toBe(401);
    const proxied = await postForm(url, { token: bearer, csrf: field }, { cookie, 'x-forwarded-proto': 'https' });
    expect(proxied.cookies.find((line) => line.startsWith('mcp_console_token='))).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });
});
