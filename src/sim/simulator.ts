/**
 * The virtual crawler (SPEC §6; seed 004 §5–6, the "virtual crawler" run over a stored copy of the
 * Web): a crawl of N nodes over a stored graph, on a virtual clock, with the ordering policies,
 * partitioners and frontier of a real crawl.
 *
 * Each node (`sim-node.ts`) has a frontier with per-host politeness, its own policy object, a
 * URL-seen bitmap and `concurrency` fetch slots. A free slot leases the best page its frontier may
 * hand out now; the fetch completes after the host's latency (`latency.ts`); then the node follows
 * the page (observe, priority changes, its out-links placed, queued or sent) and completes the lease,
 * which sets the host's next contact. URLs, boundary pages and link summaries travel between nodes
 * as messages delivered after the exchange delay. Everything happens on one agenda of events in
 * time order (`event-queue.ts`), ties in the order scheduled, so a run is deterministic.
 *
 * The crawl stops once `maxPages` fetches have started (those in flight complete and are followed,
 * as in a real crawl) or when nothing is left to fetch or deliver. What was visited, when and by
 * which node is recorded in order of completion (`visit-log.ts`).
 *
 * What is modelled and what is not: see docs/simulator.md.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ConfigError } from '../core/errors.js';
import { BufferLogRecorder, type BufferLog } from '../eval/ordering-buffer.js';
import { canEstimateImportance, canObserveRemoteLinks, type OrderingPolicy, type OrderingPolicySpec } from '../order/policy.js';
import type { PartitionerSpec, Partitioner } from '../partition/partitioner.js';
import { readsCitations } from '../partition/community/community.js';
import { defaultForwardMode, defaultLinkSummaryIntervalMs, type ForwardMode } from '../partition/registry.js';
import { EventQueue, SimEventKind } from './event-queue.js';
import { policyNeedsProblem, type SimGraph } from './graph/sim-graph.js';
import { PageBits } from './page-bits.js';
import { SimPlacer } from './placement.js';
import { SIM_NEXT_WAIT } from './sim-frontier.js';
import type { ActivityCapOptions } from '../frontier/activity-cap.js';
import { SimNode, type SimExchangePort, type SimNodeCounts } from './sim-node.js';
import { VisitLog, type Visits } from './visit-log.js';

/** Politeness of every simulated node (the crawl's `politeness` section). */
export interface SimPoliteness {
  /** Smallest gap between two contacts of a host, ms. Default 1000. */
  readonly minDelayMs?: number;
  /** The gap is at least delayFactor × the host's fetch time, up to `maxDelayMs`. Default 5. */
  readonly delayFactor?: number;
  /** Cap on the delayFactor × fetch-time part of the gap, ms. Default 30,000. */
  readonly maxDelayMs?: number;
  /** Fetches in flight per host at most. Default 1. */
  readonly maxConnectionsPerHost?: number;
  /** Fetches in flight per IP address at most, when the graph knows addresses. Default 1. */
  readonly maxConnectionsPerIp?: number;
  /** robots.txt Crawl-delay values above this are read as this, ms. Default 60,000. */
  readonly maxCrawlDelayMs?: number;
  /** X4's per-host activity cap (`frontier/activity-cap.ts`), per node. Default null: off. */
  readonly activityCap?: ActivityCapOptions | null;
}

/** Options of {@link simulate}. */
export interface SimulationOptions {
  readonly graph: SimGraph;
  /** A fresh policy object for node `node` (each node has its own, as each crawl node does). */
  readonly createPolicy: (node: number) => OrderingPolicy;
  /** Nodes N (partitions, node i owning partition i). Default 1. */
  readonly nodeCount?: number;
  /** The partitioner, with `partitionCount` = N; required when N > 1. */
  readonly partitioner?: Partitioner | null;
  /** What goes between nodes; default the strategy's own (`defaultForwardMode`). */
  readonly forward?: ForwardMode;
  /** Seed pages in order; default the graph's. */
  readonly seeds?: ArrayLike<number>;
  /** Stop after starting this many fetches (over all nodes); null = until nothing is left. Default null. */
  readonly maxPages?: number | null;
  /** Fetch slots per node. Default 32. */
  readonly concurrency?: number;
  readonly politeness?: SimPoliteness;
  /** Fetch time of each host, ms (one per host), or one value for every host. Default 100. */
  readonly latencyMs?: Float64Array | number;
  /** Virtual time a message takes from one node to another, ms. Default 250. */
  readonly exchangeDelayMs?: number;
  /** How often nodes send link summaries, ms of virtual time; 0 = never. Default 10,000. */
  readonly linkSummaryIntervalMs?: number;
  /** Record the offers and estimates the Limited Buffer model (PBC) replays. Default false. */
  readonly isBufferRecorded?: boolean;
  /** Called every `progressEveryVisits` visits and at the end. */
  readonly onProgress?: (progress: SimProgress) => void;
  /** Default 10,000. */
  readonly progressEveryVisits?: number;
  /** Stops the run (stop reason `interrupted`); checked between events. */
  readonly signal?: AbortSignal;
}

