import { chromium, type Browser } from 'playwright-core';

/** The system Chromium (Debian's package; `.ci/run` installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium from the system package, offline: no sandbox (CI runs as root), no GPU, no
 * QUIC, no background or component traffic. Playwright gives each launch a fresh profile directory.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
