/**
 * The `normalize` section in a crawl (`shoal crawl --config`): a small site served by the test web
 * under two names, `norm.test` and `www.norm.test` (one folder, like a site that answers on both),
 * whose links, seeds and sitemap name one page in many spellings:
 *
 *     seeds: http://www.norm.test/   http://norm.test/   sitemap http://www.norm.test/sitemap.xml
 *     index.html ─▶ page.html?b=2&a=1                       (query order)
 *                ─▶ page.html?a=1&b=2&utm_source=news        (tracking parameter)
 *                ─▶ http://www.norm.test/page.html?a=1&b=2   (www.)
 *                ─▶ page.html;jsessionid=0AF3?b=2&a=1&fbclid=x (session path parameter, tracking)
 *                ─▶ other.html,  http://WWW.norm.test/other.html?sid=42
 *     page.html  ─▶ index.html
 *     sitemap.xml ─▶ www.norm.test/page.html?b=2&a=1, www.norm.test/listed.html?utm_campaign=x
 *
 * With `stripWww`, `sortQuery` and the default `dropParams`, every spelling of page.html collapses
 * to one fetch of http://norm.test/page.html?a=1&b=2, in a crawl of one node and in one of two nodes
 * (where links cross between nodes). With the rules off, the same crawl fetches page.html under
 * several URLs: the assertion can fail. (The two home pages are exact duplicates of each other: the
 * links of the one fetched second are not followed.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runInProcess } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-normalize-'));
const site = join(dir, 'site');
let web: TestWeb;

before(async () => {
  mkdirSync(site);
  web = await startTestWeb({
    hosts: 0,
    pages: 0,
    seeds: 1,
    replay: [
      { host: 'norm.test', root: site },
      { host: 'www.norm.test', root: site },
    ],
  });
  // The replay server reads files as they are asked for: written once the port is known.
  const www = `http://www.norm.test:${web.port}`;
  const WWW = `http://WWW.norm.test:${web.port}`;
  const page = (body: string): string => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
  writeFileSync(
    join(site, 'index.html'),
    page(
      [
        '<a href="page.html?b=2&amp;a=1">q</a>',
        '<a href="page.html?a=1&amp;b=2&amp;utm_source=news">u</a>',
        `<a href="${www}/page.html?a=1&amp;b=2">w</a>`,
        '<a href="page.html;jsessionid=0AF3?b=2&amp;a=1&amp;fbclid=x">s</a>',
        '<a href="other.html">o</a>',
        `<a href="${WWW}/other.html?sid=42">o2</a>`,
      ].join('\n'),
    ),
  );
  writeFileSync(join(site, 'page.html'), page('<p>the page</p><a href="index.html">home</a>'));
  writeFileSync(join(site, 'other.html'), page('<p>other</p>'));
  writeFileSync(join(site, 'listed.html'), page('<p>listed</p>'));
  writeFileSync(
    join(site, 'sitemap.xml'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
      `<url><loc>${www}/page.html?b=2&amp;a=1</loc></url>\n<url><loc>${www}/listed.html?utm_campaign=x</loc></url>\n</urlset>\n`,
  );
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Crawls the site with `normalize` (YAML lines) and more options; returns the URLs fetched with a 200, over every node. */
async function crawl(name: string, normalize: string, args: readonly string[] = []): Promise<string[]> {
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, `normalize:\n${normalize}politeness:\n  minDelayMs: 0\n  delayFactor: 0\nprogressIntervalMs: 0\n`);
  const out = join(dir, name);
  const r = await runInProcess([
    'crawl',
    '--config',
    config,
    '--seed',
    `http://www.norm.test:${web.port}/`,
    '--seed',
    `http://norm.test:${web.port}/`,
    '--sitemap',
    `http://www.norm.test:${web.port}/sitemap.xml`,
    '--hosts-file',
    web.hostsFile,
    '--allow-loopback',
    '--out',
    out,
    ...args,
  ]);
  assert.equal(r.code, 0, r.err);
  const logs = existsSync(join(out, 'nodes'))
    ? readdirSync(join(out, 'nodes')).map((n) => join(out, 'nodes', n, 'crawl-log.jsonl'))
    : [join(out, 'crawl-log.jsonl')];
  const fetched: string[] = [];
  for (const log of logs) for await (const e of readCrawlLog(log)) if (e.status === 200) fetched.push(e.url);
  return fetched.map((u) => u.replace(`:${web.port}`, '')).sort();
}

const COLLAPSED = [
  'http://norm.test/',
  'http://norm.test/index.html',
  'http://norm.test/listed.html',
  'http://norm.test/other.html',
  'http://norm.test/page.html?a=1&b=2',
  'http://norm.test/sitemap.xml',
];

describe('normalize section', () => {
  it('collapses www., query order, tracking and session variants to one fetch', { timeout: 60_000 }, async () => {
    assert.deepEqual(await crawl('on', '  stripWww: true\n  sortQuery: true\n'), COLLAPSED);
  });

  it('collapses them alike in a crawl of two nodes', { timeout: 60_000 }, async () => {
    assert.deepEqual(await crawl('two', '  stripWww: true\n  sortQuery: true\n', ['--nodes', '2']), COLLAPSED);
  });

  it('fetches the variants when the rules are off', { timeout: 60_000 }, async () => {
    const fetched = await crawl('off', '  dropParams: []\n');
    const pages = fetched.filter((u) => u.includes('/page.html'));
    // The two home pages have the same content: whichever comes second is a duplicate whose links
    // are not followed, so which relative variants appear depends on timing; these do not.
    assert.ok(pages.length >= 3, pages.join(' '));
    assert.ok(pages.includes('http://www.norm.test/page.html?a=1&b=2'), pages.join(' '));
    assert.ok(pages.includes('http://www.norm.test/page.html?b=2&a=1'), pages.join(' '));
    assert.ok(
      pages.some((u) => u.includes('utm_source=news')),
      pages.join(' '),
    );
    assert.ok(fetched.includes('http://www.norm.test/'));
  });
});
