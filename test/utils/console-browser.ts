import { join } from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { startSample, type SampleProcess } from './sample-process.js';
import type { TestIssuer } from './test-issuer.js';

/** The sample with `SAMPLE_AUTH=jwt`, verifying tokens of `issuer`, on a SQLite file in `directory`. */
export function startJwtSample(issuer: TestIssuer, directory: string): Promise<SampleProcess> {
  return startSample({
    SAMPLE_DB: join(directory, 'sample.sqlite'),
    SAMPLE_AUTH: 'jwt',
    SAMPLE_JWT_ISSUER: issuer.issuer,
    SAMPLE_JWT_JWKS_URL: issuer.jwksUrl,
  });
}

/** A page of a new context of `browser`, signed in to `sample`'s console with `bearer` (its sign-in form, as a person would). */
export async function signedInPage(
  browser: Browser,
  sample: SampleProcess,
  bearer: string,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(new URL('/workflows/sign-in', sample.url).href);
  await page.fill('#sign-in-token', bearer);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(new URL('/workflows', sample.url).href);
  return page;
}
