/**
 * The Crawl & Stop with Threshold model (seed 004 §3) applied to the experiment's runs, with the
 * simulator's own evaluation (`src/sim/evaluation.ts`, `src/eval/ordering-models.ts`): T = the pages
 * reachable from the seeds, the true importance of each, G and H, one PST curve per run plus the
 * random and ideal crawlers, and the table of PST at the report's points.
 */
import { pstBaseline, pstCurve, summarizeCurve, type Curve } from '../../src/eval/ordering-models.js';
import { BASELINE_LABELS, evalContext, scopedVisitOrder, type EvalContext } from '../../src/sim/evaluation.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';
import { simConfigSchema, type SimImportanceId } from '../../src/sim/sim-config.js';
import type { PolicyRun } from './runs.js';

/** Shares of the crawl at which tables report PST. */
export const REPORT_AT = [0.1, 0.2, 0.4, 0.6, 0.8] as const;

/** What is hot. */
export interface HotDefinition {
  readonly importance: SimImportanceId;
  /** G; for topic importances 1. */
  readonly threshold: number;
  /** The topic word of topic importances. */
  readonly topic?: string;
}

/** One row of a table: a curve and its PST at {@link REPORT_AT}. */
export interface Row {
  readonly label: string;
  readonly kind: 'crawl' | 'random' | 'ideal';
  readonly at: readonly number[];
  /** Mean of `at`: one number to compare crawlers by. */
  readonly mean: number;
}

/** The PST evaluation of some runs against one hot definition. */
export interface Evaluation {
  readonly hot: HotDefinition;
  /** T. */
  readonly pages: number;
  /** H. */
  readonly hotPages: number;
  readonly curves: readonly Curve[];
  readonly rows: readonly Row[];
  /** The mask of hot pages by graph page id (for the graph facts). */
  readonly isHot: (page: number) => boolean;
}

/** The evaluation context of one hot definition (computes the importance once). */
export function contextFor(graph: SimGraph, seeds: Uint32Array, hot: HotDefinition): EvalContext {
  const base = simConfigSchema.parse({}).eval;
  return evalContext(graph, seeds, {
    ...base,
    importance: hot.importance,
    threshold: hot.threshold,
    topic: hot.topic ?? null,
    points: 100,
  });
}

/** PST curves and table rows of `runs` (in order), then the random and ideal crawlers. */
export function evaluate(graph: SimGraph, ctx: EvalContext, hot: HotDefinition, runs: readonly PolicyRun[]): Evaluation {
  const curves: Curve[] = runs.map((run) =>
    pstCurve(scopedVisitOrder(ctx, run.visits, graph.pageCount), ctx.hot, { policy: run.spec, label: run.def.label, points: ctx.points }),
  );
  for (const kind of ['random', 'ideal'] as const) {
    const c = pstBaseline(kind, ctx.hot, { points: ctx.points });
    curves.push({ ...c, spec: { ...c.spec, label: BASELINE_LABELS[kind] } });
  }
  const rows = curves.map((c): Row => {
    const at = Array.from(summarizeCurve(c, REPORT_AT));
    return {
      label: c.spec.label ?? c.spec.crawler.kind,
      kind: c.spec.crawler.kind === 'crawl' ? 'crawl' : c.spec.crawler.kind === 'random' ? 'random' : 'ideal',
      at,
      mean: at.reduce((a, b) => a + b, 0) / at.length,
    };
  });
  const localOf = ctx.localOf;
  const values = ctx.importance.values;
  return {
    hot,
    pages: ctx.pages,
    hotPages: ctx.hotPages,
    curves,
    rows,
    isHot: (page) => {
      const i = localOf === null ? page : (localOf[page] as number);
      return i >= 0 && (values[i] as number) >= ctx.threshold;
    },
  };
}

/** The row of `label`. @throws Error when there is none (a bug of the script). */
export function rowOf(e: Evaluation, label: string): Row {
  const row = e.rows.find((r) => r.label === label);
  if (row === undefined) throw new Error(`no curve ${label}`);
  return row;
}
