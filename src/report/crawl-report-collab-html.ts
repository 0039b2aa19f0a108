/**
 * The sections of the crawl report page about the nodes together (`crawl-report-html.ts` has the
 * page): each node's loads, the collaboration metrics of SPEC §5 with the overlap histogram, the
 * communication between nodes (exchange totals, and who found the URLs each node tried), and
 * coverage against the truth over time.
 */
import { formatCount, formatFixed, formatRatio } from '../eval/collab-table.js';
import type { CrawlReport } from './crawl-report.js';
import { barsOrNote, chartFigure, htmlTable, para, pct, type Cell, type PageSection } from './html.js';
import { lineChartSvg } from './svg-chart.js';

const int = formatCount;
const MB = 1e6;
/** A duration in ms, two decimals under 10 ms. */
export const ms = (v: number): string => (Number.isFinite(v) ? `${formatFixed(v, v < 10 ? 2 : 1)} ms` : '–');

/** Each node's loads: pages and bytes charts (several nodes), and a table. */
export function nodesSection(r: CrawlReport): PageSection {
  const names = r.nodes.map((n) => n.node);
  const charts =
    r.nodes.length < 2
      ? []
      : [
          barsOrNote(
            'load-pages',
            'Pages each node downloaded itself (lines with a response).',
            {
              title: 'Pages per node',
              xLabel: 'node',
              yLabel: 'pages',
              categories: names,
              series: [{ name: 'pages', values: r.nodes.map((n) => n.pages) }],
            },
            'load-pages',
          ),
          barsOrNote(
            'load-bytes',
            'Body bytes each node downloaded, in MB (10⁶ bytes).',
            {
              title: 'Megabytes per node',
              xLabel: 'node',
              yLabel: 'MB',
              categories: names,
              series: [{ name: 'MB', values: r.nodes.map((n) => n.bytes / MB) }],
            },
            'load-bytes',
          ),
        ];
  const rows = r.nodes.map((n): Cell[] => [
    n.node,
    int(n.lines),
    int(n.requests),
    { text: int(n.pages), figure: `pages:${n.node}` },
    int(n.bytes),
    int(n.failures),
    ms(n.latency.p50Ms),
    ms(n.latency.p90Ms),
  ]);
  return {
    id: 'nodes',
    title: 'Nodes',
    body: [...charts, htmlTable(['node', 'lines', 'requests', 'pages', 'bytes', 'failed requests', 'latency p50', 'latency p90'], rows)],
  };
}

/** The collaboration metrics as `shoal eval` gives them, and the overlap histogram. */
export function collaborationSection(r: CrawlReport): PageSection {
  const m = r.collaboration;
  const { overlap: ov, diversity: dv, coverage: cv, linkLocality: pl, communication: comm } = m;
  const { pages: lp, bytes: lb } = m.loadBalance;
  const rows: Cell[][] = [
    ['overlap (N − I)/N', formatRatio(ov.overlap), `${int(ov.downloads)} downloads, ${int(ov.uniquePages)} distinct pages`],
    [
      'coverage',
      cv === null ? 'n/a' : formatRatio(cv.coverage),
      cv === null
        ? 'no target: give --truth'
        : `${int(cv.coveredPages)} of ${int(cv.targetPages)} target pages; ${int(cv.missedPages)} missed; ${int(cv.offTargetPages)} off target`,
    ],
    ['diversity (hosts / pages)', formatRatio(dv.diversity), `${int(dv.hosts)} hosts, ${int(dv.downloads)} downloads`],
    [
      'communication overhead (URLs per page)',
      formatRatio(comm.urlsPerPage),
      `${int(comm.urlsSent)} sent, ${int(comm.urlsReceived)} received`,
    ],
    [
      'pages forwarded per page',
      formatRatio(comm.pagesForwardedPerPage),
      `${int(comm.pagesSent)} sent, ${int(comm.pagesReceived)} received`,
    ],
    [
      'exported / imported (message bytes per byte downloaded)',
      `${formatRatio(comm.exportedRatio)} / ${formatRatio(comm.importedRatio)}`,
      `${int(comm.bytesSent)} bytes sent, ${int(comm.bytesReceived)} received`,
    ],
    ['load balance, pages max/mean', formatRatio(lp.maxOverMean), `max ${int(lp.max)}, mean ${formatFixed(lp.mean, 2)}`],
    ['load balance, bytes max/mean', formatRatio(lb.maxOverMean), `max ${int(lb.max)}, mean ${formatFixed(lb.mean, 2)}`],
    [
      'p_l (linked pairs on one node)',
      pl === null ? 'n/a' : formatRatio(pl.pl),
      pl === null ? 'no link graph' : `${int(pl.localPairs)} local of ${int(pl.pairs)} pairs`,
    ],
  ];
  const histogram =
    m.nodeCount < 2
      ? ''
      : barsOrNote(
          'overlap-histogram',
          'Distinct pages downloaded by exactly i nodes (SPEC §5 overlap histogram); all in the first bar means no overlap.',
          {
            title: 'Overlap histogram',
            xLabel: 'nodes that downloaded the page',
            yLabel: 'pages',
            categories: m.overlapHistogram.slice(1).map((_, i) => String(i + 1)),
            series: [{ name: 'pages', values: m.overlapHistogram.slice(1) }],
          },
          'overlap',
        );
  return {
    id: 'collaboration',
    title: 'Collaboration metrics',
    body: [
      para('As shoal eval computes them (SPEC §5), over the pages each node downloaded itself.'),
      histogram,
      localityChart(r),
      htmlTable(['metric', 'value', 'from'], rows, 'notes'),
    ],
  };
}

