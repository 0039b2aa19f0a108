/**
 * A decoded body the crawl gives up (`PageAnalysisInput.isBodyGiven`): a page fetched with a
 * content coding is decoded into memory of its own, which nothing reads once the page is analysed
 * (the WARC record holds the body as received), so the parse worker takes that memory rather than a
 * copy; and once a page is written, its bodies' memory is given back at once
 * (`core/release-memory.ts`). A site of large pages, half sent gzip-compressed and half as they
 * are, crawled with the worker and in the crawl thread (which copies nothing), writes the same
 * pages, links and records, each record holding the body exactly as the server sent it; the worker
 * got the decoded bodies, and only those; the bodies as received were released.
 *
 *     /          -> /gz-0 .. /gz-3, /plain-0 .. /plain-3
 *     /gz-K      gzip, about 300 KB decoded
 *     /plain-K   identity, about 300 KB
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { closeSync, openSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import { payloadDigest } from '../../../src/dedup/content-digest.js';
import { WorkerPageAnalyzer, type PageAnalyzer } from '../../../src/node/analysis/page-analyzer.js';
import { analyzerOf } from '../../../src/node/build-node.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import type { PageAnalysisInput } from '../../../src/parse/page-analysis.js';
import { readRecordAt } from '../../../src/store/warc/warc-reader.js';
import { capturesOf, indexEntriesOf, linksOf, pagesOf } from '../../helpers/crawl-outputs.js';
import { scratchDirs } from '../../helpers/scratch.js';

const CHILDREN = [0, 1, 2, 3].flatMap((k) => [`/gz-${k}`, `/plain-${k}`]);

/** A page of about 300 KB whose words differ from page to page, linking to `links`. */
function pageOf(path: string, links: readonly string[]): string {
  let seed = [...path].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7);
  const words = 'harbour pier tide ferry lighthouse chart anchor rope sail keel mast buoy'.split(' ');
  const paragraphs: string[] = [];
  for (let size = 0; size < 300_000;) {
    const p = `<p>${Array.from({ length: 40 }, () => {
      seed = (seed * 1103515245 + 12345) | 0;
      return words[(seed >>> 16) % words.length];
    }).join(' ')}.</p>\n`;
    paragraphs.push(p);
    size += p.length;
  }
  const nav = links.map((l) => `<a href="${l}">the ${l} page</a>`).join(' ');
  return `<!doctype html><title>Page ${path}</title><nav>${nav}</nav>${paragraphs.join('')}`;
}

/** Records what the crawl hands the worker, and whether each body's memory left with it. */
class WatchedAnalyzer implements PageAnalyzer {
  readonly workers: number;
  /** Per analysed page: its URL, whether its body was given, its length after the analysis (0: moved), and the body. */
  readonly seen: { url: string; isBodyGiven: boolean; bytesAfter: number; body: Uint8Array }[] = [];

  constructor(private readonly inner: WorkerPageAnalyzer) {
    this.workers = inner.workers;
  }

  async analyze(input: PageAnalysisInput): ReturnType<PageAnalyzer['analyze']> {
    const analysis = await this.inner.analyze(input);
    this.seen.push({ url: input.url, isBodyGiven: input.isBodyGiven === true, bytesAfter: input.body.byteLength, body: input.body });
    return analysis;
  }