/** A progress report. */
export interface SimProgress {
  readonly visits: number;
  readonly virtualMs: number;
  /** Pages queued over all nodes. */
  readonly queued: number;
  readonly wallMs: number;
}

/** Why a run ended. */
export type SimStopReason = 'max-pages' | 'exhausted' | 'interrupted';

/** One node's figures at the end of a run. */
export interface SimNodeResult extends SimNodeCounts {
  readonly node: number;
  /** Pages still queued when the run ended. */
  readonly queuedLeft: number;
}

/** What a run produced. */
export interface SimulationRun {
  readonly policy: OrderingPolicySpec;
  readonly partitioner: PartitionerSpec | null;
  readonly nodeCount: number;
  readonly forward: ForwardMode;
  readonly stopReason: SimStopReason;
  readonly visits: Visits;
  readonly nodes: readonly SimNodeResult[];
  /** Virtual time of the last event handled, ms. */
  readonly virtualMs: number;
  /** Wall-clock time the run took, ms. */
  readonly wallMs: number;
  /** Messages between nodes: URL batches, forwarded pages, link summaries. */
  readonly messages: { readonly urlBatches: number; readonly pages: number; readonly linkSummaries: number };
  /** The Limited Buffer log (offers at each first visit with the policy's estimate, re-keys); null unless recorded and the policy can estimate. */
  readonly bufferLog: BufferLog | null;
}

type Message =
  | { readonly kind: 'urls'; readonly pages: readonly number[]; readonly depths: readonly number[]; readonly edges: readonly number[] }
  | { readonly kind: 'page'; readonly page: number; readonly depth: number }
  | {
      readonly kind: 'links';
      readonly from: number;
      readonly pages: readonly number[];
      readonly counts: readonly number[];
      readonly shares?: readonly number[];
      readonly outDegrees?: readonly number[];
    };

/** Events handled between two checks of the wall clock (yield, abort). */
const EVENTS_PER_CHECK = 4096;
/** Longest stretch of work before the run lets the event loop turn (Ctrl-C, progress output), ms. */
const MAX_BUSY_MS = 50;

/**
 * Runs a simulated crawl; see the file comment.
 * @throws RangeError on inconsistent options (N > 1 without a partitioner of N partitions, a seed
 *   that is not a page, a latency array of the wrong length); ConfigError for a policy that reads
 *   URLs, anchors or text the graph does not have.
 */
