// Headless Chromium for the dashboard's tests: Debian's `chromium` (apt-get install chromium; .ci/run installs it)
// driven by puppeteer-core, which brings no browser of its own. One browser per test file; with
// SWITCHBOARD_SCREENSHOTS=1, screenshots go to docs/screenshots/, linked from docs/dashboard.md.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ROOT } from './cli.ts';

export const CHROMIUM = process.env.SWITCHBOARD_TEST_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'docs/screenshots');

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set SWITCHBOARD_TEST_CHROMIUM.`,
    );
  return puppeteer.launch({
    executablePath: CHROMIUM,
    // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-extensions'],
    headless: true,
  });
}

/** A page at 1280×800 that fails the test on any script error in the page. */
export async function openPage(browser: Browser, errors: string[]): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('pageerror', (err) => errors.push(String(err)));
  return page;
}

/** Log in through the form with `token`, and wait for the shell. */
export async function logIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/ui`);
  await page.waitForSelector('#token');
  await page.type('#token', token);
  await page.click('form button[type=submit]');
  await page.waitForSelector('header .who');
}

/** Go to a view (`tasks`) and wait for it to be shown. */
export async function show(page: Page, view: string): Promise<void> {
  await page.evaluate((v) => {
    location.hash = `#/${v}`;
  }, view);
  await page.waitForSelector(`main#view[data-view="${view.split('/')[0]}"]`);
}

/** Wait until the live stream is open (the header says live). */
export async function whenLive(page: Page): Promise<void> {
  await page.waitForSelector('header .live.live');
}

/** Write docs/screenshots/NAME.png, only when asked (SWITCHBOARD_SCREENSHOTS=1): a test run leaves the checkout clean. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SWITCHBOARD_SCREENSHOTS !== '1') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}