  parseSitemap(...args: Parameters<PageAnalyzer['parseSitemap']>): ReturnType<PageAnalyzer['parseSitemap']> {
    return this.inner.parseSitemap(...args);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const { root } = scratchDirs('shoal-given-body-');
let server: Server;
let base = '';
let withWorker: { dir: string; summary: CrawlSummary };
let inThread: { dir: string; summary: CrawlSummary };
let watched: WatchedAnalyzer;

async function crawl(name: string, workers: number, analyzer?: PageAnalyzer): Promise<{ dir: string; summary: CrawlSummary }> {
  const dir = join(root, name);
  const summary = await new Crawl(
    {
      seeds: { urls: [`${base}/`] },
      store: { outDir: dir },
      network: { allowLoopback: true },
      politeness: { minDelayMs: 0, delayFactor: 0, maxConnectionsPerHost: 4, maxConnectionsPerIp: 4 },
      limits: { concurrency: 4 },
      parse: { workers },
      progressIntervalMs: 0,
    },
    analyzer === undefined ? {} : { components: { analyzer } },
  ).run(AbortSignal.timeout(60_000));
  return { dir, summary };
}

before(async () => {
  const bodies = new Map<string, string>([['/', pageOf('/', CHILDREN)]]);
  for (const c of CHILDREN) bodies.set(c, pageOf(c, []));
  server = createServer((req, res) => {
    const body = bodies.get(req.url ?? '');
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    const isGzip = req.url !== '/' && req.url?.startsWith('/gz-') === true;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(isGzip ? { 'content-encoding': 'gzip' } : {}) });
    res.end(isGzip ? gzipSync(body) : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const inner = analyzerOf(crawlConfigSchema.parse({ parse: { workers: 1 } }));
  assert.ok(inner instanceof WorkerPageAnalyzer);
  watched = new WatchedAnalyzer(inner);
  try {
    withWorker = await crawl('worker', 1, watched);
  } finally {
    await watched.close();
  }
  inThread = await crawl('in-thread', 0);
});

after(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
});

describe('a decoded body given to the parse worker', () => {
  test('both crawls fetch the whole site', () => {
    for (const { summary } of [withWorker, inThread]) {
      assert.equal(summary.stopReason, 'exhausted');
      assert.equal(summary.pages, 1 + CHILDREN.length);
    }
  });

  test('the worker got the decoded bodies of the gzip pages, and copies of the others', () => {
    const seen = [...watched.seen].sort((a, b) => a.url.localeCompare(b.url));
    assert.equal(seen.length, 1 + CHILDREN.length);
    for (const s of seen) {
      const isGzip = s.url.includes('/gz-');
      assert.equal(s.isBodyGiven, isGzip, `${s.url}: given only when decoded`);
      if (isGzip) assert.equal(s.bytesAfter, 0, `${s.url}: its memory moved`);
      else assert.ok(s.bytesAfter > 300_000, `${s.url}: the body as received stays for its record`);
    }
  });

  test('once a page is written, its body as received is given back', () => {
    const plain = watched.seen.filter((s) => !s.url.includes('/gz-'));
    assert.equal(plain.length, 5);
    for (const s of plain) assert.equal(s.body.byteLength, 0, `${s.url}: released after the crawl wrote it`);
  });

  test('pages, links and records are the same as with the analysis in the crawl thread', async () => {
    assert.deepEqual(pagesOf(withWorker.dir), pagesOf(inThread.dir));
    assert.deepEqual(await linksOf(withWorker.dir), await linksOf(inThread.dir));
    const captures = capturesOf(withWorker.dir);
    assert.equal(captures.length, 1 + CHILDREN.length);
    assert.deepEqual(captures, capturesOf(inThread.dir));
  });

  test('the records hold the gzip bodies as received', () => {
    // The server's gzip bytes are gzipSync's of the page: the payload digest must be theirs.
    const gz = pagesOf(withWorker.dir).filter((l) => l.includes('/gz-'));
    assert.equal(gz.length, 4);
    for (const line of gz) {
      const [url, , , , , digest] = JSON.parse(line) as string[];
      const path = new URL(url as string).pathname;
      assert.equal(digest, payloadDigest(gzipSync(pageOf(path, []))), `${path}: the digest of the bytes sent`);
      assert.notEqual(digest, payloadDigest(Buffer.from(pageOf(path, []))), `${path}: not of the decoded page`);
    }
    assert.ok(capturesOf(withWorker.dir).some((c) => c.includes('/gz-0 200 ')));
  });

  test('each response record holds the body exactly as the server sent it', () => {
    for (const dir of [withWorker.dir, inThread.dir]) {
      const entries = indexEntriesOf(dir);
      assert.equal(entries.length, 1 + CHILDREN.length);
      for (const j of entries) {
        const fd = openSync(join(dir, 'warc', j.filename as string), 'r');
        try {
          const record = readRecordAt(fd, Number(j.offset), Number(j.length));
          assert.ok(record !== null, `${j.url}: a record`);
          const block = record.block;
          const payload = block.subarray(block.indexOf('\r\n\r\n') + 4);
          const path = new URL(j.url as string).pathname;
          const page = Buffer.from(path === '/' ? pageOf('/', CHILDREN) : pageOf(path, []));
          assert.ok(payload.equals(path.startsWith('/gz-') ? gzipSync(page) : page), `${dir}: ${path}`);
        } finally {
          closeSync(fd);
        }
      }
    }
  });
});
