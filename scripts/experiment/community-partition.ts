/**
 * The community experiment's section on crawlers that work together: the paper's ring graph (17
 * communities of 100 pages, k = 32, o = 2), each community spread over 4 hosts, crawled in the
 * simulator by 16 nodes with budgets of 3,200 pages (200 a node, the paper's capacity) and 1,600,
 * community ordering (`candidate`) on every node, under:
 *
 * - `host-hash` (hash partitioning, the usual collaborative crawl),
 * - `community` with link summaries off (every node keeps what it finds: independent community
 *   crawlers with seeds dealt by host hash), and
 * - `community` as shipped (votes exchanged every second of virtual time),
 *
 * the same 64 random seed pages each draw. The same simulator and strategies as `shoal simulate
 * --partition community`; per-node scores from `src/eval/community-metrics.ts`.
 */
import { Rng } from '../../src/core/prng.js';
import { communityScores, meanCommunityScores, ringCommunityGraph, setOverlap } from '../../src/eval/community-metrics.js';
import { orderingPolicyFrom, orderPolicySchema } from '../../src/order/registry.js';
import { createPartitioner, partitionStrategySchema } from '../../src/partition/registry.js';
import { graphFromAdjacency } from '../../src/sim/graph/memory-graph.js';
import { simulate } from '../../src/sim/simulator.js';
import { stat, type Stat } from './community-stats.js';

const COMMUNITIES = 17;
const SIZE = 100;
const HOSTS_PER_COMMUNITY = 4;
const NODES = 16;
/** Pages over all nodes: the paper's 200 a node (more than the graph holds, so overlap is at least 47 %), and 100 a node. */
const BUDGETS = [3_200, 1_600] as const;
const SEEDS = 64;

interface Setting {
  readonly name: string;
  readonly strategy: 'host-hash' | 'community';
  readonly order: 'bfs' | 'community';
  /** Link summaries every this many ms of virtual time (0 = never), or the strategy's default. */
  readonly summaryMs?: number;
}

const SETTINGS: readonly Setting[] = [
  { name: 'host-hash, breadth-first', strategy: 'host-hash', order: 'bfs' },
  { name: 'host-hash, community order', strategy: 'host-hash', order: 'community' },
  { name: 'community, no votes exchanged (independent crawlers)', strategy: 'community', order: 'community', summaryMs: 0 },
  { name: 'community, votes every 1 s (shoal)', strategy: 'community', order: 'community' },
];

interface Figures {
  readonly cohesion: number;
  readonly precision: number;
  readonly recall: number;
  readonly overlap: number;
  /** URLs sent per page fetched. */
  readonly urlsPerPage: number;
  /** Link summary messages per page fetched. */
  readonly summariesPerPage: number;
}

/** One draw of one setting. */
async function runOnce(setting: Setting, budget: number, draw: number): Promise<Figures> {
  const { graph: csr, community } = ringCommunityGraph({ communities: COMMUNITIES, size: SIZE, k: 32, o: 2, seed: draw });
  const urlOf = (g: number): string => {
    const t = community[g] as number;
    return `http://c${t}-h${g % HOSTS_PER_COMMUNITY}.test/p${g}`;
  };
  const web: Record<string, string[]> = {};
  for (let g = 0; g < csr.nodeCount; g++) {
    web[urlOf(g)] = Array.from(csr.targets.subarray(csr.offsets[g], csr.offsets[g + 1]), urlOf);
  }
  const rng = new Rng(draw, 91, 3);
  const seedUrls = Array.from({ length: SEEDS }, () => urlOf(rng.int(csr.nodeCount)));
  const graph = graphFromAdjacency(web, seedUrls);
  // graphFromAdjacency numbers pages in key order, which is page order here.
  const run = await simulate({
    graph,
    nodeCount: NODES,
    partitioner: createPartitioner(partitionStrategySchema.parse({ strategy: setting.strategy }), NODES),
    createPolicy: () => orderingPolicyFrom(orderPolicySchema.parse({ policy: setting.order })),
    maxPages: budget,
    concurrency: 1,
    latencyMs: 100,
    politeness: { minDelayMs: 0, delayFactor: 0 },
    ...(setting.summaryMs === undefined ? {} : { linkSummaryIntervalMs: setting.summaryMs }),
  });
  await graph.close();
  const sets: number[][] = Array.from({ length: NODES }, () => []);
  for (let i = 0; i < run.visits.count; i++) (sets[run.visits.nodes[i] as number] as number[]).push(run.visits.pages[i] as number);
  const mean = meanCommunityScores(sets.filter((s) => s.length > 0).map((s) => communityScores(csr, community, s)));
  const pages = Math.max(1, run.visits.count);
  return {
    cohesion: mean.cohesion,
    precision: mean.precision,
    recall: mean.recall,
    overlap: setOverlap(sets),
    urlsPerPage: run.nodes.reduce((a, n) => a + n.urlsSent, 0) / pages,
    summariesPerPage: run.messages.linkSummaries / pages,
  };
}

