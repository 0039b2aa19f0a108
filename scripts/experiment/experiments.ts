/**
 * The experiments of `npm run experiment:cho` on one graph: the simulated runs (shared between the
 * experiments that use the same policy), the PST evaluations of seed 004's Graphs 2, 4, 7–9, the
 * verdicts, and the charts. The numbers the paper gives are in {@link PAPER}; everything else is
 * measured.
 */
import { curvesChartSvg } from '../../src/report/svg-chart.js';
import { topShareThreshold, type EvalContext } from '../../src/sim/evaluation.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';
import { TOPIC_WORDS } from '../../src/web/data/topic-words.js';
import { contextFor, evaluate, type Evaluation, type HotDefinition } from './evaluate.js';
import { chooseTopic, graphFacts, hotFacts, topicFacts, type GraphFacts, type TopicRule, type WordCount } from './graph-facts.js';
import { backlinkPolicies, hotQueuePolicies, pagerankSection, runPolicy, type PolicyDef, type PolicyRun } from './runs.js';
import {
  experiment1,
  experiment2,
  experiment3,
  experiment4,
  MIX_UP_TO,
  politenessNotes,
  type HotLabels,
  type Labels,
  type SiteShare,
  type Verdict,
} from './verdicts.js';

/** Width of the charts, SVG units: room for the longest legend. */
const CHART_WIDTH = 860;

/** Figures of seed 004 used as parameters or compared against (numbers only). */
export const PAPER = {
  /** Pages of the Stanford crawl reachable from its start page, and valid pages in all. */
  pages: 179_000,
  validPages: 225_000,
  /** Graph 2: G and the hot pages it gave. */
  ibThreshold: 100,
  ibHotPages: 1_400,
  /** Graph 4. */
  irThreshold: 13,
  damping: 0.9,
  /** §7: the topic test, the hot queue's distance, Graph 9's backlinks and its reading point. */
  bodyMin: 10,
  hotDistance: 3,
  topicBacklinks: 5,
  readAt: 0.4,
  readAbove: 80,
} as const;

/** The paper's share of hot pages in Graph 2. */
export const PAPER_HOT_SHARE = PAPER.ibHotPages / PAPER.pages;

/** The topic word's rule: present in a few % of the pages, as "computer" on the Stanford Web. */
export const TOPIC_RULE: TopicRule = {
  preferred: 'computer',
  minPresentShare: 0.01,
  maxPresentShare: 0.1,
  minOnTopic: 20,
  minOnTopicShare: 0.001,
  bodyMin: PAPER.bodyMin,
};
/** Candidate topic words: the test web's COMPUTERS vocabulary (the paper's topic was computing). */
export const TOPIC_CANDIDATES: readonly string[] = TOPIC_WORDS['COMPUTERS'] ?? [];

/** One evaluated experiment, ready for the report. */
export interface ExperimentResult {
  readonly id: string;
  readonly evaluation: Evaluation;
  readonly chartFile: string;
  readonly title: string;
  readonly verdict: Verdict | null;
  /** Why this experiment was added (an extra G), if it was. */
  readonly reason: string | null;
}

/** Everything the report says about one graph. */
export interface GraphResult {
  readonly key: string;
  readonly name: string;
  readonly pageCount: number;
  readonly linkCount: number;
  readonly hostCount: number;
  readonly seeds: readonly string[];
  readonly facts: Omit<GraphFacts, 'depth' | 'isReached'>;
  readonly irMean: number;
  readonly topic: { readonly chosen: WordCount; readonly eligible: readonly WordCount[] };
  readonly runs: readonly {
    readonly label: string;
    readonly isPolite: boolean;
    readonly wallMs: number;
    readonly virtualMs: number;
    readonly visits: number;
  }[];
  readonly experiments: readonly ExperimentResult[];
  readonly politeness: readonly string[];
  readonly recomputeEvery: number;
}

const labelsOf = (defs: readonly PolicyDef[]): Labels => ({
  bfs: (defs[0] as PolicyDef).label,
  ib: (defs[1] as PolicyDef).label,
  ir: (defs[2] as PolicyDef).label,
  random: 'random crawler',
});

/** Share of the first `upTo` of a run's visits (of T pages) that went to the graph's largest host. */
function largestHostShare(graph: SimGraph, facts: GraphFacts, run: PolicyRun, upTo: number): number {
  const k = Math.round(upTo * facts.pages);
  let seen = 0;
  let onLargest = 0;
  for (let i = 0; i < run.visits.length && seen < k; i++) {
    const p = run.visits[i] as number;
    if (facts.isReached[p] !== 1) continue;
    seen++;
    if (graph.pageHost[p] === facts.largestHost) onLargest++;
  }
  return onLargest / Math.max(1, seen);
}

