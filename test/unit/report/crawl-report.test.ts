/**
 * The crawl report (src/report/crawl-report.ts and its HTML and CSV), built from a small log of two
 * nodes written out here: the totals and per-node rows agree with the log and with the
 * collaboration metrics, report.json writes undefined figures as null, the CSV tables have one row
 * per observation and quote names, and the page stands alone (no script, no external reference),
 * shows the key figures under their names, draws every chart it shows, replaces an empty chart by a
 * sentence, and has the family sections exactly when their metrics are there.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';
import { collaborationMetrics, type NodeCrawl } from '../../../src/eval/collab-metrics.js';
import type { CommunityEval } from '../../../src/eval/community-metrics.js';
import type { GeoMetrics } from '../../../src/eval/geo-metrics.js';
import type { TopicEval } from '../../../src/eval/topic-metrics.js';
import { crawlReportCsvFiles, nodesCsv, throughputCsv } from '../../../src/report/crawl-report-csv.js';
import { crawlReportHtml } from '../../../src/report/crawl-report-html.js';
import {
  buildCrawlReport,
  CRAWL_REPORT_FORMAT,
  crawlReportJson,
  type CrawlReportInput,
  type ExchangeFigures,
} from '../../../src/report/crawl-report.js';
import type { ReportFetch } from '../../../src/report/crawl-stats.js';
import { barsOrNote } from '../../../src/report/html.js';
import { byClass, parseSvg } from '../../helpers/xml.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const NODES = ['n0', 'n,1'];

function line(node: number, atMs: number, path: string, more: Partial<ReportFetch> = {}): ReportFetch {
  return {
    node,
    endMs: T0 + atMs,
    url: `http://h${node}.test/${path}`,
    discoveredFrom: null,
    status: 200,
    outcome: 'ok',
    bytes: 1000,
    durationMs: 20,
    hasRequest: true,
    ...more,
  };
}

// n0 fetches the seed and two pages found on it over 3 s; n,1 fetches two pages found on n0's seed,
// fails one request and is denied one URL by robots.txt.
const FETCHES: ReportFetch[] = [
  line(0, 20, 'seed'),
  line(0, 1000, 'a', { discoveredFrom: 'http://h0.test/seed', bytes: 3000 }),
  line(0, 3000, 'b', { discoveredFrom: 'http://h0.test/seed', durationMs: 400 }),
  line(1, 1500, 'c', { discoveredFrom: 'http://h0.test/seed' }),
  line(1, 2500, 'd', { discoveredFrom: 'http://h0.test/seed', status: 301, outcome: 'redirect', bytes: 0 }),
  line(1, 2600, 'e', { discoveredFrom: 'http://h1.test/c', status: 0, outcome: 'timeout', bytes: 0, durationMs: 2000 }),
  line(1, 2700, 'f', {
    discoveredFrom: 'http://h1.test/c',
    status: 0,
    outcome: 'robots-denied',
    bytes: 0,
    durationMs: 0,
    hasRequest: false,
  }),
];

const exchange = (urlsSent: number, urlsReceived: number): ExchangeFigures => ({
  urlsSent,
  urlsReceived,
  pagesSent: 0,
  pagesReceived: 0,
  pageBytesSent: 0,
  pageBytesReceived: 0,
  bytesSent: 100 * urlsSent,
  bytesReceived: 100 * urlsReceived,
  messagesSent: 1,
  messagesReceived: 1,
});

function input(overrides: Partial<CrawlReportInput> = {}): CrawlReportInput {
  const fetches = overrides.fetches ?? FETCHES;
  const nodes = overrides.nodes ?? NODES;
  const ex = overrides.exchange ?? [exchange(2, 0), exchange(0, 2)];
  const crawls: NodeCrawl[] = nodes.map((node, k) => ({
    node,
    downloads: fetches
      .filter((f) => f.node === k && f.status > 0)
      .map((f) => ({ url: f.url, host: new URL(f.url).hostname, bytes: f.bytes })),
    exchange: ex[k] as ExchangeFigures,
  }));
  const target = ['http://h0.test/seed', 'http://h0.test/a', 'http://h1.test/c', 'http://h1.test/missing'];
  return {
    dir: '/crawls/one & two',
    truthDir: '/truth',
    partitioner: nodes.length > 1 ? { id: 'host-hash', params: {} } : null,
    partitionCount: nodes.length,
    forward: nodes.length > 1 ? 'urls' : null,
    nodes,
    fetches,
    exchange: ex,
    metrics: collaborationMetrics({ nodes: crawls, target }),
    target: { keyOf: (url) => url, pages: new Set(target) },
    topic: null,
    geo: null,
    isGeoWithoutTruth: false,
    community: null,
    ...overrides,
  };
}

const TOPIC: TopicEval = {
  categorised: 4,
  uncategorised: 1,
  perCategory: { SPORTS: 3, ARTS: 1 },
  locality: { pairs: 4, samePairs: 3, locality: 0.75, trueLocality: 0.5, skipped: 0 },
  accuracy: null,
  taus: [
    { group: 'n0', pages: 3, links: 2, tau: 0.5 },
    { group: 'n,1', pages: 1, links: 0, tau: null },
  ],
  meanTau: 0.5,
  hashTaus: [
    { group: 'hash-0', pages: 2, links: 1, tau: -0.25 },
    { group: 'hash-1', pages: 2, links: 1, tau: 1 },
  ],
  meanHashTau: 0.375,
};

const GEO: GeoMetrics = {
  coverage: { downloads: 4, geoDownloads: 2, coverage: 0.5, uniquePages: 4, uniqueGeoPages: 2, uniqueCoverage: 0.5 },
  focus: {
    nodes: [
      { node: 'n0', cities: 2, pages: 3, geoPages: 2, ownPages: 1, focus: 0.5 },
      { node: 'n,1', cities: 0, pages: 1, geoPages: 0, ownPages: 0, focus: null },
    ],
    mean: 0.5,
    pooled: 0.5,
  },
  uniqueEntities: { entities: 3, unique: 2, ratio: 2 / 3 },
  centrality: { k: 2, m: 10, pages: 4, geoPages: 2, mean: 0.6 },
  locality: {
    linked: { pairs: 3, counted: 2, same: 1, share: 0.5 },
    unlinked: { pairs: 3, counted: 3, same: 0, share: 0, isExact: true },
  },
};

const COMMUNITY: CommunityEval = {
  nodes: [
    { node: 'n0', size: 3, cohesion: 0.4, majority: 1, precision: 1, recall: 0.3 },
    { node: 'n,1', size: 1, cohesion: 0.1, majority: 2, precision: 1, recall: 0.1 },
  ],
  mean: { cohesion: 0.25, precision: 1, recall: 0.2, distinctMajorities: 2 },
  overlap: 0,
};

/** The page's elements, and its charts' SVGs checked well-formed. */
function readPage(html: string): { doc: ReturnType<typeof parseDocument>; charts: Map<string, Element> } {
  const charts = new Map<string, Element>();
  for (const m of html.matchAll(/<figure class="chart" data-chart="([^"]+)">\n(<svg[\s\S]*?<\/svg>)/g))
    charts.set(m[1] as string, parseSvg(m[2] as string));
  return { doc: parseDocument(html), charts };
}

