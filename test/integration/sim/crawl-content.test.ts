/**
 * A crawl graph's page content (`src/sim/graph/crawl-content.ts`): a small test web (gzip and brotli
 * hosts, legacy charsets, duplicates) is crawled for real over loopback, then its graph is loaded
 * with `withContent`. Every page's title and visible text read back from the WARC files must be what
 * the crawl's parser gave for that page at crawl time (the title and text digest in pages.jsonl); a
 * mirrored page reads as the page it repeats; pages the crawl did not archive have no content. A
 * hand-written archive covers a revisit record, stacked content codings and a non-HTML body.
 * `shoal simulate` reaches it through `graph.crawlContent`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ConfigError, ShoalError } from '../../../src/core/errors.js';
import { textDigest } from '../../../src/dedup/content-digest.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import { analyzePage } from '../../../src/parse/page-analysis.js';
import { loadCrawlGraph } from '../../../src/sim/graph/crawl-graph.js';
import { runSimulation } from '../../../src/sim/run-simulation.js';
import { simConfigSchema } from '../../../src/sim/sim-config.js';
import { LinkGraphWriter } from '../../../src/store/link-graph.js';
import { PAGE_METADATA_FILE, readPageMetadata, type PageMetadata } from '../../../src/store/page-metadata.js';
import { responseRecord, revisitRecord } from '../../../src/store/warc/warc-record.js';
import { WarcWriter } from '../../../src/store/warc/warc-writer.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-sim-crawl-content-');
const crawlDir = join(root, 'crawl');
let web: TestWeb;
const pages: PageMetadata[] = [];
/** The crawl's default parser limits. */
const PARSE = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };

before(async () => {
  web = await startTestWeb({ ...WEB_PRESETS.tiny, seed: 11, server: { addressCount: 4 }, languages: { legacyCharsetRate: 1 } });
  await new Crawl({
    seeds: { urls: [...web.seeds] },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    fetch: { maxAttempts: 1 },
    limits: { concurrency: 4 },
    store: { outDir: crawlDir },
    progressIntervalMs: 0,
  }).run();
  for await (const p of readPageMetadata(join(crawlDir, PAGE_METADATA_FILE))) pages.push(p);
});
after(async () => {
  await web?.close();
});