/**
 * The shares of linked (or unlinked) page pairs kept together, side by side: p_l (on one node;
 * several nodes only), topic locality by the crawl's categories and by the true topics, and the
 * geographic δ and δ̃. Those the report has, or nothing.
 */
function localityChart(r: CrawlReport): string {
  const pl = r.collaboration.nodeCount > 1 ? (r.collaboration.linkLocality?.pl ?? null) : null;
  const bars: [string, number | null][] = [
    ['p_l: on one node', pl],
    ['topic: one category', r.topic?.locality.locality ?? null],
    ['topic: one true topic', r.topic?.locality.trueLocality ?? null],
    ['geo δ: linked, one city', r.geo?.locality.linked.share ?? null],
    ['geo δ̃: unlinked, one city', r.geo?.locality.unlinked.share ?? null],
  ];
  const shown = bars.filter((b): b is [string, number] => b[1] !== null);
  if (shown.length === 0) return '';
  return barsOrNote(
    'locality',
    'Locality: of the linked page pairs (both ends downloaded), the share on one node (p_l), in one category by the crawl’s classifier or by ' +
      'the true topics; of linked and of unlinked pairs with a city, the share about the same city (δ, δ̃). The tables give the counts.',
    {
      title: 'Locality of page pairs',
      xLabel: 'pairs kept together',
      yLabel: 'share of pairs',
      categories: shown.map(([name]) => name),
      series: [{ name: 'share', values: shown.map(([, v]) => v) }],
      yDomain: [0, 1],
      format: (v) => formatFixed(v, 2),
    },
    'locality',
  );
}

