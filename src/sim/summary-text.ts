/**
 * The summary table `shoal simulate` prints: per run its visits, times and the curves read at 10,
 * 20 and 40 % of the crawl, then for several nodes the collaboration metrics.
 */
import { specLabel } from '../core/strings.js';
import { alignColumns, formatCount, formatRatio } from '../eval/collab-table.js';
import type { SimResultDoc, SimRunDoc } from './result.js';

const int = formatCount;
const num = (v: number | null | undefined, digits = 3): string => formatRatio(v ?? null, digits);

function curveCells(run: SimRunDoc, model: 'pst' | 'pcs' | 'wc'): string[] {
  const ys = run.summary[model];
  return [0, 1, 2].map((i) => num(ys?.[i], 1));
}

/** The table of runs. */
export function runsTable(result: SimResultDoc): string {
  const at = result.evaluation.summaryAt.map((x) => `${Math.round(100 * x)}%`);
  const header = [
    'policy',
    'stop',
    'visits',
    'virtual h',
    'wall s',
    'pages/s',
    ...at.map((x) => `PST@${x}`),
    ...at.map((x) => `PCS@${x}`),
    ...at.map((x) => `WC@${x}`),
  ];
  const rows = result.runs.map((r) => [
    r.label,
    r.stopReason,
    int(r.visits),
    (r.virtualMs / 3_600_000).toFixed(2),
    (r.wallMs / 1000).toFixed(1),
    int(r.pagesPerSecond),
    ...curveCells(r, 'pst'),
    ...curveCells(r, 'pcs'),
    ...curveCells(r, 'wc'),
  ]);
  return alignColumns([header, ...rows]).join('\n');
}

/** The collaboration metrics of the runs of several nodes. */
export function collaborationTable(result: SimResultDoc): string | null {
  const runs = result.runs.filter((r) => r.collaboration !== null);
  if (runs.length === 0) return null;
  const header = ['policy', 'overlap', 'coverage', 'URLs/page', 'pages fwd', 'load max/mean', 'p_l'];
  const rows = runs.map((r) => {
    const c = r.collaboration;
    return [
      r.label,
      num(c?.overlap.overlap),
      num(c?.coverage?.coverage ?? null),
      num(c?.communication.urlsPerPage ?? null, 2),
      int(c?.communication.pagesSent ?? 0),
      num(c?.loadBalance.pages.maxOverMean ?? null, 2),
      num(c?.linkLocality?.pl ?? null),
    ];
  });
  return alignColumns([header, ...rows]).join('\n');
}

/** The community scores of the runs, when the graph's pages carry communities. */
export function communityTable(result: SimResultDoc): string | null {
  const runs = result.runs.filter((r) => r.community != null);
  if (runs.length === 0) return null;
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const header = ['policy', 'cohesion', 'precision', 'recall', 'overlap', 'majorities'];
  const rows = runs.map((r) => {
    const c = r.community as NonNullable<typeof r.community>;
    return [r.label, pct(c.mean.cohesion), pct(c.mean.precision), pct(c.mean.recall), num(c.overlap), int(c.mean.distinctMajorities)];
  });
  return alignColumns([header, ...rows]).join('\n');
}

/** The whole summary. */
export function simulationSummary(result: SimResultDoc): string {
  const e = result.evaluation;
  const first = result.runs[0];
  const lines = [
    `shoal simulate: ${result.graph.format} graph ${result.graph.source}: ${int(result.graph.pages)} pages, ${int(result.graph.links)} links, ${int(result.graph.hosts)} hosts`,
    `  nodes ${result.config.nodes}${first?.partitioner === null || first === undefined ? '' : `, ${specLabel(first.partitioner)}, forward ${first.forward}`}` +
      `; ${result.config.limits.concurrency} fetch slots per node; latency ${result.config.latency.model} ${result.config.latency.ms} ms`,
    `  importance ${specLabel(e.importance)}, hot >= ${e.threshold} (${int(e.hotPages)} of ${int(e.pages)} ${e.scope} pages)`,
    '',
    runsTable(result),
  ];
  const collab = collaborationTable(result);
  if (collab !== null) lines.push('', 'collaboration:', collab);
  const community = communityTable(result);
  if (community !== null) lines.push('', 'communities (means over nodes):', community);
  return `${lines.join('\n')}\n`;
}
