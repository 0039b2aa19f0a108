/**
 * A headless browser for the dashboard tests: Debian's chromium at /usr/bin/chromium driven by
 * playwright-core, which never downloads a browser. A machine without it fails the test, loudly,
 * naming the package to install: a browser test that skipped itself would prove nothing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Launches headless chromium; close it with `browser.close()`.
 * @throws Error naming `apt-get install -y chromium` when the browser is missing.
 */
export async function launchDashboardBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `the dashboard browser test needs chromium at ${CHROMIUM_PATH}, and it is missing: ` +
        'install it with `apt-get install -y chromium` (the tests never download a browser)',
    );
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

/** What a page did while it was watched. */
export interface PageProblems {
  /** Console errors and uncaught exceptions of the page's scripts. */
  readonly errors: string[];
  /** Every URL the page requested, the document included. */
  readonly requests: string[];
}

/** Records the page's script errors and requests from now on. */
export function watchDashboardPage(page: Page): PageProblems {
  const seen: PageProblems = { errors: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') seen.errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => seen.errors.push(`page: ${err.message}`));
  page.on('request', (r) => seen.requests.push(r.url()));
  return seen;
}
