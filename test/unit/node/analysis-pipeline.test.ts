/**
 * The fetch slots and the pages in analysis, on a manual clock. One host serves six pages (seeds
 * a.test/1 … a.test/6) at 100 ms a request, with no politeness gap and four connections; the node
 * has 2 fetch slots, and its page analyzer holds every page until the test lets it go.
 *
 * A slot is free once its response is in, so while no page is analysed yet the slots go on
 * fetching while fewer than 2 pages (the default `maxAnalyses`: one per slot) are in analysis: the
 * slots fetch /1 and /2 together; the first to end finds room (one page in analysis) and fetches
 * /3, the other finds none, and /3 makes three. Once fewer than two are left, both slots fetch
 * again; the crawl ends once every page is analysed and written, not when the last fetch ends.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { crawlConfigSchema } from '../../../src/config/crawl-config.js';
import { analyzerOf } from '../../../src/node/build-node.js';
import { silentLog } from '../../../src/obs/log.js';
import type { CrawlLogRecord } from '../../../src/store/records.js';
import { MemorySeenSet } from '../../../src/seen/memory-seen-set.js';
import type { PageAnalyzer } from '../../../src/node/analysis/page-analyzer.js';
import type { PageAnalysis, PageAnalysisInput } from '../../../src/parse/page-analysis.js';
import { FakeFetcher, FakeResolver, type Reply } from './fake-web.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-pipeline-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

const SEEDS = [1, 2, 3, 4, 5, 6].map((n) => `http://a.test/${n}`);

/** Each page its own text: an exact duplicate would be archived as a revisit, without analysis. */
function route(url: string): Reply {
  if (!SEEDS.includes(url)) return { status: 404 };
  return { status: 200, headers: { 'Content-Type': 'text/html' }, body: `<html><body><p>page ${url}</p></body></html>` };
}

/** An analyzer that holds each page until {@link GatedAnalyzer.release}, or fails it with `failure`. */
class GatedAnalyzer implements PageAnalyzer {
  readonly workers = 0;
  private readonly inner = analyzerOf(crawlConfigSchema.parse({ parse: { workers: 0 } }));
  private readonly held: (() => void)[] = [];
  failure: Error | null = null;

  get waiting(): number {
    return this.held.length;
  }

  async analyze(input: PageAnalysisInput): Promise<PageAnalysis> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failure !== null) throw this.failure;
    return this.inner.analyze(input);
  }

  parseSitemap: PageAnalyzer['parseSitemap'] = (input) => this.inner.parseSitemap(input);

  /** Lets the oldest held page go. */
  release(): void {
    const next = this.held.shift();
    assert.ok(next !== undefined, 'no page is held');
    next();
  }

  async close(): Promise<void> {
    await this.inner.close();
  }
}

interface Setup {
  readonly clock: ManualClock;
  readonly fetcher: FakeFetcher;
  readonly analyzer: GatedAnalyzer;
  readonly run: Promise<CrawlSummary>;
  readonly records: CrawlLogRecord[];
}

function start(): Setup {
  const clock = new ManualClock();
  const fetcher = new FakeFetcher(clock, route, 100);
  const analyzer = new GatedAnalyzer();
  const records: CrawlLogRecord[] = [];
  const crawl = new Crawl(
    {
      seeds: { urls: SEEDS },
      store: { outDir: join(root, `d${++dirs}`) },
      politeness: { minDelayMs: 0, delayFactor: 0, maxConnectionsPerHost: 4, maxConnectionsPerIp: 4 },
      limits: { concurrency: 2 },
      frontier: { kind: 'memory' },
      progressIntervalMs: 0,
      parse: { workers: 0 },
    },
    {
      deps: { clock, log: silentLog, events: { fetch: (r) => records.push(r), progress: () => {} } },
      components: {
        fetcher,
        analyzer,
        resolver: new FakeResolver({ 'a.test': '10.0.0.1' }),
        seen: new MemorySeenSet(),
        warc: null,
        sinks: {},
      },
    },
  );
  const run = crawl.run();
  run.catch(() => {});
  return { clock, fetcher, analyzer, run, records };
}

/** Runs the clock until nothing more happens without the test (no timer is due). */
async function settle(clock: ManualClock): Promise<void> {
  for (;;) {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const next = clock.nextTimerMs();
    if (next === null) return;
    await clock.advanceTo(next);
  }
}

const pagesAsked = (fetcher: FakeFetcher): string[] => fetcher.received.map((r) => r.url).filter((url) => !url.endsWith('/robots.txt'));

describe('pages in analysis and the fetch slots', () => {
  test('a slot fetches on while pages are analysed, up to one page in analysis per slot', async () => {
    const { clock, fetcher, analyzer, run, records } = start();
    await settle(clock);
    assert.deepEqual(pagesAsked(fetcher).sort(), SEEDS.slice(0, 3), 'two slots fetched three pages while none was analysed');
    assert.equal(analyzer.waiting, 3);
    assert.equal(records.length, 0, 'no crawl-log record before its page is analysed');

    analyzer.release();
    await settle(clock);
    assert.equal(pagesAsked(fetcher).length, 3, 'still two pages in analysis: no room');
    assert.equal(records.length, 1);
    analyzer.release();
    await settle(clock);
    assert.equal(pagesAsked(fetcher).length, 5, 'one page in analysis: both slots fetch again');
    assert.equal(analyzer.waiting, 3, 'never more than maxAnalyses + slots - 1 pages wait');
    assert.equal(records.length, 2);

    while (analyzer.waiting > 0) {
      analyzer.release();
      await settle(clock);
    }
    const summary = await run;
    assert.deepEqual(pagesAsked(fetcher).sort(), SEEDS);
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.outcomes, { ok: 6 });
    assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    assert.deepEqual(records.map((r) => r.url).sort(), SEEDS);
  });

  test('an analysis that fails with a bug stops the fetches and ends the run with its error', async () => {
    const { clock, fetcher, analyzer, run, records } = start();
    await settle(clock);
    analyzer.failure = new Error('bug in analysis');
    analyzer.release();
    await settle(clock);
    assert.equal(pagesAsked(fetcher).length, 3, 'the room the failed page left was not used for a fetch');
    while (analyzer.waiting > 0) {
      analyzer.release();
      await settle(clock);
    }
    await assert.rejects(run, /bug in analysis/);
    assert.equal(pagesAsked(fetcher).length, 3);
    assert.equal(records.length, 0);
  });
});