const figureText = (doc: ReturnType<typeof parseDocument>, name: string): string | undefined => {
  const e = DomUtils.findOne((el) => el.attribs['data-figure'] === name, doc.children);
  return e === null ? undefined : DomUtils.textContent(e);
};

/** Whether a chart drew something: a bar with a height, or a line with a segment. */
function hasMarks(svg: Element): boolean {
  const bars = byClass(svg, 'bar').filter((b) => Number(b.attribs['height']) > 0 && Number(b.attribs['width']) > 0);
  const lines = DomUtils.findAll((e) => e.name === 'path' && /M[^M]*L/.test(e.attribs['d'] ?? ''), [svg]);
  return bars.length + lines.length > 0;
}

describe('buildCrawlReport', () => {
  const report = buildCrawlReport(input());

  it('totals the log as the collaboration metrics count it', () => {
    const t = report.totals;
    assert.deepEqual([t.lines, t.requests, t.pages, t.bytes], [7, 6, 5, 6000]);
    assert.equal(t.pages, report.collaboration.communication.downloads);
    assert.equal(t.durationMs, 3000, 'from the first fetch’s start (0) to the last end');
    assert.equal(t.pagesPerSecond, 5 / 3);
    assert.equal(report.crawl.startedAt, '2026-01-01T00:00:00.000Z');
    assert.equal(report.throughput.bucketMs, 100);
  });

  it('gives each node its lines, pages, failures, latency and the URLs found by the other node', () => {
    const [n0, n1] = report.nodes as [(typeof report.nodes)[number], (typeof report.nodes)[number]];
    assert.deepEqual([n0.lines, n0.requests, n0.pages, n0.bytes, n0.failures], [3, 3, 3, 5000, 0]);
    assert.deepEqual([n1.lines, n1.requests, n1.pages, n1.bytes, n1.failures], [4, 3, 2, 1000, 1]);
    assert.equal(n0.latency.p50Ms, 20);
    assert.equal(n0.latency.maxMs, 400);
    assert.deepEqual([n0.fromOtherNodes, n1.fromOtherNodes], [0, 2]);
    assert.deepEqual(report.discoveries?.counts, [
      [2, 2],
      [0, 2],
    ]);
    assert.equal(n1.exchange.urlsReceived, 2);
  });

  it('counts coverage over time up to what the coverage metric says', () => {
    assert.equal(report.coverage?.targetPages, 4);
    assert.equal(report.coverage?.covered.at(-1), report.collaboration.coverage?.coveredPages);
    assert.equal(report.coverage?.covered.at(-1), 3);
  });

  it('writes report.json with its format, and undefined figures as null', () => {
    const single = buildCrawlReport(input({ nodes: ['solo'], fetches: [], exchange: [exchange(0, 0)] }));
    const parsed = JSON.parse(crawlReportJson(single)) as {
      format: string;
      latency: { summary: { meanMs: number | null } };
      discoveries: unknown;
      totals: { pagesPerSecond: number | null };
    };
    assert.equal(parsed.format, CRAWL_REPORT_FORMAT);
    assert.equal(parsed.latency.summary.meanMs, null);
    assert.equal(parsed.totals.pagesPerSecond, null);
    assert.equal(parsed.discoveries, null, 'no discoveries for one node');
  });
});

