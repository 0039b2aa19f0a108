/**
 * The HTML page of a crawl report (`shoal report CRAWL_DIR` → `report.html`): one self-contained
 * file, charts inlined as SVG (`svg-chart.ts`, `svg-bars.ts`), CSS inline, no script and no external
 * resource. Sections: the crawl and its key figures, throughput over time, outcomes and status
 * classes, fetch latency; the nodes' loads, the collaboration metrics with the overlap histogram,
 * the communication between nodes and coverage against the truth (`crawl-report-collab-html.ts`);
 * the partition-family metrics (`crawl-report-families-html.ts`); the files written. A chart with
 * nothing to draw is replaced by a sentence saying so.
 *
 * Key figures carry a `data-figure` attribute (`pages`, `bytes`, `lines`, ...) and each chart's
 * figure a `data-chart` name, so a reader's script or a test finds them without parsing prose.
 */
import { specLabel } from '../core/strings.js';
import { formatCount, formatFixed, formatRatio } from '../eval/collab-table.js';
import { collaborationSection, communicationSection, coverageSection, ms, nodesSection } from './crawl-report-collab-html.js';
import { familySections } from './crawl-report-families-html.js';
import { CRAWL_REPORT_FILES, type CrawlReport } from './crawl-report.js';
import { barsOrNote, chartFigure, dec, htmlPage, htmlTable, para, pct, type Cell, type PageSection } from './html.js';
import { histogramSvg } from './svg-bars.js';
import { lineChartSvg, type ChartSeries } from './svg-chart.js';

const int = formatCount;
const MB = 1e6;

function crawlSection(r: CrawlReport): PageSection {
  const c = r.crawl;
  const t = r.totals;
  const setup = htmlTable(
    ['setting', 'value'],
    [
      ['directory', c.dir],
      ['nodes', `${c.nodes.length}: ${c.nodes.join(', ')}`],
      ['partitioner', c.partitioner === null ? 'none (one node)' : `${specLabel(c.partitioner)}, ${c.partitionCount} partitions`],
      ['forwarded between nodes', c.forward ?? '–'],
      ['truth', c.truthDir ?? 'none (coverage and the truth-based metrics need --truth)'],
      ['first fetch started', c.startedAt ?? '–'],
      ['last fetch ended', c.endedAt ?? '–'],
    ],
    'text',
  );
  const figure = (label: string, text: string, name: string): Cell[] => [label, { text, figure: name }];
  const coverage = r.collaboration.coverage;
  const figures = htmlTable(
    ['figure', 'value'],
    [
      figure('pages downloaded (lines with a response)', int(t.pages), 'pages'),
      figure('bytes downloaded (bodies as received)', int(t.bytes), 'bytes'),
      figure('URLs logged (crawl-log lines)', int(t.lines), 'lines'),
      figure('requests', int(t.requests), 'requests'),
      figure('duration (s)', dec(t.durationMs / 1000, 1), 'duration-s'),
      figure('pages per second', dec(t.pagesPerSecond, 2), 'pages-per-s'),
      figure('MB per second', dec(t.bytesPerSecond / MB, 3), 'mb-per-s'),
      figure('hosts', int(t.hosts), 'hosts'),
      figure('fetch latency p50 / p99', `${ms(r.latency.summary.p50Ms)} / ${ms(r.latency.summary.p99Ms)}`, 'latency'),
      ...(c.nodes.length > 1 ? [figure('overlap (N − I)/N', formatRatio(r.collaboration.overlap.overlap), 'overlap')] : []),
      ...(coverage === null ? [] : [figure('coverage of the target pages', pct(coverage.coverage, 2), 'coverage')]),
    ],
    'figures',
  );
  return { id: 'crawl', title: 'Crawl', body: [setup, figures] };
}

function throughputSection(r: CrawlReport): PageSection {
  const t = r.throughput;
  if (t.buckets < 2)
    return {
      id: 'throughput',
      title: 'Throughput',
      body: [para('The crawl log spans less than two time buckets: nothing to draw.', 'note')],
    };
  const seconds = t.bucketMs / 1000;
  const x = Float64Array.from({ length: t.buckets }, (_, b) => (b + 0.5) * seconds);
  const series = (pick: (n: (typeof t.nodes)[number]) => readonly number[], scale: number): ChartSeries[] => {
    const perNode = t.nodes.map((n) => ({ name: n.node, x, y: Float64Array.from(pick(n), (v) => v / seconds / scale) }));
    if (perNode.length < 2) return perNode;
    const total = Float64Array.from({ length: t.buckets }, (_, b) => perNode.reduce((s, n) => s + (n.y[b] as number), 0));
    return [{ name: 'all nodes', x, y: total }, ...perNode];
  };
  const xLabel = 'time since the first fetch started (s)';
  const bucket = `${formatFixed(seconds, seconds < 1 ? 1 : 0)} s`;
  return {
    id: 'throughput',
    title: 'Throughput',
    body: [
      chartFigure(
        'throughput-pages',
        lineChartSvg({ title: 'Pages per second', xLabel, yLabel: 'pages/s', series: series((n) => n.pages, 1), idPrefix: 'tp-pages' }),
        `Pages (crawl-log lines with a response) per ${bucket} bucket by when their fetch ended, over the bucket's width; drawn at the bucket's middle.`,
      ),
      chartFigure(
        'throughput-bytes',
        lineChartSvg({ title: 'Megabytes per second', xLabel, yLabel: 'MB/s', series: series((n) => n.bytes, MB), idPrefix: 'tp-bytes' }),
        `Body bytes as received (10⁶ bytes = 1 MB) per ${bucket} bucket, over the bucket's width.`,
      ),
    ],
  };
}

