import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from './chromium.js';

/**
 * `npm run console:screenshots`: starts the sample on a fresh SQLite file, moves a few payments
 * and an invoice with the SDK client, and saves the console's two pages as
 * docs/console-list.png and docs/console-instance.png (light colour scheme).
 */
async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'console-screenshots-'));
  const sample = spawn(process.execPath, [join('.sample-dist', 'sample', 'main.js')], {
    env: { ...process.env, PORT: '0', NO_COLOR: '1', SAMPLE_DB: join(directory, 'sample.sqlite') },
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
    const client = new Client({ name: 'console-screenshots', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: 'Bearer ops-demo' } } }));
    const call = async (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
    const authorize = async (amount: number) =>
      ((await call('payment.authorize', { amount, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
    const refunded = await authorize(120);
    await call('payment.capture', { paymentId: refunded });
    await call('payment.refund', { paymentId: refunded, amount: 20 });
    const voided = await authorize(15);
    await call('payment.void', { paymentId: voided });
    await call('invoice.submit');
    await call('invoice.approve');
    await authorize(42.5);
    const captured = await authorize(99.99);
    await call('payment.capture', { paymentId: captured });
    await authorize(7);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 760 }, colorScheme: 'light' });
      await page.goto(new URL('/workflows', endpoint).href);
      await page.locator('#live-status[data-live="live"]').waitFor();
      await page.screenshot({ path: join('docs', 'console-list.png') });
      await page.locator(`tr[data-instance="${refunded}"] a`).click();
      await page.locator('[data-state-node="partially_refunded"][aria-current="step"]').waitFor();
      await page.setViewportSize({ width: 1200, height: 1100 });
      await page.screenshot({ path: join('docs', 'console-instance.png'), fullPage: true });
    } finally {
      await browser.close();
    }
    await client.close();
  } finally {
    sample.kill('SIGTERM');
    await new Promise((resolve) => sample.once('exit', resolve));
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