describe('the CSV tables', () => {
  const report = buildCrawlReport(input());

  it('have one throughput row per bucket and node, summing to the pages', () => {
    const rows = throughputCsv(report).trimEnd().split('\n');
    assert.equal(rows[0], 'elapsed_ms,node,pages,bytes,pages_per_s,bytes_per_s');
    assert.equal(rows.length - 1, report.throughput.buckets * 2);
    const pages = rows.slice(1).reduce((s, r) => s + Number(/^\d+,(?:"[^"]*"|[^,]*),(\d+),/.exec(r)?.[1] ?? NaN), 0);
    assert.equal(pages, 5);
    assert.ok(rows.includes('1000,n0,1,3000,10,30000'), 'page a in the bucket at 1 s: 1 page over 0.1 s');
    assert.ok(
      rows.some((r) => r.startsWith('0,"n,1",')),
      'a name with a comma is quoted',
    );
  });

  it('have a row per node, and the pairs and coverage tables when they apply', () => {
    const nodes = nodesCsv(report).trimEnd().split('\n');
    assert.equal(nodes.length, 3);
    assert.match(nodes[2] as string, /^"n,1",4,3,2,1000,1,/);
    const files = crawlReportCsvFiles(report);
    assert.deepEqual([...files.keys()], ['throughput.csv', 'nodes.csv', 'outcomes.csv', 'latency.csv', 'pairs.csv', 'coverage.csv']);
    assert.ok(files.get('pairs.csv')?.includes('n0,"n,1",2\n'));
    assert.ok(files.get('outcomes.csv')?.includes('outcome,robots-denied,1\n'));
    assert.match(files.get('latency.csv') ?? '', /^from_ms,to_ms,requests\n0,/);
    const single = crawlReportCsvFiles(
      buildCrawlReport(input({ nodes: ['solo'], fetches: [line(0, 5, 'x')], exchange: [exchange(0, 0)] })),
    );
    assert.ok(!single.has('pairs.csv'));
  });
});

describe('crawlReportHtml', () => {
  it('stands alone, shows the key figures by name, and draws every chart it shows', () => {
    const html = crawlReportHtml(buildCrawlReport(input()));
    assert.doesNotMatch(html, /<script|<link|<img|<iframe|\bsrc=|url\((?!#)/i, 'no script and no external resource');
    assert.deepEqual(
      [...new Set(html.match(/https?:\/\/[^\s"<)]+/g) ?? [])],
      ['http://www.w3.org/2000/svg'],
      'the only URL is the SVG namespace',
    );
    const { doc, charts } = readPage(html);
    assert.equal(figureText(doc, 'pages'), '5');
    assert.equal(figureText(doc, 'bytes'), '6,000');
    assert.equal(figureText(doc, 'lines'), '7');
    assert.equal(figureText(doc, 'pages:n,1'), '2');
    assert.equal(figureText(doc, 'coverage'), '75.00 %');
    assert.deepEqual(
      [...charts.keys()],
      [
        'throughput-pages',
        'throughput-bytes',
        'outcomes',
        'status-classes',
        'latency',
        'load-pages',
        'load-bytes',
        'overlap-histogram',
        'exchange-urls',
        'exchange-bytes',
        'coverage',
      ],
    );
    for (const [name, svg] of charts) assert.ok(hasMarks(svg), `chart ${name} drew something`);
    assert.ok(html.includes('<title>shoal crawl report: /crawls/one &amp; two</title>'));
  });

  it('has the family sections exactly when their metrics are in the report', () => {
    const without = crawlReportHtml(buildCrawlReport(input()));
    assert.doesNotMatch(without, /id="(topic|geo|community)"/);
    const html = crawlReportHtml(buildCrawlReport(input({ topic: TOPIC, geo: GEO, community: COMMUNITY })));
    const { charts } = readPage(html);
    for (const name of ['locality', 'topic-categories', 'topic-tau', 'geo-focus', 'community']) {
      const svg = charts.get(name);
      assert.ok(svg !== undefined && hasMarks(svg), `chart ${name}`);
    }
    assert.equal(byClass(charts.get('topic-tau') as Element, 'bar').length, 3, 'no bar for an undefined τ');
    assert.deepEqual(
      byClass(charts.get('locality') as Element, 'bar').map((b) => b.attribs['data-value']),
      ['0.75', '0.5', '0.5', '0'],
      'topic locality by the crawl and by the truth, δ and δ̃; no p_l without links',
    );
    const geoless = crawlReportHtml(buildCrawlReport(input({ isGeoWithoutTruth: true })));
    assert.match(geoless, /id="geo"[\s\S]*need the test web’s truth/);
  });

  it('leaves out the charts of one node’s crawl that compare nodes', () => {
    const { charts } = readPage(
      crawlReportHtml(
        buildCrawlReport(
          input({
            nodes: ['solo'],
            fetches: FETCHES.map((f) => ({ ...f, node: 0 })),
            exchange: [exchange(0, 0)],
            partitioner: null,
          }),
        ),
      ),
    );
    for (const name of ['load-pages', 'overlap-histogram', 'exchange-urls']) assert.ok(!charts.has(name), name);
    assert.ok(charts.has('throughput-pages') && charts.has('latency'));
  });

  it('says so where a chart would draw nothing', () => {
    const note = barsOrNote(
      'x',
      'caption',
      { title: 'Pages sent', xLabel: 'node', yLabel: 'pages', categories: ['a'], series: [{ name: 's', values: [0] }] },
      'x',
    );
    assert.doesNotMatch(note, /<svg/);
    assert.match(note, /Pages sent: nothing to draw/);
  });
});
