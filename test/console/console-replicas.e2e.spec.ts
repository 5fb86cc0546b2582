import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../scripts/chromium.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { connectClient, type TestClient } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

/** "About two seconds", with the relay's hop between the processes included. */
const LIVE_MS = 2500;

describeNetworkedTargets('the workflow console across replicas')(
  'the workflow console on one sample process, transitions made on another (one $name, its relay)',
  ({ url }) => {
    let samples: SampleProcess[];
    let browser: Browser;
    let page: Page;
    let clients: TestClient[];

    beforeAll(async () => {
      samples = [await startSample({ DATABASE_URL: url!, SAMPLE_AUTH: 'optional' })];
      samples.push(await startSample({ DATABASE_URL: url!, SAMPLE_AUTH: 'optional' }));
      browser = await launchChromium();
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await Promise.all((samples ?? []).map((sample) => sample.stop()));
    });

    beforeEach(async () => {
      clients = [];
      page = await browser.newPage();
    });

    afterEach(async () => {
      await page.close();
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    });

    it('lists a payment started on the other process and moves it to captured live, list and instance page alike', async () => {
      const [watched, other] = samples;
      await page.goto(new URL('/workflows?machine=payment', watched.url).href);
      await page.locator('#live-status[data-live="live"]').waitFor();
      await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

      const agent = await connectClient(other.url, { Authorization: 'Bearer carol' });
      clients.push(agent);
      const { paymentId } = (await agent.call('payment.authorize', { amount: 8, currency: 'EUR' })).structuredContent as {
        paymentId: string;
      };
      await page.locator(`tr[data-instance="${paymentId}"][data-state="authorized"]`).waitFor({ timeout: LIVE_MS });
      expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
      await page.locator(`tr[data-instance="${paymentId}"][data-state="captured"]`).waitFor({ timeout: LIVE_MS });
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

      await page.locator(`tr[data-instance="${paymentId}"] a`).click();
      await page.locator('[data-state-node="captured"][aria-current="step"]').waitFor();
      await page.locator('#live-status[data-live="live"]').waitFor();
      expect((await agent.call('payment.refund', { paymentId, amount: 3 })).isError).toBeFalsy();
      await page.locator('[data-state-node="partially_refunded"][aria-current="step"]').waitFor({ timeout: LIVE_MS });
      expect(await page.locator('[data-history-entry]').first().getAttribute('data-tool')).toBe('payment.refund');
    });
  },
);
