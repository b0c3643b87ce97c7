/**
 * Debian's Chromium driven by playwright-core for the browser tests. Playwright's own browser
 * download cannot work on a closed network, so the system's /usr/bin/chromium is launched (installed
 * by scripts/ensure-chromium.sh, which `npm test` runs) with a fresh profile (Playwright makes a
 * temporary one per launch) and the switches that keep it from reaching out: without
 * --disable-background-networking and friends it tries Google's services and its connections are refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/**
 * Where screenshots go: docs/screenshots/ (README's pictures, kept in the repository) only when asked
 * with TEST_UPDATE_SCREENSHOTS=1, else a temporary folder, so a plain `npm test` leaves the clone's
 * files as they were (issue 29).
 */
export function screenshotFolder(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEST_UPDATE_SCREENSHOTS === '1'
    ? path.resolve(__dirname, '..', '..', 'docs', 'screenshots')
    : path.join(os.tmpdir(), 'railyard-screenshots');
}
export const SCREENSHOTS = screenshotFolder();

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; run 'apt-get install chromium' as root (scripts/ensure-chromium.sh does it in npm test).`,
    );
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS, timeout: 30_000 });
}

/** Saves a full-page screenshot as <SCREENSHOTS>/<name>.png (docs/screenshots/ when asked). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
