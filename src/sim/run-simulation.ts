/**
 * A whole simulation as `shoal simulate` runs it, callable from TypeScript: read the graph, check
 * that every policy can be served by it, build the partitioner and the host latencies, run one
 * simulated crawl per ordering policy (same graph, seeds, nodes and politeness), then evaluate the
 * runs (`evaluation.ts`, `collab.ts`) into a {@link SimResultDoc} and curves. Writing the files is
 * `outputs.ts`'s job.
 */
import { loadTopicModel } from '../classify/model-loader.js';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import type { Curve } from '../eval/ordering-models.js';
import { specLabel } from '../core/strings.js';
import { orderPolicySchema, type OrderModels, type OrderPolicyConfig } from '../order/registry.js';
import { createPartitioner } from '../partition/registry.js';
import { simCollaborationMetrics, simCommunityScores } from './collab.js';
import { baselineCurves, evalContext, runCurves } from './evaluation.js';
import { loadSimGraph } from './graph/load-graph.js';
import { policyNeedsProblem, type SimGraph } from './graph/sim-graph.js';
import { hostLatencies } from './latency.js';
import { topicModelOfGraph } from './placement.js';
import { policyFactory, type PolicyFactory } from './policies.js';
import { SIM_FILES, SIM_RESULT_FORMAT, SIM_RESULT_VERSION, summarizeRun, SUMMARY_AT, type SimResultDoc, type SimRunDoc } from './result.js';
import type { SimConfig } from './sim-config.js';
import { simulate, type SimProgress, type SimulationRun } from './simulator.js';

/** Options of {@link runSimulation}. */
export interface RunSimulationOptions {
  /** Stops the current run (its partial result is kept) and skips the others. */
  readonly signal?: AbortSignal;
  /** Progress of run `index` (0-based) of `total`. */
  readonly onProgress?: (label: string, index: number, total: number, progress: SimProgress) => void;
  /** Status lines (graph read, run done). */
  readonly onStatus?: (line: string) => void;
}

/** What {@link runSimulation} produced. */
export interface SimulationOutcome {
  /** The graph, still open (outputs name pages through it): `close()` it when done. */
  readonly graph: SimGraph;
  readonly result: SimResultDoc;
  /** Every curve: each run's, then the random and ideal crawlers'. */
  readonly curves: readonly Curve[];
  /** The raw runs (visit orders), parallel to `result.runs`. */
  readonly runs: readonly SimulationRun[];
  /** Whether the user stopped the simulation. */
  readonly isInterrupted: boolean;
}

/**
 * The legend label of a policy section: its id, with the parameters that differ from their defaults
 * in parentheses (`pagerank(recomputeEvery=10000)`); required parameters (a similarity query) always.
 */
export function policyLabel(config: OrderPolicyConfig): string {
  const params: Record<string, string | number | boolean | readonly string[]> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'policy') continue;
    // A default is what the section gets without the key; a required key has none.
    const rest: Record<string, unknown> = { ...config };
    delete rest[key];
    const without = orderPolicySchema.safeParse(rest);
    if (without.success && JSON.stringify((without.data as Record<string, unknown>)[key]) === JSON.stringify(value)) continue;
    params[key] = typeof value === 'object' && value !== null ? JSON.stringify(value) : (value as string | number | boolean);
  }
  return specLabel({ id: config.policy, params });
}

/** Seeds: the graph's own, or the pages the configuration names. @throws ConfigError naming unknown seeds. */
function seedsOf(graph: SimGraph, names: readonly string[]): Uint32Array {
  if (names.length === 0) {
    if (graph.seeds.length === 0) throw new ConfigError([{ path: 'graph.seeds', message: 'the graph names no seeds: give some (--seed)' }]);
    return graph.seeds;
  }
  const ids = names.map((name) => graph.pageIdOf(name));
  const unknown = names.filter((_, i) => (ids[i] as number) < 0);
  if (unknown.length > 0)
    throw new ConfigError(unknown.map((name) => ({ path: 'graph.seeds', message: `${JSON.stringify(name)} names no page of the graph` })));
  return Uint32Array.from(ids);
}