/** Exchange totals per node and the discovery matrix; null for one node. */
export function communicationSection(r: CrawlReport): PageSection | null {
  const d = r.discoveries;
  if (d === null) return null;
  const names = r.nodes.map((n) => n.node);
  const exchange = r.nodes.map((n) => n.exchange);
  const max = Math.max(1, ...d.counts.flatMap((row, i) => row.filter((_, j) => j !== i)));
  const shade = (count: number, isLocal: boolean): Cell => ({
    text: int(count),
    style: isLocal || count === 0 ? 'background: #f7f7f7' : `background: rgba(0, 114, 178, ${formatFixed(0.1 + (0.6 * count) / max, 2)})`,
  });
  const matrix = htmlTable(
    ['found on a page of ↓ / tried by →', ...names],
    [
      ...d.counts.map((row, i): Cell[] => [names[i] as string, ...row.map((c, j) => shade(c, i === j))]),
      ['(seed or list)', ...d.seeds.map(int)],
      ['(page in no log)', ...d.unknown.map(int)],
    ],
  );
  const exchangeRows = r.nodes.map((n, k): Cell[] => {
    const e = n.exchange;
    const c = r.collaboration.nodes[k];
    return [
      n.node,
      int(e.urlsSent),
      int(e.urlsReceived),
      int(n.fromOtherNodes ?? 0),
      int(e.pagesSent),
      int(e.pagesReceived),
      int(e.bytesSent),
      int(e.bytesReceived),
      int(e.messagesSent),
      int(e.messagesReceived),
      formatRatio(c?.exportedRatio ?? null),
      formatRatio(c?.importedRatio ?? null),
    ];
  });
  return {
    id: 'communication',
    title: 'Communication between nodes',
    body: [
      barsOrNote(
        'exchange-urls',
        'URLs each node sent and received (its exchange.json, every run), beside the URLs it tried that were found on a page another node fetched (its crawl log).',
        {
          title: 'URLs exchanged per node',
          xLabel: 'node',
          yLabel: 'URLs',
          categories: names,
          series: [
            { name: 'URLs sent', values: exchange.map((e) => e.urlsSent) },
            { name: 'URLs received', values: exchange.map((e) => e.urlsReceived) },
            { name: 'tried, found by another node', values: r.nodes.map((n) => n.fromOtherNodes ?? 0) },
          ],
        },
        'exchange-urls',
      ),
      barsOrNote(
        'exchange-bytes',
        'Message bytes each node sent and received (URL batches, forwarded pages, link summaries, control), in kB (10³ bytes).',
        {
          title: 'Message kilobytes per node',
          xLabel: 'node',
          yLabel: 'kB',
          categories: names,
          series: [
            { name: 'sent', values: exchange.map((e) => e.bytesSent / 1000) },
            { name: 'received', values: exchange.map((e) => e.bytesReceived / 1000) },
          ],
        },
        'exchange-bytes',
      ),
      htmlTable(
        [
          'node',
          'URLs sent',
          'URLs received',
          'tried, found by another node',
          'pages sent',
          'pages received',
          'bytes sent',
          'bytes received',
          'messages sent',
          'messages received',
          'exported',
          'imported',
        ],
        exchangeRows,
      ),
      '<h3>Who found the URLs each node tried</h3>',
      para(
        'Each URL in a node’s crawl log (once, whatever its attempts) is counted in the column of that node and the row of the node that ' +
          'fetched the page it was discovered on (the log’s discoveredFrom; the node itself if it fetched that page too). Off the diagonal, ' +
          'the URL went from one node to the other in a message (a URL batch, or the page forwarded). Only the discovery that queued the URL ' +
          'is logged, so URLs sent again, or sent and never tried, are not here: the URLs received in exchange.json are the full count.',
      ),
      matrix,
    ],
  };
}

/** Coverage against the truth, over time; null without a truth. */
export function coverageSection(r: CrawlReport): PageSection | null {
  const c = r.coverage;
  const cv = r.collaboration.coverage;
  if (c === null || cv === null) return null;
  const t = r.throughput;
  const seconds = t.bucketMs / 1000;
  const chart =
    c.targetPages === 0 || c.covered.length < 2
      ? para('No target page, or the crawl spans less than two time buckets: nothing to draw.', 'note')
      : chartFigure(
          'coverage',
          lineChartSvg({
            title: 'Coverage of the target pages',
            xLabel: 'time since the first fetch started (s)',
            yLabel: 'target pages downloaded (%)',
            series: [
              {
                name: 'coverage',
                x: Float64Array.from({ length: c.covered.length }, (_, b) => (b + 1) * seconds),
                y: Float64Array.from(c.covered, (n) => (100 * n) / c.targetPages),
              },
            ],
            yDomain: [0, 100],
            idPrefix: 'coverage',
          }),
          'Share of the target pages (those a polite crawler reaches from the seeds, per the truth) downloaded by the end of each bucket.',
        );
  return {
    id: 'coverage',
    title: 'Coverage against the truth',
    body: [
      chart,
      htmlTable(
        ['figure', 'value'],
        [
          ['coverage I / target', pct(cv.coverage, 2)],
          ['target pages', int(cv.targetPages)],
          ['covered', int(cv.coveredPages)],
          ['missed', int(cv.missedPages)],
          ['downloaded off the target', int(cv.offTargetPages)],
        ],
      ),
    ],
  };
}
