/**
 * Plain-text rendering of {@link CollaborationMetrics}: a per-node table (with a total row), then one
 * line per crawl-wide metric with the counts behind it. Counts carry thousands separators (always
 * `,`, whatever the locale, so the output is the same on every machine); ratios have a fixed number
 * of decimals; an undefined ratio (null) prints as `n/a`.
 */
import type { CollaborationMetrics } from './collab-metrics.js';

/** Options of {@link formatCollabTable}. */
export interface CollabTableOptions {
  /** Decimals of every ratio. Default 4. */
  readonly decimals?: number;
}

/** `x` with `decimals` fixed decimals and `,` between groups of three digits of the integer part. */
export function formatFixed(x: number, decimals: number): string {
  const [whole = '', fraction] = Math.abs(x).toFixed(decimals).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const sign = x < 0 && Number(whole + (fraction ?? '')) !== 0 ? '-' : '';
  return fraction === undefined ? `${sign}${grouped}` : `${sign}${grouped}.${fraction}`;
}

/** A count rounded to an integer, with `,` between groups of three digits (`1234567` → `1,234,567`). */
export function formatCount(n: number): string {
  return formatFixed(n, 0);
}

/** A ratio with a fixed number of decimals (default 4) and grouped integer part, `n/a` for null. */
export function formatRatio(x: number | null, decimals = 4): string {
  return x === null ? 'n/a' : formatFixed(x, decimals);
}

/**
 * Rows of cells as plain-text lines: each column padded to its widest cell, the first left-aligned
 * and the others right-aligned, two spaces between columns, no trailing blanks.
 */
export function alignColumns(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, c) => {
      widths[c] = Math.max(widths[c] ?? 0, cell.length);
    });
  return rows.map((cells) =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number)))
      .join('  ')
      .trimEnd(),
  );
}

/** Renders the metrics as a readable plain-text table, lines joined by `\n`, no trailing newline. */
export function formatCollabTable(metrics: CollaborationMetrics, options: CollabTableOptions = {}): string {
  const decimals = options.decimals ?? 4;
  const r = (x: number | null): string => formatRatio(x, decimals);
  const c = formatCount;
  const comm = metrics.communication;
  const header = ['node', 'pages', 'bytes', 'exported', 'imported', 'URLs sent', 'URLs recv', 'pages sent', 'pages recv'];
  const rows = metrics.nodes.map((n) => [
    n.node,
    c(n.pages),
    c(n.bytes),
    r(n.exportedRatio),
    r(n.importedRatio),
    c(n.urlsSent),
    c(n.urlsReceived),
    c(n.pagesSent),
    c(n.pagesReceived),
  ]);
  rows.push([
    'total',
    c(comm.downloads),
    c(comm.downloadedBytes),
    r(comm.exportedRatio),
    r(comm.importedRatio),
    c(comm.urlsSent),
    c(comm.urlsReceived),
    c(comm.pagesSent),
    c(comm.pagesReceived),
  ]);

  const { overlap: ov, diversity: dv, coverage: cv, linkLocality: pl } = metrics;
  const { pages: lp, bytes: lb } = metrics.loadBalance;
  const histogram = metrics.overlapHistogram
    .map((count, i) => (i === 0 ? '' : `${i} node${i === 1 ? '' : 's'}: ${c(count)}`))
    .filter((s) => s !== '')
    .join(', ');
  const overall: [string, string][] = [
    ['overlap', `${r(ov.overlap)}  (${c(ov.downloads)} downloads, ${c(ov.uniquePages)} distinct pages)`],
    [
      'coverage',
      cv === null
        ? 'n/a  (no target given)'
        : `${r(cv.coverage)}  (${c(cv.coveredPages)} of ${c(cv.targetPages)} target pages; ${c(cv.missedPages)} missed; ${c(cv.offTargetPages)} off target)`,
    ],
    ['diversity', `${r(dv.diversity)}  (${c(dv.hosts)} hosts / ${c(dv.downloads)} downloads)`],
    ['communication overhead', `${r(comm.urlsPerPage)} URLs per page  (${c(comm.urlsSent)} sent, ${c(comm.urlsReceived)} received)`],
    [
      'pages forwarded',
      `${r(comm.pagesForwardedPerPage)} per page  (${c(comm.pagesSent)} sent, ${c(comm.pagesReceived)} received; ` +
        `${c(comm.pageBytesSent)} bytes sent, ${c(comm.pageBytesReceived)} received)`,
    ],
    [
      'exported / imported',
      `${r(comm.exportedRatio)} / ${r(comm.importedRatio)}  (${c(comm.bytesSent)} bytes sent, ` +
        `${c(comm.bytesReceived)} received, ${c(comm.downloadedBytes)} downloaded)`,
    ],
    [
      'load balance',
      `pages max/mean ${r(lp.maxOverMean)} (max ${c(lp.max)}, mean ${formatFixed(lp.mean, 2)}); ` +
        `bytes max/mean ${r(lb.maxOverMean)} (max ${c(lb.max)}, mean ${formatFixed(lb.mean, 2)})`,
    ],
    [
      'p_l',
      pl === null
        ? 'n/a  (no links given)'
        : `${r(pl.pl)}  (${c(pl.localPairs)} local of ${c(pl.pairs)} pairs; skipped ${c(pl.selfLinks)} self-links, ` +
          `${c(pl.unowned)} unowned, ${c(pl.duplicates)} duplicates)`,
    ],
    ['overlap histogram', histogram === '' ? 'n/a  (no nodes)' : histogram],
  ];
  const labelWidth = Math.max(...overall.map(([label]) => label.length));
  return [
    `collaboration metrics, ${metrics.nodeCount} node${metrics.nodeCount === 1 ? '' : 's'}`,
    '',
    ...alignColumns([header, ...rows]),
    '',
    ...overall.map(([label, value]) => `${label.padEnd(labelWidth)}  ${value}`),
  ].join('\n');
}
