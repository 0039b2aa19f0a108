/**
 * X4's per-host activity cap (`politeness.maxHostShare`) in a crawl (`shoal crawl --config`) of a
 * site served by the test web where one host dominates:
 *
 *     big.test/ ─▶ big.test/p1 … big.test/p120, then small1.test/ small2.test/ small3.test/
 *     smallN.test/ ─▶ smallN.test/p1 … smallN.test/p30
 *
 * Four fetch slots, four connections per host and per address, no politeness gap. Breadth-first
 * queues big.test's 120 pages before the small hosts' home pages, and big.test, always ready with the
 * oldest URL, takes every free slot: until the last small page is fetched it has taken more than
 * half of the fetches. With a cap of a quarter over an hour (the whole crawl), it is passed over while
 * a small host may be fetched, and has taken about a quarter of the fetches by then; then it is the
 * only host left and the cap lets it run at full speed, so the crawl ends with every page fetched.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runInProcess } from '../helpers/cli.js';

const BIG_PAGES = 120;
const SMALL_HOSTS = ['small1.test', 'small2.test', 'small3.test'];
const SMALL_PAGES = 30;
const PAGES = 1 + BIG_PAGES + SMALL_HOSTS.length * (1 + SMALL_PAGES);

const dir = mkdtempSync(join(tmpdir(), 'shoal-activity-cap-'));
let web: TestWeb;

const html = (title: string, links: readonly string[]): string =>
  `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}</body></html>`;

/** A folder of `pages` pages p1..pN linked from its index, which also links `more`. */
function writeSite(name: string, pages: number, more: readonly string[] = []): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  const links = Array.from({ length: pages }, (_, i) => `p${i + 1}`);
  writeFileSync(join(root, 'index.html'), html(`${name} home`, [...links, ...more]));
  for (const l of links) writeFileSync(join(root, l), html(`${name} page ${l}`, []));
  return root;
}

before(async () => {
  const bigRoot = join(dir, 'big.test');
  mkdirSync(bigRoot);
  const smalls = SMALL_HOSTS.map((host) => ({ host, root: writeSite(host, SMALL_PAGES) }));
  web = await startTestWeb({ hosts: 0, pages: 0, seeds: 1, replay: [{ host: 'big.test', root: bigRoot }, ...smalls] });
  // The small hosts' links need the port.
  writeSite(
    'big.test',
    BIG_PAGES,
    SMALL_HOSTS.map((h) => `http://${h}:${web.port}/`),
  );
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Crawls with `politeness` (YAML lines added to the section); big.test's share of the pages fetched until the last small page, and the pages fetched. */
async function crawl(name: string, politeness: string): Promise<{ share: number; pages: number }> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    'politeness:\n  minDelayMs: 0\n  delayFactor: 0\n  maxConnectionsPerHost: 4\n  maxConnectionsPerIp: 4\n' +
      politeness +
      'limits:\n  concurrency: 4\nprogressIntervalMs: 0\n',
  );
  const out = join(dir, name);
  const r = await runInProcess([
    'crawl',
    '--config',
    config,
    '--seed',
    `http://big.test:${web.port}/`,
    '--hosts-file',
    web.hostsFile,
    '--allow-loopback',
    '--out',
    out,
  ]);
  assert.equal(r.code, 0, r.err);
  const hosts: string[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
    const u = new URL(e.url);
    if (e.status === 200 && u.pathname !== '/robots.txt') hosts.push(u.hostname);
  }
  const lastSmall = hosts.findLastIndex((h) => h !== 'big.test');
  const big = hosts.slice(0, lastSmall + 1).filter((h) => h === 'big.test').length;
  return { share: big / (lastSmall + 1), pages: hosts.length };
}

describe('politeness.maxHostShare', () => {
  it('without the cap, the big host takes most fetches while the small hosts wait', { timeout: 60_000 }, async (t) => {
    const { share, pages } = await crawl('off', '');
    t.diagnostic(`big.test share until the last small page: ${share.toFixed(3)}`);
    assert.equal(pages, PAGES);
    assert.ok(share > 0.5, `big.test took ${share.toFixed(3)} of the fetches`);
  });

  it('with a cap of a quarter, the big host is held to its share and the crawl still ends', { timeout: 60_000 }, async (t) => {
    const { share, pages } = await crawl('capped', '  maxHostShare: 0.25\n  hostShareWindowMs: 1h\n');
    assert.equal(pages, PAGES);
    t.diagnostic(`big.test share until the last small page: ${share.toFixed(3)}`);
    // A quarter, plus the home page it took first and the leases that complete out of order.
    assert.ok(share <= 0.3, `big.test took ${share.toFixed(3)} of the fetches`);
    assert.ok(share >= 0.15, `big.test took ${share.toFixed(3)} of the fetches: passed over more than its share says`);
  });
});