/**
 * The models the policies read: the shipped topic model for a `topic` policy (a simulated node owns
 * no partition's categories, so the section names them).
 */
function orderModelsFor(order: readonly OrderPolicyConfig[]): OrderModels {
  const isTopic = (c: OrderPolicyConfig): boolean =>
    c.policy === 'topic' || (c.policy === 'weighted' && c.components.some((k) => k.policy.policy === 'topic'));
  return order.some(isTopic) ? { topic: { classifier: loadTopicModel(null).classifier, categories: null } } : {};
}

/** The policies' factories, after checking that the graph gives each what it reads. */
function policiesFor(graph: SimGraph, order: readonly OrderPolicyConfig[]): PolicyFactory[] {
  const models = orderModelsFor(order);
  const factories = order.map((config, i) => policyFactory(config, i, models));
  const issues: ConfigIssue[] = [];
  factories.forEach((factory, i) => {
    const problem = policyNeedsProblem(factory, graph);
    if (problem !== null) issues.push({ path: `order.${i}`, message: problem });
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return factories;
}

/**
 * Runs the simulation `config` describes; see the file comment.
 * @throws ConfigError for what the configuration asks and the graph cannot give (policies' needs,
 *   seeds, a topic, truth-topic without labels, measured latency without a crawl log); ShoalError
 *   for an unreadable graph.
 */
export async function runSimulation(config: SimConfig, options: RunSimulationOptions = {}): Promise<SimulationOutcome> {
  const status = options.onStatus ?? (() => {});
  const t0 = performance.now();
  const graph = await loadSimGraph(config.graph.paths, config.graph.format, {
    rebuildContent: config.graph.rebuildContent,
    withContent: config.graph.crawlContent,
  });
  try {
    status(
      `graph: ${graph.format} ${graph.source}: ${graph.pageCount.toLocaleString('en-US')} pages, ${graph.linkCount.toLocaleString('en-US')} links, ` +
        `${graph.hosts.count.toLocaleString('en-US')} hosts (read in ${Math.round(performance.now() - t0)} ms)`,
    );
    const seeds = seedsOf(graph, config.graph.seeds);
    const factories = policiesFor(graph, config.order);
    const partitioner =
      config.nodes === 1
        ? null
        : createPartitioner(config.partition, config.nodes, {
            ...(graph.labels === null ? {} : { topics: topicModelOfGraph(graph) ?? undefined }),
          });
    let latencyMs: Float64Array;
    try {
      latencyMs = hostLatencies(config.latency, graph.hosts.count, graph.hosts.measuredLatencyMs);
    } catch (err) {
      throw new ConfigError([{ path: 'latency.model', message: (err as Error).message }], { cause: err });
    }
    const ctx = evalContext(graph, seeds, config.eval);
    const reachable = config.nodes > 1 ? ctx.reachable : null;

    const runs: SimulationRun[] = [];
    const docs: SimRunDoc[] = [];
    const curves: Curve[] = [];
    const labels = config.order.map(policyLabel);
    for (const [i, make] of factories.entries()) {
      if (options.signal?.aborted === true) break;
      const label = labels[i] as string;
      const run = await simulate({
        graph,
        createPolicy: make,
        nodeCount: config.nodes,
        partitioner,
        forward: config.forward ?? undefined,
        seeds,
        maxPages: config.limits.maxPages,
        concurrency: config.limits.concurrency,
        politeness: {
          minDelayMs: config.politeness.minDelayMs,
          delayFactor: config.politeness.delayFactor,
          maxDelayMs: config.politeness.maxDelayMs,
          maxConnectionsPerHost: config.politeness.maxConnectionsPerHost,
          maxConnectionsPerIp: config.politeness.maxConnectionsPerIp,
          maxCrawlDelayMs: config.politeness.maxCrawlDelayMs,
          activityCap:
            config.politeness.maxHostShare === null
              ? null
              : { maxShare: config.politeness.maxHostShare, windowMs: config.politeness.hostShareWindowMs },
        },
        latencyMs,
        exchangeDelayMs: config.exchange.delayMs,
        ...(config.exchange.linkSummaryIntervalMs === null ? {} : { linkSummaryIntervalMs: config.exchange.linkSummaryIntervalMs }),
        isBufferRecorded: config.eval.bufferPages !== null,
        progressEveryVisits: config.output.progressEveryPages,
        ...(options.onProgress === undefined
          ? {}
          : { onProgress: (p: SimProgress) => options.onProgress?.(label, i, factories.length, p) }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      runs.push(run);
      const runCurveList = runCurves(ctx, graph, { label, policy: run.policy, visitPages: run.visits.pages, bufferLog: run.bufferLog });
      curves.push(...runCurveList);
      docs.push(runDoc(graph, run, label, i, config, runCurveList, reachable));
      status(`${label}: ${run.visits.count.toLocaleString('en-US')} visits in ${(run.wallMs / 1000).toFixed(1)} s (${run.stopReason})`);
      if (run.stopReason === 'interrupted') break;
    }
    curves.push(...baselineCurves(ctx));
    const models = [...new Set(curves.map((c) => c.spec.id))];
    const result: SimResultDoc = {
      format: SIM_RESULT_FORMAT,
      version: SIM_RESULT_VERSION,
      graph: {
        format: graph.format,
        source: graph.source,
        pages: graph.pageCount,
        links: graph.linkCount,
        hosts: graph.hosts.count,
        seeds: seeds.length,
        hasUrls: graph.hasUrls,
        hasAnchors: graph.anchorOf !== null,
        hasText: graph.contentOf !== null,
      },
      config,
      evaluation: {
        scope: ctx.scope,
        pages: ctx.pages,
        importance: ctx.importance.spec,
        threshold: ctx.threshold,
        hotPages: ctx.hotPages,
        weights: ctx.weights.spec,
        bufferPages: ctx.bufferPages,
        summaryAt: SUMMARY_AT,
      },
      runs: docs,
      charts: Object.fromEntries(models.map((m) => [m, m === 'pst' ? SIM_FILES.chart : `chart-${m}.svg`])),
    };
    return {
      graph,
      result,
      curves,
      runs,
      isInterrupted: runs.some((r) => r.stopReason === 'interrupted') || runs.length < factories.length,
    };
  } catch (err) {
    graph.close();
    throw err;
  }
}

function runDoc(
  graph: SimGraph,
  run: SimulationRun,
  label: string,
  index: number,
  config: SimConfig,
  curves: readonly Curve[],
  reachable: Uint8Array | null,
): SimRunDoc {
  const seen = new Uint8Array(graph.pageCount);
  let unique = 0;
  for (const p of run.visits.pages) {
    if (seen[p] === 0) {
      seen[p] = 1;
      unique++;
    }
  }
  return {
    label,
    policy: run.policy,
    partitioner: run.partitioner,
    nodeCount: run.nodeCount,
    forward: run.forward,
    stopReason: run.stopReason,
    visits: run.visits.count,
    uniquePages: unique,
    virtualMs: run.virtualMs,
    wallMs: run.wallMs,
    pagesPerSecond: run.wallMs > 0 ? (1000 * run.visits.count) / run.wallMs : 0,
    messages: run.messages,
    nodes: run.nodes,
    summary: summarizeRun(curves, label),
    collaboration: reachable === null ? null : simCollaborationMetrics(graph, run, reachable),
    community: graph.labels?.community == null ? null : simCommunityScores(graph.csr, graph.labels.community, run),
    visitsFile: config.output.hasVisits ? `visits-${index + 1}-${run.policy.id}.tsv` : null,
  };
}
