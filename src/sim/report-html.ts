/**
 * The HTML page of a simulation (`shoal report DIR` → `report.html`): one self-contained file with
 * the charts inlined as SVG and the metric tables: what was simulated, the runs (visits, times, the
 * curves at 10/20/40 % of the crawl), each node's figures, and for several nodes the collaboration
 * metrics of SPEC §5 with the overlap histogram. No script, no external resource.
 */
import { specLabel } from '../core/strings.js';
import type { CurveModel } from '../eval/ordering-models.js';
import { BASE_CSS, htmlTable as table } from '../report/html.js';
import { escapeXml } from '../report/svg-chart.js';
import type { SimResultDoc, SimRunDoc } from './result.js';

const esc = escapeXml;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const dec = (v: number | null | undefined, digits: number): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);

function runsTable(result: SimResultDoc): string {
  const at = result.evaluation.summaryAt.map((x) => `${Math.round(100 * x)} %`);
  const models = (['pst', 'pcs', 'wc', 'pbc'] as const).filter((m) => result.runs.some((r) => r.summary[m] !== undefined));
  const header = [
    'policy',
    'stop',
    'visits',
    'distinct pages',
    'virtual time (h)',
    'wall time (s)',
    'pages/s',
    ...models.flatMap((m) => at.map((x) => `${m.toUpperCase()} at ${x}`)),
  ];
  const rows = result.runs.map((r) => [
    r.label,
    r.stopReason,
    int(r.visits),
    int(r.uniquePages),
    dec(r.virtualMs / 3_600_000, 2),
    dec(r.wallMs / 1000, 1),
    int(r.pagesPerSecond),
    ...models.flatMap((m) => [0, 1, 2].map((i) => dec(r.summary[m]?.[i], 1))),
  ]);
  return table(header, rows);
}

function nodesTable(run: SimRunDoc): string {
  const header = [
    'node',
    'pages',
    'queued',
    'URLs sent',
    'URLs received',
    'duplicates absorbed',
    'pages forwarded',
    'pages received',
    'priority changes',
    'left queued',
  ];
  const rows = run.nodes.map((n) => [
    String(n.node),
    int(n.pages),
    int(n.queued),
    int(n.urlsSent),
    int(n.urlsReceived),
    int(n.urlsDuplicate),
    int(n.pagesSent),
    int(n.pagesReceived),
    int(n.reprioritized),
    int(n.queuedLeft),
  ]);
  return table(header, rows);
}

function collaborationSection(run: SimRunDoc): string {
  const c = run.collaboration;
  if (c === null) return '';
  const rows: string[][] = [
    ['overlap (N − I)/N', dec(c.overlap.overlap, 4)],
    ['coverage of reachable pages', dec(c.coverage?.coverage ?? null, 4)],
    ['diversity (hosts / pages)', dec(c.diversity.diversity, 4)],
    ['communication overhead (URLs sent per page)', dec(c.communication.urlsPerPage, 3)],
    ['pages forwarded per page', dec(c.communication.pagesForwardedPerPage, 3)],
    ['load balance, pages max/mean', dec(c.loadBalance.pages.maxOverMean, 3)],
    ['p_l (linked pairs on one node)', dec(c.linkLocality?.pl ?? null, 4)],
  ];
  const histogram = c.overlapHistogram.slice(1).map((count, i) => [`fetched by ${i + 1} node${i === 0 ? '' : 's'}`, int(count)]);
  return `<h4>Collaboration</h4>\n${table(['metric', 'value'], rows)}\n<h4>Overlap histogram</h4>\n${table(['pages', 'count'], histogram)}`;
}

/** The report page of a simulation directory's `result.json`, with its charts (`simulationCharts`) inlined. */
export function simulationReportHtml(result: SimResultDoc, charts: ReadonlyMap<CurveModel, string>): string {
  const g = result.graph;
  const e = result.evaluation;
  const cfg = result.config;
  const first = result.runs[0];
  const figures = [...charts.values()].map((svg) => `<figure>\n${svg}</figure>`).join('\n');
  const setup = table(
    ['setting', 'value'],
    [
      ['graph', `${g.format}: ${g.source}`],
      ['pages, links, hosts', `${int(g.pages)}, ${int(g.links)}, ${int(g.hosts)}`],
      ['seeds', int(g.seeds)],
      ['nodes', `${cfg.nodes}${first?.partitioner == null ? '' : `, ${specLabel(first.partitioner)}, forward ${first.forward}`}`],
      ['fetch slots per node', String(cfg.limits.concurrency)],
      [
        'politeness',
        `min delay ${cfg.politeness.minDelayMs} ms, k = ${cfg.politeness.delayFactor} (up to ${cfg.politeness.maxDelayMs} ` +
          `ms), ${cfg.politeness.maxConnectionsPerHost} per host, ${cfg.politeness.maxConnectionsPerIp} per IP`,
      ],
      [
        'latency',
        `${cfg.latency.model}, ${cfg.latency.ms} ` +
          `ms${cfg.latency.model === 'uniform' || cfg.latency.model === 'lognormal' ? `, spread ${cfg.latency.spread}, seed ${cfg.latency.seed}` : ''}`,
      ],
      ['stop after', cfg.limits.maxPages === null ? 'nothing left to fetch' : `${int(cfg.limits.maxPages)} pages`],
      ['importance', specLabel(e.importance)],
      ['hot pages', `I(P) ≥ ${e.threshold}: ${int(e.hotPages)} of ${int(e.pages)} (${e.scope})`],
      ['weighted coverage weights', specLabel(e.weights)],
    ],
  );
  const perRun = result.runs
    .map((r) =>
      [`<h3>${esc(r.label)}</h3>`, `<p class="spec">${esc(specLabel(r.policy))}</p>`, nodesTable(r), collaborationSection(r)].join('\n'),
    )
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>shoal simulation: ${esc(result.runs.map((r) => r.label).join(', '))}</title>
<style>
${BASE_CSS}
</style>
</head>
<body>
<h1>shoal simulation</h1>
<h2>Setup</h2>
${setup}
<h2>Charts</h2>
${figures}
<h2>Runs</h2>
${runsTable(result)}
<h2>Per run</h2>
${perRun}
</body>
</html>
`;
}