type Row = { readonly [K in keyof Figures]: Stat };

/** A claim checked against the section's table. */
export interface SectionVerdict {
  readonly claim: string;
  readonly holds: boolean;
  readonly evidence: string;
}

/** Runs the section over `draws` graph draws; returns its Markdown lines and verdicts. */
export async function communityPartitionSection(
  draws: number,
  log: (line: string) => void,
): Promise<{ lines: string[]; verdicts: SectionVerdict[] }> {
  const rows = new Map<string, Row>();
  const key = (s: Setting, budget: number): string => `${budget} ${s.name}`;
  for (const budget of BUDGETS) {
    for (const setting of SETTINGS) {
      const runs: Figures[] = [];
      for (let d = 1; d <= draws; d++) runs.push(await runOnce(setting, budget, d));
      const row = Object.fromEntries(
        (Object.keys(runs[0] as Figures) as (keyof Figures)[]).map((k) => [k, stat(runs.map((r) => r[k]))]),
      ) as Row;
      rows.set(key(setting, budget), row);
      log(`partition section: ${budget} pages, ${setting.name}: precision ${(row.precision.mean * 100).toFixed(1)} %`);
    }
  }
  const pct = (s: Stat): string => `${(s.mean * 100).toFixed(1)} ± ${(s.sd * 100).toFixed(1)}`;
  const lines = [
    '## Crawlers that exchange URLs: `--partition community` in the simulator',
    '',
    `The same graphs (k = 32, o = 2), each community spread over ${HOSTS_PER_COMMUNITY} hosts, crawled by the simulator with ${NODES} nodes,`,
    'one fetch at a time per node, 100 ms a fetch, messages 250 ms on the way, from the same',
    `${SEEDS} random seed pages placed by host hash, community ordering on every node; ${draws} draws, mean ± standard deviation`,
    'in %. Under `community` a link goes to the node whose pages cite it most, counted through link summaries',
    '(docs/community-crawling.md); with summaries off it stays where it was found. The budget is over all nodes: 3,200',
    'pages is the paper’s 200 a node, more than the 1,700 pages of the graph, so that overlap is at least 47 % whatever',
    'the nodes do; 1,600 pages leaves them room to avoid each other. Host hashing runs out of pages at 1,700.',
    '',
    '| budget | nodes | cohesion | precision | recall | overlap | URLs sent per page | summaries per page |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const budget of BUDGETS) {
    for (const setting of SETTINGS) {
      const r = rows.get(key(setting, budget)) as Row;
      lines.push(
        `| ${budget.toLocaleString('en-US')} | ${setting.name} | ${pct(r.cohesion)} | ${pct(r.precision)} | ${pct(r.recall)} | ${pct(r.overlap)} | ${r.urlsPerPage.mean.toFixed(2)} | ${r.summariesPerPage.mean.toFixed(2)} |`,
      );
    }
  }
  lines.push('');
  const at = (budget: number): [Row, Row, Row] => {
    const [, hostCommunity, independent, shared] = SETTINGS.map((s) => rows.get(key(s, budget)) as Row);
    return [hostCommunity as Row, independent as Row, shared as Row];
  };
  const m = (s: Stat): string => `${(s.mean * 100).toFixed(1)} %`;
  const verdicts: SectionVerdict[] = BUDGETS.map((budget) => {
    const [hostCommunity, , shared] = at(budget);
    return {
      claim: `${budget.toLocaleString('en-US')} pages: community partitioning keeps nodes to communities better than host hashing (precision and cohesion, community order on both).`,
      holds: shared.precision.mean > hostCommunity.precision.mean && shared.cohesion.mean > hostCommunity.cohesion.mean,
      evidence: `community ${m(shared.cohesion)} / ${m(shared.precision)}, host-hash ${m(hostCommunity.cohesion)} / ${m(hostCommunity.precision)}.`,
    };
  });
  const [, independent, shared] = at(1_600);
  verdicts.push(
    {
      claim: '1,600 pages: exchanging votes lowers the overlap of independent community crawlers, by more than the spread between draws.',
      holds: shared.overlap.mean + Math.max(shared.overlap.sd, independent.overlap.sd) < independent.overlap.mean,
      evidence: `overlap ${m(shared.overlap)} with votes, ${m(independent.overlap)} without.`,
    },
    {
      claim: '1,600 pages: exchanging votes costs independent community crawlers no more than 2 points of precision.',
      holds: shared.precision.mean >= independent.precision.mean - 0.02,
      evidence: `precision ${m(shared.precision)} with votes, ${m(independent.precision)} without.`,
    },
  );
  return { lines, verdicts };
}
