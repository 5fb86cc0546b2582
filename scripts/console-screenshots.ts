import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium.js';

/** A bearer-token issuer on a loopback port: its JWKS, and tokens signed for the sample's resource. */
async function startIssuer(): Promise<{
  server: Server;
  issuer: string;
  sign: (claims: Record<string, unknown>, audience: string) => Promise<string>;
}> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'screenshots', alg: 'RS256', use: 'sig' }] });
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: Record<string, unknown>, audience: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'screenshots' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  return { server, issuer, sign };
}

/**
 * `npm run console:screenshots`: starts the sample with SAMPLE_AUTH=jwt on a fresh SQLite file
 * (a token issuer of its own on a loopback port), moves a few payments of one org with the SDK
 * client, one refund waiting for a second person, and saves the console's pages as
 * docs/console-list.png, docs/console-instance.png, docs/console-inbox.png and
 * docs/console-narrow.png (420 px) (light colour scheme).
 */
async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'console-screenshots-'));
  const tokens = await startIssuer();
  const sample = spawn(process.execPath, [join('.sample-dist', 'sample', 'main.js')], {
    env: {
      ...process.env,
      PORT: '0',
      NO_COLOR: '1',
      SAMPLE_DB: join(directory, 'sample.sqlite'),
      SAMPLE_AUTH: 'jwt',
      SAMPLE_JWT_ISSUER: tokens.issuer,
      SAMPLE_JWT_JWKS_URL: `${tokens.issuer}/jwks`,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const endpoint = await new Promise<URL>((resolve, reject) => {
      let log = '';
      sample.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /MCP endpoint: (http:\/\/\S+)/.exec(log);
        if (match) resolve(new URL(match[1]));
      });
      sample.once('exit', (code) => reject(new Error(`sample exited with ${code}:\n${log}`)));
    });
    const token = (sub: string, scope: string) => tokens.sign({ sub, org: 'acme', scope }, endpoint.href);
    const client = new Client({ name: 'console-screenshots', version: '1.0.0' });
    const alice = await token('alice', 'payments:refund invoices:approve');
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${alice}` } } }));
    const call = async (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
    const authorize = async (amount: number) =>
      ((await call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
    const refunded = await authorize(60);
    await call('payment.capture', { paymentId: refunded });
    await call('payment.refund', { paymentId: refunded, amount: 50 });
    await call('payment.refund', { paymentId: refunded, amount: 20 });
    const voided = await authorize(15);
    await call('payment.void', { paymentId: voided });
    await call('invoice.submit');
    await call('invoice.approve');
    const waiting = await authorize(240);
    await call('payment.capture', { paymentId: waiting });
    await call('payment.refund', { paymentId: waiting, amount: 180 });
    await authorize(42.5);
    const captured = await authorize(99.99);
    await call('payment.capture', { paymentId: captured });

    const browser = await launchChromium();
    try {
      const signIn = async (width: number, height: number, sub: string, scope: string) => {
        const page = await browser.newPage({ viewport: { width, height }, colorScheme: 'light' });
        await page.goto(new URL('/workflows/sign-in', endpoint).href);
        await page.fill('#sign-in-token', await token(sub, scope));
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(new URL('/workflows', endpoint).href);
        return page;
      };
      await shoot(browser, async () => {
        const page = await signIn(1280, 820, 'ops', 'workflows:read workflows:admin workflows:end workflows:send');
        await page.locator('#live-status[data-live="live"]').waitFor();
        await page.screenshot({ path: join('docs', 'console-list.png') });
        await page.locator(`tr[data-instance="${refunded}"] th a`).click();
        await page.locator('[data-state-node="partially_refunded"][aria-current="step"]').waitFor();
        await page.screenshot({ path: join('docs', 'console-instance.png'), fullPage: true });
        await page.setViewportSize({ width: 420, height: 900 });
        await page.goto(new URL(`/workflows/payment/${waiting}`, endpoint).href);
        await page.screenshot({ path: join('docs', 'console-narrow.png') });
      });
      await shoot(browser, async () => {
        const page = await signIn(1280, 720, 'bob', 'workflows:read payments:approve');
        await page.goto(new URL('/workflows/approvals', endpoint).href);
        await page.locator(`[data-waiting][data-instance="${waiting}"]`).waitFor();
        await page.screenshot({ path: join('docs', 'console-inbox.png') });
      });
    } finally {
      await browser.close();
    }
    await client.close();
  } finally {
    sample.kill('SIGTERM');
    await new Promise((resolve) => sample.once('exit', resolve));
    tokens.server.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Runs `take` (which opens its pages in `browser`). */
async function shoot(browser: Browser, take: () => Promise<void>): Promise<void> {
  await take();
  for (const context of browser.contexts()) await context.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