function outcomesSection(r: CrawlReport): PageSection {
  const total = r.totals.lines;
  /** A bar chart of line counts per label, and the table of counts and shares beside it. */
  const counts = (name: string, title: string, what: string, list: CrawlReport['outcomes'], caption: string): string[] => [
    barsOrNote(
      name,
      caption,
      {
        title,
        xLabel: what,
        yLabel: 'lines',
        categories: list.map((o) => o.label),
        series: [{ name: 'lines', values: list.map((o) => o.count) }],
      },
      name,
    ),
    htmlTable(
      [what, 'lines', 'share'],
      list.map((o): Cell[] => [o.label, int(o.count), pct(total > 0 ? o.count / total : null)]),
    ),
  ];
  return {
    id: 'outcomes',
    title: 'Outcomes and HTTP status classes',
    body: [
      ...counts(
        'outcomes',
        'Outcomes',
        'outcome',
        r.outcomes,
        'Crawl-log lines by outcome: each URL tried, once per attempt, counted at the node that fetched it.',
      ),
      ...counts(
        'status-classes',
        'HTTP status classes',
        'status class',
        r.statusClasses,
        'Crawl-log lines by HTTP status class; none: no response (no request made, or it failed before a status came).',
      ),
    ],
  };
}

function latencySection(r: CrawlReport): PageSection {
  const s = r.latency.summary;
  const h = r.latency.histogram;
  const row = (name: string, l: typeof s): Cell[] => [
    name,
    int(l.count),
    ms(l.meanMs),
    ms(l.p50Ms),
    ms(l.p90Ms),
    ms(l.p95Ms),
    ms(l.p99Ms),
    ms(l.maxMs),
  ];
  const chart =
    s.count === 0
      ? para('No request was made: no latency to show.', 'note')
      : chartFigure(
          'latency',
          histogramSvg({
            title: 'Fetch latency',
            xLabel: 'duration of a fetch (ms)',
            yLabel: 'requests',
            edges: h.edgesMs,
            counts: h.counts,
            overflow: h.overflow,
            markers: [
              { label: 'p50', at: s.p50Ms },
              { label: 'p90', at: s.p90Ms },
              { label: 'p99', at: s.p99Ms },
            ],
            idPrefix: 'latency',
          }),
          'Duration of every request, from its start to its outcome (the crawl log’s durationMs), in equal bins up to past p99; ' +
            'the hatched bar holds the slower ones. Percentiles are nearest-rank.',
        );
  return {
    id: 'latency',
    title: 'Fetch latency',
    body: [
      chart,
      htmlTable(
        ['node', 'requests', 'mean', 'p50', 'p90', 'p95', 'p99', 'max'],
        [...(r.nodes.length > 1 ? r.nodes.map((n) => row(n.node, n.latency)) : []), row('all nodes', s)],
      ),
    ],
  };
}

function filesSection(r: CrawlReport): PageSection {
  const files = [
    [CRAWL_REPORT_FILES.html, 'this page'],
    [CRAWL_REPORT_FILES.json, `every figure of this page (format ${r.format})`],
    [CRAWL_REPORT_FILES.throughput, 'pages and bytes per time bucket and node'],
    [CRAWL_REPORT_FILES.nodes, 'one row per node: loads, latency, exchange'],
    [CRAWL_REPORT_FILES.outcomes, 'lines per outcome and per status class'],
    [CRAWL_REPORT_FILES.latency, 'the latency histogram'],
    ...(r.discoveries === null ? [] : [[CRAWL_REPORT_FILES.pairs, 'who found the URLs each node tried']]),
    ...(r.coverage === null ? [] : [[CRAWL_REPORT_FILES.coverage, 'target pages downloaded per time bucket']]),
  ];
  return { id: 'files', title: 'Files', body: [htmlTable(['file', 'holds'], files, 'text')] };
}

/** The report page. */
export function crawlReportHtml(r: CrawlReport): string {
  const sections = [
    crawlSection(r),
    throughputSection(r),
    outcomesSection(r),
    latencySection(r),
    nodesSection(r),
    collaborationSection(r),
    communicationSection(r),
    coverageSection(r),
    ...familySections(r),
    filesSection(r),
  ].filter((s): s is PageSection => s !== null);
  const kind = r.crawl.nodes.length > 1 ? `${r.crawl.nodes.length} nodes` : 'one node';
  return htmlPage(
    `shoal crawl report: ${r.crawl.dir}`,
    [para(`${kind}; written by shoal report from the crawl directory’s files.`)],
    sections,
  );
}