describe('crawl graph content from the WARC files', () => {
  it('gives each page the title and text the crawl parsed', { timeout: 120_000 }, async () => {
    const archive = Buffer.concat(
      readdirSync(join(crawlDir, 'warc'))
        .filter((f) => f.endsWith('.warc.gz'))
        .map((f) => gunzipSync(readFileSync(join(crawlDir, 'warc', f)))),
    ).toString('latin1');
    assert.ok(/\r\ncontent-encoding: gzip\r\n/i.test(archive), 'some archived responses are gzipped');
    assert.ok(/\r\ncontent-encoding: br\r\n/i.test(archive), 'some archived responses are brotli-compressed');

    const g = await loadCrawlGraph([crawlDir], { withContent: true });
    try {
      const contentOf = g.contentOf;
      assert.ok(contentOf !== null, 'the graph has content');
      const parsed = pages.filter((p) => p.textDigest !== null);
      assert.ok(parsed.length > 200, `the crawl parsed most pages (${parsed.length})`);
      // Every page not in English is in a legacy charset on this web (legacyCharsetRate 1).
      assert.ok(
        parsed.some((p) => p.lang !== null && p.lang !== 'en'),
        'some pages were in a legacy charset',
      );
      for (const p of parsed) {
        const id = g.pageIdOf(p.url);
        assert.ok(id >= 0, `${p.url} is a page of the graph`);
        const c = contentOf(id);
        assert.equal(c.title, p.title ?? '', `title of ${p.url}`);
        assert.equal(textDigest(c.text ?? ''), p.textDigest, `text of ${p.url}`);
      }
      // A page whose content the crawl had met (a mirror) is not parsed again: it reads as the page it repeats.
      const titleOfText = new Map(parsed.map((p) => [p.textDigest, p.title ?? '']));
      const copies = pages.filter((p) => p.textDigest === null && p.payloadDigest !== null);
      assert.ok(copies.length > 0, 'the crawl met mirrored pages');
      for (const p of copies) {
        const c = contentOf(g.pageIdOf(p.url));
        const digest = textDigest(c.text ?? '');
        assert.ok(titleOfText.has(digest), `${p.url} has the text of a page parsed earlier`);
        assert.equal(c.title, titleOfText.get(digest), `${p.url} has the title of that page`);
      }
      const fetched = new Set(pages.map((p) => p.url));
      const unfetched = Array.from({ length: g.pageCount }, (_, i) => i).filter(
        (i) => !fetched.has(g.urlOf(i)) && !g.urlOf(i).endsWith('/robots.txt'),
      );
      assert.ok(unfetched.length > 0, 'some link targets were not fetched as pages');
      for (const i of unfetched.slice(0, 50)) assert.deepEqual(contentOf(i), { title: '', text: '' }, `${g.urlOf(i)} has no content`);
    } finally {
      g.close();
    }
  });

  it('reads a revisit as its original, undoes stacked codings and skips what is not HTML', async () => {
    const dir = join(root, 'hand');
    const a = 'http://a.test/a.html';
    const links = new LinkGraphWriter({ dir: join(dir, 'links') });
    await links.start();
    for (const url of [a, 'http://a.test/b.html', 'http://a.test/c.txt', 'http://a.test/d.html'])
      links.addLinks(url, [{ target: a, anchorText: '', flags: 0 }]);
    await links.close();
    const warc = new WarcWriter({ dir: join(dir, 'warc'), version: 'test' });
    await warc.start();
    const html = Buffer.from('<html><head><title>Alpha page</title></head><body><p>Some <b>alpha</b> text.</p></body></html>');
    const head = (type: string, coding: string): string =>
      `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\n${coding === '' ? '' : `content-encoding: ${coding}\r\n`}\r\n`;
    const original = responseRecord({ date: 0, targetUri: a, httpHead: head('text/html', ''), body: html });
    await warc.write(original);
    await warc.write(
      revisitRecord({
        date: 1,
        targetUri: 'http://a.test/b.html',
        payloadDigest: original.payloadDigest ?? '',
        refersToTargetUri: a,
        refersToDate: 0,
        httpHead: head('text/html', ''),
      }),
    );
    await warc.write(
      responseRecord({ date: 2, targetUri: 'http://a.test/c.txt', httpHead: head('text/plain', ''), body: Buffer.from('plain words') }),
    );
    await warc.write(
      responseRecord({
        date: 3,
        targetUri: 'http://a.test/d.html',
        httpHead: head('text/html; charset=utf-8', 'gzip, br'),
        body: brotliCompressSync(gzipSync(html)),
      }),
    );
    await warc.close();
    const g = await loadCrawlGraph([dir], { withContent: true });
    try {
      const of = (url: string): unknown => g.contentOf?.(g.pageIdOf(url));
      const alpha = { title: 'Alpha page', text: analyzePage({ url: a, body: html, contentType: 'text/html' }, PARSE).visibleText };
      assert.match(alpha.text, /alpha text/);
      assert.deepEqual(of(a), alpha);
      assert.deepEqual(of('http://a.test/b.html'), alpha, 'a revisit reads as its original');
      assert.deepEqual(of('http://a.test/d.html'), alpha, 'gzip then br, undone in reverse');
      assert.deepEqual(of('http://a.test/c.txt'), { title: '', text: '' }, 'not HTML');
    } finally {
      g.close();
    }
  });

  it('is off unless asked for, and refuses a crawl without WARC files', async () => {
    const g = await loadCrawlGraph([crawlDir]);
    assert.equal(g.contentOf, null);
    g.close();
    const linksOnly = join(root, 'links-only');
    mkdirSync(linksOnly, { recursive: true });
    cpSync(join(crawlDir, 'links'), join(linksOnly, 'links'), { recursive: true });
    await assert.rejects(
      loadCrawlGraph([linksOnly], { withContent: true }),
      (err: unknown) => err instanceof ShoalError && err.code === 'GRAPH_FORMAT' && /WARC index/.test(err.message),
    );
  });

  it(
    'lets shoal simulate run a content-reading policy and a topic importance on a crawl (graph.crawlContent)',
    { timeout: 120_000 },
    async () => {
      const word = (pages.find((p) => (p.title ?? '').length > 3)?.title ?? '').toLowerCase().match(/[\p{L}\p{N}]+/u)?.[0] ?? '';
      assert.notEqual(word, '');
      const base = {
        graph: { paths: [crawlDir] },
        order: [{ policy: 'hot-queue', terms: [word] }],
        eval: { importance: 'topic', topic: word },
      } as const;
      await assert.rejects(
        runSimulation(simConfigSchema.parse(base)),
        (err: unknown) => err instanceof ConfigError && /graph\.crawlContent/.test(err.message),
      );
      const outcome = await runSimulation(
        simConfigSchema.parse({ ...base, graph: { ...base.graph, crawlContent: true }, politeness: { minDelayMs: 0 } }),
      );
      try {
        assert.equal(outcome.result.graph.hasText, true);
        assert.ok(outcome.result.evaluation.hotPages > 0, `pages on ${word}`);
        assert.ok((outcome.result.runs[0]?.visits ?? 0) > 200);
      } finally {
        outcome.graph.close();
      }
    },
  );
});