/**
 * A G for `ctx`'s importance that makes about the paper's share of pages hot, when `ctx`'s own G makes
 * a share more than 2× away from it; else null.
 */
function comparableThreshold(ctx: EvalContext): number | null {
  const share = ctx.hotPages / ctx.pages;
  if (share >= PAPER_HOT_SHARE / 2 && share <= PAPER_HOT_SHARE * 2) return null;
  return topShareThreshold(ctx.importance.values, PAPER_HOT_SHARE);
}

/**
 * Runs every experiment on `graph` from `seeds`; `file` names a chart file for an experiment id,
 * `write` stores a chart, `log` prints progress.
 */
export async function runGraphExperiments(
  key: string,
  name: string,
  graph: SimGraph,
  seeds: Uint32Array,
  write: (file: string, svg: string) => void,
  log: (line: string) => void,
): Promise<GraphResult> {
  const facts = graphFacts(graph, seeds);
  log(`${name}: T = ${facts.pages.toLocaleString('en-US')} reachable pages; choosing the topic word`);
  const topic = chooseTopic(graph, facts, TOPIC_CANDIDATES, TOPIC_RULE);
  const word = topic.chosen.word;
  log(`${name}: topic word "${word}" (${topic.chosen.onTopic} pages on the topic)`);

  const base = backlinkPolicies(graph.pageCount);
  const plain = hotQueuePolicies(graph.pageCount, word, 0);
  const modified = hotQueuePolicies(graph.pageCount, word, PAPER.hotDistance);
  const runOf = new Map<string, PolicyRun>();
  const polite = new Map<string, PolicyRun>();
  for (const [defs, isPolite] of [
    [base, false],
    [plain, false],
    [modified, false],
    [base, true],
  ] as const) {
    for (const d of defs) {
      const run = await runPolicy(graph, seeds, d, isPolite);
      (isPolite ? polite : runOf).set(d.key, run);
      log(
        `  ${name}: ${d.label}${isPolite ? ' (default politeness)' : ''}: ${run.visits.length.toLocaleString('en-US')} visits in ${(run.wallMs / 1000).toFixed(1)} s`,
      );
    }
  }
  const runsOf = (defs: readonly PolicyDef[], from: Map<string, PolicyRun>): PolicyRun[] => defs.map((d) => from.get(d.key) as PolicyRun);

  const experiments: ExperimentResult[] = [];
  const chart = (id: string, title: string, e: Evaluation): string => {
    const file = `${key}-${id}.svg`;
    write(file, curvesChartSvg(e.curves, { title, idPrefix: `${key}-${id}`, width: CHART_WIDTH }));
    return file;
  };
  const fmt = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
  const add = (
    id: string,
    what: string,
    hot: HotDefinition,
    runs: readonly PolicyRun[],
    verdictOf: ((e: Evaluation) => Verdict) | null,
    reason: string | null = null,
    ctx: EvalContext = contextFor(graph, seeds, hot),
  ): Evaluation => {
    log(`  ${name}: evaluating ${id} (${what})`);
    const e = evaluate(graph, ctx, hot, runs);
    const title = `${name}: ${what}, H = ${fmt(e.hotPages)} of ${fmt(e.pages)}`;
    experiments.push({
      id,
      evaluation: e,
      chartFile: chart(id, title, e),
      title,
      verdict: verdictOf === null ? null : verdictOf(e),
      reason,
    });
    return e;
  };
  const l = labelsOf(base);
  const hotOf = (e: Evaluation) => hotFacts(graph, facts, e.isHot);
  const mixOf = (defs: readonly PolicyDef[]): SiteShare[] =>
    defs
      .filter((d) => d.key !== 'random')
      .map((d) => ({ label: d.label, share: largestHostShare(graph, facts, runOf.get(d.key) as PolicyRun, MIX_UP_TO) }));

  // Experiment 1 (Graph 2) and, when G = 100 gives a share of hot pages far from the paper's, a comparable G.
  const ib: HotDefinition = { importance: 'ib', threshold: PAPER.ibThreshold };
  const ibCtx = contextFor(graph, seeds, ib);
  const e1 = add(
    'exp1',
    `I = IB, G = ${PAPER.ibThreshold}`,
    ib,
    runsOf(base, runOf),
    (e) => experiment1(e, l, facts, hotOf(e), mixOf(base)),
    null,
    ibCtx,
  );
  const ibAlt = comparableThreshold(ibCtx);
  if (ibAlt !== null) {
    add(
      'exp1-alt',
      `I = IB, G = ${fmt(ibAlt)}`,
      { importance: 'ib', threshold: ibAlt },
      runsOf(base, runOf),
      (e) => experiment1(e, l, facts, hotOf(e), mixOf(base)),
      `G = ${PAPER.ibThreshold} makes ${fmt(e1.hotPages)} pages hot here, ${((100 * e1.hotPages) / e1.pages).toFixed(2)} % of T, against ${(100 * PAPER_HOT_SHARE).toFixed(2)} ` +
        `% in the paper; G = ${fmt(ibAlt)} is the backlink count of the page at that share's rank, so about as large a share of pages is hot.`,
    );
  }
  // Experiment 2 (Graph 4).
  const ir: HotDefinition = { importance: 'ir', threshold: PAPER.irThreshold };
  const irCtx = contextFor(graph, seeds, ir);
  let irSum = 0;
  for (const v of irCtx.importance.values) irSum += v;
  add(
    'exp2',
    `I = IR, G = ${PAPER.irThreshold}`,
    ir,
    runsOf(base, runOf),
    (e) => experiment2(e, e1, l, facts, hotOf(e), mixOf(base)),
    null,
    irCtx,
  );
  const irAlt = comparableThreshold(irCtx);
  if (irAlt !== null) {
    add(
      'exp2-alt',
      `I = IR, G = ${fmt(irAlt)}`,
      { importance: 'ir', threshold: irAlt },
      runsOf(base, runOf),
      (e) => experiment2(e, e1, l, facts, hotOf(e), mixOf(base)),
      `G = ${PAPER.irThreshold} gives a share of hot pages more than twice away from the ${(100 * PAPER_HOT_SHARE).toFixed(2)} ` +
        `% of the paper's Graph 2 (the paper gives no H for its Graph 4); G = ${fmt(irAlt)} is the PageRank at that share's rank.`,
    );
  }
  // Experiments 3 (Graphs 7 and 8) and 4 (Graph 9).
  const hotLabels: HotLabels = { plain: labelsOf(plain), modified: labelsOf(modified) };
  const topicHot: HotDefinition = { importance: 'topic', threshold: 1, topic: word };
  add('exp3', `I = IS("${word}"), hot queues`, topicHot, [...runsOf(plain, runOf), ...runsOf(modified, runOf)], (e) =>
    experiment3(e, hotLabels, word, topicFacts(graph, facts, word, e.isHot), facts, hotOf(e), mixOf([...plain, ...modified])),
  );
  add(
    'exp4',
    `hot = IS("${word}") ∧ IB ≥ ${PAPER.topicBacklinks}`,
    { importance: 'topic-ib', threshold: 1, topic: word },
    runsOf(modified, runOf),
    (e) => experiment4(e, hotLabels.modified, facts, hotOf(e), mixOf(modified), PAPER.readAt, PAPER.readAbove),
  );
  // Experiment 1 again under shoal's default politeness.
  const ePolite = add('exp1-polite', `I = IB, G = ${PAPER.ibThreshold}, polite`, ib, runsOf(base, polite), null, null, ibCtx);

  return {
    key,
    name,
    pageCount: graph.pageCount,
    linkCount: graph.linkCount,
    hostCount: graph.hosts.count,
    seeds: Array.from(seeds, (s) => graph.urlOf(s)),
    facts: {
      pages: facts.pages,
      links: facts.links,
      hosts: facts.hosts,
      sameHostShare: facts.sameHostShare,
      nearDepth: facts.nearDepth,
      nearShare: facts.nearShare,
      meanDepth: facts.meanDepth,
      largestHostShare: facts.largestHostShare,
      largestHost: facts.largestHost,
    },
    irMean: irSum / irCtx.pages,
    topic: { chosen: topic.chosen, eligible: topic.eligible.slice(0, 6) },
    runs: [...runOf.values(), ...polite.values()].map((r) => ({
      label: r.def.label,
      isPolite: r.isPolite,
      wallMs: r.wallMs,
      virtualMs: r.virtualMs,
      visits: r.visits.length,
    })),
    experiments,
    politeness: politenessNotes(
      e1,
      ePolite,
      l,
      facts,
      hotOf(e1),
      base.slice(0, 3).map((d) => ({
        label: d.label,
        free: largestHostShare(graph, facts, runOf.get(d.key) as PolicyRun, MIX_UP_TO),
        polite: largestHostShare(graph, facts, polite.get(d.key) as PolicyRun, MIX_UP_TO),
      })),
    ),
    recomputeEvery: pagerankSection(graph.pageCount).recomputeEvery,
  };
}
