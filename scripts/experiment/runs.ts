/**
 * The simulated crawls of `npm run experiment:cho`: the ordering policies of seed 004 §6–7 as shoal's
 * policy sections, and one `simulate()` run per policy over a graph, either as the paper's virtual
 * crawler (one fetch slot, no delay, k = 0, fetches take no time) or with shoal's default politeness.
 * A run's visit order does not depend on the importance metric, so one run serves every experiment
 * that uses its policy.
 */
import type { OrderingPolicySpec } from '../../src/order/policy.js';
import { orderPolicySchema, orderingPolicyFrom, type OrderPolicyConfig, type OrderPolicyInput } from '../../src/order/registry.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';
import { simConfigSchema } from '../../src/sim/sim-config.js';
import { simulate, type SimStopReason } from '../../src/sim/simulator.js';

/** Weight of the hot queue in a combination: any hot URL outranks every cold one. */
export const HOT_WEIGHT = 1e6;

/** A policy of the experiment: a key for the run cache, a legend label and its section. */
export interface PolicyDef {
  readonly key: string;
  readonly label: string;
  readonly config: OrderPolicyConfig;
}

/** One run's result. */
export interface PolicyRun {
  readonly def: PolicyDef;
  /** The spec of the policy the run used, with every parameter. */
  readonly spec: OrderingPolicySpec;
  /** Page of each visit, in order. */
  readonly visits: Uint32Array;
  readonly wallMs: number;
  readonly virtualMs: number;
  readonly stopReason: SimStopReason;
  readonly isPolite: boolean;
}

const def = (key: string, label: string, input: OrderPolicyInput): PolicyDef => ({ key, label, config: orderPolicySchema.parse(input) });

/** A policy section that may be a component of a weighted combination. */
type SingleSection = Exclude<OrderPolicyInput, { readonly policy: 'weighted' }>;

/** The section of IR′, with the recomputation period it always sets. */
type PageRankSection = Extract<SingleSection, { readonly policy: 'pagerank' }> & { readonly recomputeEvery: number };

/**
 * IR′ as the experiment runs it: recomputed every 1 % of the graph (a fixed period, `recomputeGrowth: 0`,
 * as close as a period gets to the paper's recomputation before each choice), each recomputation at once.
 */
export function pagerankSection(pageCount: number): PageRankSection {
  return { policy: 'pagerank', recomputeEvery: Math.max(1, Math.ceil(pageCount / 100)), recomputeGrowth: 0, sliceWork: 0 };
}

/** The orderings of seed 004 §6 (Figure 2) and the random one. */
export function backlinkPolicies(pageCount: number): PolicyDef[] {
  return [
    def('bfs', 'breadth-first', { policy: 'bfs' }),
    def('backlink', 'IB′ (backlink)', { policy: 'backlink' }),
    def('pagerank', 'IR′ (pagerank)', pagerankSection(pageCount)),
    def('random', 'random ordering', { policy: 'random' }),
  ];
}

/**
 * The hot-queue crawlers of seed 004 §7 for `word`: breadth-first, IB′ and IR′, each behind the hot
 * queue; `hotDistance` 0 is Figure 4 (anchor and URL only), 3 is Figure 5 (and within 3 links of a
 * hot page).
 */
export function hotQueuePolicies(pageCount: number, word: string, hotDistance: 0 | 3): PolicyDef[] {
  const hot: SingleSection = { policy: 'hot-queue', terms: [word], hotDistance };
  const tag = hotDistance === 0 ? 'hot queue' : 'modified hot queue';
  const key = hotDistance === 0 ? 'hot0' : 'hot3';
  const behind = (base: SingleSection): OrderPolicyInput => ({
    policy: 'weighted',
    components: [
      { policy: hot, weight: HOT_WEIGHT },
      { policy: base, weight: 1 },
    ],
  });
  return [
    def(`${key}-bfs`, `breadth-first + ${tag}`, hot),
    def(`${key}-backlink`, `IB′ + ${tag}`, behind({ policy: 'backlink' })),
    def(`${key}-pagerank`, `IR′ + ${tag}`, behind(pagerankSection(pageCount))),
  ];
}

/** The settings of the polite runs: the simulator's defaults (those of a crawl). */
export function politeSettings(): {
  readonly concurrency: number;
  readonly latencyMs: number;
  readonly minDelayMs: number;
  readonly k: number;
} {
  const d = simConfigSchema.parse({});
  return { concurrency: d.limits.concurrency, latencyMs: d.latency.ms, minDelayMs: d.politeness.minDelayMs, k: d.politeness.delayFactor };
}

/**
 * Runs `policy` over `graph` from `seeds`: as the paper's virtual crawler, or (`isPolite`) with the
 * simulator's defaults: 32 fetch slots, 100 ms per fetch, min delay 1 s, k = 5, one connection per
 * host and per address, robots.txt Crawl-delays of the test web.
 */
export async function runPolicy(graph: SimGraph, seeds: Uint32Array, policy: PolicyDef, isPolite: boolean): Promise<PolicyRun> {
  const d = simConfigSchema.parse({});
  const run = await simulate({
    graph,
    seeds,
    createPolicy: () => orderingPolicyFrom(policy.config, {}),
    ...(isPolite
      ? {
          concurrency: d.limits.concurrency,
          latencyMs: d.latency.ms,
          politeness: {
            minDelayMs: d.politeness.minDelayMs,
            delayFactor: d.politeness.delayFactor,
            maxConnectionsPerHost: d.politeness.maxConnectionsPerHost,
            maxConnectionsPerIp: d.politeness.maxConnectionsPerIp,
            maxCrawlDelayMs: d.politeness.maxCrawlDelayMs,
          },
        }
      : { concurrency: 1, latencyMs: 0, politeness: { minDelayMs: 0, delayFactor: 0 } }),
    progressEveryVisits: Number.MAX_SAFE_INTEGER,
  });
  return {
    def: policy,
    spec: run.policy,
    visits: run.visits.pages.slice(0, run.visits.count),
    wallMs: run.wallMs,
    virtualMs: run.virtualMs,
    stopReason: run.stopReason,
    isPolite,
  };
}
