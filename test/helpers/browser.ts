/**
 * A headless browser for the tests that look at what shoal draws (the report page, the dashboard):
 * Debian's chromium at /usr/bin/chromium driven by playwright-core, which never downloads a
 * browser. A machine without it fails the test, loudly, naming the package: a browser test that
 * skipped itself would pass without looking at anything.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Launches headless chromium; close it with `browser.close()`.
 * @throws Error naming `apt-get install -y chromium` when the browser is not installed.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `the browser tests need chromium at ${CHROMIUM_PATH}, and it is missing: install it with \`apt-get install -y chromium\` ` +
        '(they never download a browser)',
    );
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

/** What a page did while it was watched: every problem a test should see. */
export interface PageWatch {
  /** Console messages of type `error`. */
  readonly consoleErrors: string[];
  /** Uncaught exceptions of the page's scripts. */
  readonly pageErrors: string[];
  /** Requests that failed (refused, aborted, blocked), as `URL: reason`. */
  readonly failedRequests: string[];
  /** Every request the page made, in order (the document itself included). */
  readonly requests: string[];
}

/**
 * Records console errors, page errors and requests of `page` from now on. With `isOffline`, every
 * request that is not for a `file:` or `data:` URL is aborted (and so listed as failed): a page that
 * should stand alone cannot reach the network even by mistake.
 */
export async function watchPage(page: Page, options: { readonly isOffline?: boolean } = {}): Promise<PageWatch> {
  const watch: PageWatch = { consoleErrors: [], pageErrors: [], failedRequests: [], requests: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') watch.consoleErrors.push(m.text());
  });
  page.on('pageerror', (err) => watch.pageErrors.push(err.message));
  page.on('request', (r) => watch.requests.push(r.url()));
  page.on('requestfailed', (r) => watch.failedRequests.push(`${r.url()}: ${r.failure()?.errorText ?? 'failed'}`));
  if (options.isOffline === true)
    await page.route(
      (url) => url.protocol !== 'file:' && url.protocol !== 'data:',
      (route) => route.abort('blockedbyclient'),
    );
  return watch;
}