export async function simulate(options: SimulationOptions): Promise<SimulationRun> {
  const t0 = performance.now();
  const { graph } = options;
  const n = options.nodeCount ?? 1;
  const partitioner = options.partitioner ?? null;
  if (!Number.isInteger(n) || n < 1 || n > 0xffff) throw new RangeError(`simulate: nodeCount must be an integer in [1, 65535], got ${n}`);
  if (n > 1 && partitioner === null) throw new RangeError('simulate: a crawl of several nodes needs a partitioner');
  if (partitioner !== null && partitioner.partitionCount !== n) {
    throw new RangeError(`simulate: the partitioner has ${partitioner.partitionCount} partitions for ${n} nodes`);
  }
  const forward: ForwardMode = options.forward ?? (partitioner === null ? 'urls' : defaultForwardMode(partitioner));
  const latency =
    typeof options.latencyMs === 'number' || options.latencyMs === undefined
      ? new Float64Array(graph.hosts.count).fill(options.latencyMs ?? 100)
      : options.latencyMs;
  if (latency.length !== graph.hosts.count)
    throw new RangeError(`simulate: ${latency.length} host latencies for ${graph.hosts.count} hosts`);
  const seeds = options.seeds ?? graph.seeds;
  for (let i = 0; i < seeds.length; i++) {
    const s = seeds[i] as number;
    if (!(Number.isInteger(s) && s >= 0 && s < graph.pageCount)) throw new RangeError(`simulate: seed ${s} is not a page of the graph`);
  }
  const maxPages = options.maxPages ?? null;
  const concurrency = options.concurrency ?? 32;
  const pol = options.politeness ?? {};
  const maxCrawlDelayMs = pol.maxCrawlDelayMs ?? 60_000;
  const crawlDelays = graph.hosts.crawlDelayMs;
  const exchangeDelayMs = options.exchangeDelayMs ?? 250;
  const summaryIntervalMs =
    n > 1 && partitioner !== null ? (options.linkSummaryIntervalMs ?? defaultLinkSummaryIntervalMs(partitioner)) : 0;

  let now = 0;
  let started = 0;
  let isStopping = maxPages === 0;
  let stopReason: SimStopReason = isStopping ? 'max-pages' : 'exhausted';
  const queue = new EventQueue();
  const messages = new Map<number, Message>();
  let nextMessage = 0;
  const messageCounts = { urlBatches: 0, pages: 0, linkSummaries: 0 };
  const send = (
    to: number,
    kind: typeof SimEventKind.urls | typeof SimEventKind.page | typeof SimEventKind.links,
    message: Message,
  ): void => {
    const ref = nextMessage++;
    messages.set(ref, message);
    queue.push(now + exchangeDelayMs, kind, to, ref);
  };
  const exchange: SimExchangePort = {
    sendUrls: (_from, to, pages, depths, edges) => {
      messageCounts.urlBatches++;
      send(to, SimEventKind.urls, { kind: 'urls', pages, depths, edges });
    },
    sendPage: (_from, to, page, depth) => {
      messageCounts.pages++;
      send(to, SimEventKind.page, { kind: 'page', page, depth });
    },
    sendLinks: (from, to, pages, counts, shares, outDegrees) => {
      messageCounts.linkSummaries++;
      send(to, SimEventKind.links, {
        kind: 'links',
        from,
        pages,
        counts,
        ...(shares === undefined ? {} : { shares }),
        ...(outDegrees === undefined ? {} : { outDegrees }),
      });
    },
  };

  const placer = partitioner === null ? null : new SimPlacer(graph, partitioner);
  const ips = graph.hosts.ips;
  const policies = Array.from({ length: n }, (_, k) => options.createPolicy(k));
  const firstPolicy = policies[0] as OrderingPolicy;
  // runSimulation checks every policy before its first run; a direct caller is checked here.
  const problem = policyNeedsProblem(firstPolicy, graph);
  if (problem !== null) throw new ConfigError([{ path: 'order', message: problem }]);
  const isSummarizing =
    summaryIntervalMs > 0 && (policies.some(canObserveRemoteLinks) || (partitioner !== null && readsCitations(partitioner)));
  const nodes = policies.map(
    (policy, k) =>
      new SimNode(k, policy, {
        graph,
        placer,
        exchange,
        isSummarizing,
        isForwardingUrls: forward !== 'pages',
        isForwardingPages: forward !== 'urls',
        frontier: {
          minDelayMs: pol.minDelayMs ?? 1000,
          delayFactor: pol.delayFactor ?? 5,
          maxDelayMs: pol.maxDelayMs ?? 30_000,
          maxConnectionsPerHost: pol.maxConnectionsPerHost ?? 1,
          maxConnectionsPerIp: pol.maxConnectionsPerIp ?? 1,
          activityCap: pol.activityCap ?? null,
          fetchSlots: concurrency,
          ...(ips === null ? {} : { ipOf: (h: number) => ips[h] }),
        },
      }),
  );

  const visits = new VisitLog(Math.min(maxPages ?? graph.pageCount, graph.pageCount) + 1);
  const recorder = options.isBufferRecorded === true && canEstimateImportance(firstPolicy) ? new BufferLogRecorder() : null;
  const visited = recorder === null ? null : new PageBits(graph.pageCount);
  const progressEvery = options.progressEveryVisits ?? 10_000;

  const pump = (node: SimNode): void => {
    while (!isStopping && node.inFlight < concurrency) {
      const page = node.frontier.next(now);
      if (page >= 0) {
        node.inFlight++;
        started++;
        queue.push(now + (latency[graph.pageHost[page] as number] as number), SimEventKind.fetchDone, node.index, page);
        if (maxPages !== null && started >= maxPages) {
          isStopping = true;
          stopReason = 'max-pages';
        }
        continue;
      }
      if (page === SIM_NEXT_WAIT) {
        const until = node.frontier.waitUntilMs;
        if (Number.isFinite(until) && until < node.wakeAtMs) {
          node.wakeAtMs = until;
          queue.push(until, SimEventKind.wake, node.index, 0);
        }
      }
      return;
    }
  };

  const fetchDone = (node: SimNode, page: number): void => {
    visits.record(page, now, node.index);
    const isFirst = visited?.testAndAdd(page) ?? false;
    node.fetched(page, now);
    if (recorder !== null) recordBuffer(recorder, visited as PageBits, node.policy, graph, page, isFirst);
    const host = graph.pageHost[page] as number;
    const crawlDelay = crawlDelays === null ? 0 : Math.min(maxCrawlDelayMs, crawlDelays[host] as number);
    node.frontier.complete(page, latency[host] as number, crawlDelay, now);
    node.inFlight--;
    if (options.onProgress !== undefined && visits.count % progressEvery === 0) {
      options.onProgress({ visits: visits.count, virtualMs: now, queued: queuedOf(nodes), wallMs: performance.now() - t0 });
    }
  };

  nodes.forEach((node) => {
    for (let i = 0; i < seeds.length; i++) node.seed(seeds[i] as number, i, now);
  });
  if (isSummarizing) queue.push(summaryIntervalMs, SimEventKind.summaryTick, 0, 0);
  for (const node of nodes) pump(node);

  let events = 0;
  let lastTurn = performance.now();
  const ev = queue.popped;
  for (;;) {
    if (isStopping && nodes.every((node) => node.inFlight === 0)) break;
    if (!queue.pop()) break;
    now = ev.timeMs;
    const node = nodes[ev.node] as SimNode;
    switch (ev.kind) {
      case SimEventKind.fetchDone:
        fetchDone(node, ev.ref);
        break;
      case SimEventKind.urls: {
        const m = messages.get(ev.ref) as Extract<Message, { kind: 'urls' }>;
        messages.delete(ev.ref);
        if (!isStopping) node.receiveUrls(m.pages, m.depths, m.edges, now);
        break;
      }
      case SimEventKind.page: {
        const m = messages.get(ev.ref) as Extract<Message, { kind: 'page' }>;
        messages.delete(ev.ref);
        if (!isStopping) node.receivePage(m.page, m.depth, now);
        break;
      }
      case SimEventKind.links: {
        const m = messages.get(ev.ref) as Extract<Message, { kind: 'links' }>;
        messages.delete(ev.ref);
        if (!isStopping) node.receiveLinks(m.pages, m.counts, m.from, m.shares, m.outDegrees);
        break;
      }
      case SimEventKind.wake:
        if (node.wakeAtMs === now) node.wakeAtMs = Number.POSITIVE_INFINITY;
        break;
      case SimEventKind.summaryTick:
        for (const each of nodes) each.flushSummaries();
        // Ticks go on only while something else may still happen.
        if (queue.size > 0 || nodes.some((each) => each.inFlight > 0)) queue.push(now + summaryIntervalMs, SimEventKind.summaryTick, 0, 0);
        break;
    }
    if (ev.kind !== SimEventKind.summaryTick) pump(node);
    if (++events % EVENTS_PER_CHECK === 0 && performance.now() - lastTurn > MAX_BUSY_MS) {
      await nextTurn();
      lastTurn = performance.now();
      if (options.signal?.aborted === true && !isStopping) {
        isStopping = true;
        stopReason = 'interrupted';
      }
    }
  }
  options.onProgress?.({ visits: visits.count, virtualMs: now, queued: queuedOf(nodes), wallMs: performance.now() - t0 });

  return {
    policy: firstPolicy.spec,
    partitioner: partitioner?.spec ?? null,
    nodeCount: n,
    forward,
    stopReason,
    visits: visits.visits(),
    nodes: nodes.map((node) => ({ node: node.index, ...node.counts, queuedLeft: node.frontier.queued })),
    virtualMs: now,
    wallMs: performance.now() - t0,
    messages: messageCounts,
    bufferLog: recorder?.log() ?? null,
  };
}

function queuedOf(nodes: readonly SimNode[]): number {
  let q = 0;
  for (const node of nodes) q += node.frontier.queued;
  return q;
}

/**
 * The Limited Buffer's view of a visit: a page visited for the first time is offered with the
 * visiting node's estimate of it, and the estimates of pages already visited that it links to (which
 * it just raised, for IB′) are updated. Estimates that move for other reasons (IR′ recomputed) are
 * only seen when one of these two happens to the page.
 */
function recordBuffer(
  recorder: BufferLogRecorder,
  visited: PageBits,
  policy: OrderingPolicy,
  graph: SimGraph,
  page: number,
  isFirst: boolean,
): void {
  if (!canEstimateImportance(policy)) return;
  if (isFirst) recorder.offer(page, policy.estimate(page));
  const { offsets, targets } = graph.csr;
  const end = offsets[page + 1] as number;
  for (let e = offsets[page] as number; e < end; e++) {
    const v = targets[e] as number;
    if (v !== page && visited.has(v)) recorder.rekey(v, policy.estimate(v));
  }
}
