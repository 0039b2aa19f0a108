/**
 * The charts of a simulation: one per evaluation model (PST, PCS, weighted coverage, PBC), each with
 * one line per ordering policy plus the random and ideal crawlers, drawn by `src/report/svg-chart.ts`.
 * `shoal simulate` writes them; `shoal report` draws them again from the saved curves.
 */
import type { ImportanceSpec } from '../eval/importance.js';
import type { Curve, CurveModel } from '../eval/ordering-models.js';
import { curvesChartSvg } from '../report/svg-chart.js';
import type { SimResultDoc } from './result.js';

/** Models in the order charts are shown. */
export const CHART_MODELS: readonly CurveModel[] = ['pst', 'pcs', 'wc', 'pbc'];

const fmt = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** Short names of importance metrics for titles (the full spec is in result.json and curves.json). */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  backlinks: 'IB',
  pagerank: 'IR',
  topic: 'IS',
  'topic-label': 'IS',
  'topic-and-backlinks': 'IS ∧ IB',
};

/** `IB`, `IR`, `IS(COMPUTERS)`, ... for a title. */
export function shortImportance(spec: ImportanceSpec): string {
  const name = SHORT_NAMES[spec.id] ?? spec.id;
  const topic = spec.params['topic'];
  return spec.id.startsWith('topic') && typeof topic === 'string' && !topic.includes('(') ? `${name}(${topic})` : name;
}

/** The title of a model's chart: what was measured, against what. */
export function chartTitle(model: CurveModel, result: SimResultDoc): string {
  const e = result.evaluation;
  const importance = shortImportance(e.importance);
  switch (model) {
    case 'pst':
      return `PST: hot = ${importance} ≥ ${fmt(e.threshold)} (${fmt(e.hotPages)} of ${fmt(e.pages)} pages)`;
    case 'pcs':
      return `PCS: I = ${importance} (${fmt(e.pages)} pages)`;
    case 'wc':
      return `Weighted coverage: w = ${shortImportance(e.weights)}`;
    case 'pbc':
      return `PBC: buffer of ${fmt(e.bufferPages ?? 0)} pages, hot = ${importance} ≥ ${fmt(e.threshold)}`;
  }
}

/** One SVG per model that has curves, keyed by model, in {@link CHART_MODELS} order. */
export function simulationCharts(result: SimResultDoc, curves: readonly Curve[], idPrefix = 'chart'): Map<CurveModel, string> {
  const charts = new Map<CurveModel, string>();
  for (const model of CHART_MODELS) {
    const of = curves.filter((c) => c.spec.id === model);
    if (of.length === 0) continue;
    // Crawls first, then the reference crawlers, so the legend lists the policies on top.
    const ordered = [...of.filter((c) => c.spec.crawler.kind === 'crawl'), ...of.filter((c) => c.spec.crawler.kind !== 'crawl')];
    charts.set(model, curvesChartSvg(ordered, { title: chartTitle(model, result), idPrefix: `${idPrefix}-${model}` }));
  }
  return charts;
}
