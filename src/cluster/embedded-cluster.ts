/**
 * An embedded collaborative crawl (SPEC §4): `cluster.nodes` local crawlers in this process, node i
 * owning partition i, trading URLs through an in-memory exchange. Each node is a complete crawler
 * with its own crawl directory (`<out>/nodes/<nodeId>-<i>`), frontier, URL-seen set, robots.txt
 * cache, fetcher and WARC files; they share the process's parse workers, the `maxPages` limit and
 * `limits.concurrency` (split evenly). `<out>/cluster.json` records who owns what; a rerun on the
 * same directory must use the same nodes and strategy, and resumes every node.
 *
 * The crawl ends when every node is idle (frontier empty, nothing being fetched, admitted,
 * delivered or batched) and no message is between nodes, twice in a row a check apart; or when a
 * limit stops one node (the others stop for the same reason); or on the caller's signal.
 */
import { getMaxListeners, setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { Exchange } from '../exchange/exchange.js';
import { MemoryExchange, MemoryExchangeHub } from '../exchange/memory/memory-exchange.js';
import { analyzerOf, buildNode, type NodeComponents, type NodeDeps } from '../node/build-node.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import { crawlDirLayout, expectCrawlDirKind, lockCrawlDir, type ClusterManifest } from '../store/crawl-dir.js';
import { writeManifest } from './manifest.js';
import { ProgressCombiner, stopReasonOf } from './progress-combiner.js';
import type { CrawlNode } from '../node/crawl-node.js';
import type { CrawlSummary } from '../node/crawl-stats.js';
import { SystemClock } from '../core/clock.js';
import { diagnosticsEvents, StopReason } from '../obs/events.js';
import { combineSummaries } from './cluster-summary.js';
import { partitionModelsOf } from './partition-models.js';
import { memberCitiesOf } from './read-geo.js';
import { liveCommunitiesOf } from './read-community.js';
import { ThreadedCluster } from './threaded-cluster.js';
import { WorkerPageAnalyzer } from '../node/analysis/page-analyzer.js';
import { createPartitioner, defaultForwardMode, type PartitionModels } from '../partition/registry.js';
import type { Partitioner } from '../partition/partitioner.js';

/** Options of {@link EmbeddedCluster}. */
export interface EmbeddedClusterOptions {
  /** Clock, events (shared); each node writes its own log in its directory unless `log` is given. */
  readonly deps?: Partial<NodeDeps>;
  /** Components for every node; only those safe to share (the analyzer) are honoured. */
  readonly components?: Pick<NodeComponents, 'analyzer'>;
  /** Models that strategies read (the true topic labels of `truth-topic`). */
  readonly models?: PartitionModels;
  /** How often the end of the crawl is checked for, ms. Default 100. */
  readonly checkIntervalMs?: number;
  /** Largest page message the exchange carries, as a broker's limit would (tests); default: no limit. */
  readonly maxMessageBytes?: number;
}

/** See the file comment. */
export class EmbeddedCluster {
  constructor(
    private readonly config: CrawlConfig,
    private readonly options: EmbeddedClusterOptions = {},
  ) {}

  /**
   * Crawls with every node until the crawl as a whole ends; closes everything; resolves to the
   * crawl's summary (counts added over the nodes, `cluster.nodes` for each node's own).
   */
  async run(signal: AbortSignal): Promise<CrawlSummary> {
    const config = this.config;
    const outDir = config.store.outDir;
    if (outDir === null) throw new ConfigError([{ path: 'store.outDir', message: 'the crawl directory is required (--out DIR)' }]);
    const n = config.cluster.nodes;
    const partitioner = createPartitioner(config.cluster.partition, n, this.options.models ?? (await partitionModelsOf(config)));
    const forward = config.cluster.forward ?? defaultForwardMode(partitioner);
    // The crawl as a whole is locked first (each node then locks its own directory as it is built).
    const lock = lockCrawlDir(crawlDirLayout(outDir));
    try {
      expectCrawlDirKind(outDir, 'cluster');
      const manifest = writeManifest(outDir, config, partitioner, forward);
      if (config.cluster.workers > 0) return await new ThreadedCluster(config, manifest, partitioner, this.options.deps ?? {}).run(signal);
      return await this.runHere(signal, outDir, manifest, partitioner, forward);
    } finally {
      lock.release();
    }
  }

  /** Runs every node in this thread. */
  private async runHere(
    signal: AbortSignal,
    outDir: string,
    manifest: ClusterManifest,
    partitioner: Partitioner,
    forward: ClusterManifest['forward'],
  ): Promise<CrawlSummary> {
    const config = this.config;
    const n = config.cluster.nodes;
    const hub = new MemoryExchangeHub();
    let started = 0;
    const sharedPages = {
      get started(): number {
        return started;
      },
      add: (pages: number): void => {
        started += pages;
      },
    };
    const analyzer = this.options.components?.analyzer ?? analyzerOf(config);
    const perNodeConcurrency = Math.max(1, Math.ceil(config.limits.concurrency / n));
    const nodes: CrawlNode[] = [];
    const exchanges: Exchange[] = [];
    for (const [i, m] of manifest.nodes.entries()) {
      const nodeConfig: CrawlConfig = {
        ...config,
        nodeId: m.nodeId,
        store: { ...config.store, outDir: join(outDir, m.dir) },
        limits: { ...config.limits, concurrency: perNodeConcurrency },
      };
      const exchange = new MemoryExchange({ hub, nodeId: m.nodeId, outboxDir: crawlDirLayout(join(outDir, m.dir)).outbox });
      exchanges.push(exchange);
      if (i > 0 && analyzer instanceof WorkerPageAnalyzer) analyzer.retain();
      try {
        nodes.push(
          buildNode(
            nodeConfig,
            this.options.deps ?? {},
            { analyzer },
            {
              partitioner,
              partitions: m.partitions,
              exchange,
              forward,
              sharedPages,
              maxMessageBytes: this.options.maxMessageBytes ?? null,
            },
          ),
        );
      } catch (err) {
        // The nodes built so far hold their directories and the shared parse workers: let them go.
        if (i > 0 && analyzer instanceof WorkerPageAnalyzer) void analyzer.close();
        await Promise.allSettled([...nodes.map((node) => node.discard()), ...exchanges.map((e) => e.close())]);
        throw err;
      }
    }
    const clock = this.options.deps?.clock ?? new SystemClock();
    const events = this.options.deps?.events ?? diagnosticsEvents;
    const startMs = clock.nowMs();
    const progress = new ProgressCombiner(
      config.nodeId,
      manifest.nodes.map((m) => m.nodeId),
      events,
      outDir,
      memberCitiesOf(manifest),
      await liveCommunitiesOf(config.cluster.truthDir, manifest.nodes.length),
    );
    progress.start();
    // Every node listens on the caller's signal (its slots and timers): many listeners are expected.
    setMaxListeners(Math.max(getMaxListeners(signal), 16 * nodes.length), signal);
    const runs = nodes.map((node) =>
      node.run(signal).catch((err: unknown) => {
        // One node failing ends the crawl: the others stop cleanly.
        for (const other of nodes) other.stop(StopReason.interrupted);
        throw err;
      }),
    );
    const watching = this.watch(nodes, exchanges, runs);
    const settled = await Promise.allSettled(runs);
    await watching;
    progress.stop();
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const summaries = settled.map((r) => (r as PromiseFulfilledResult<CrawlSummary>).value);
    const elapsedMs = clock.nowMs() - startMs;
    const reason = stopReasonOf(summaries);
    events.progress(progress.combined(elapsedMs, reason));
    return {
      ...combineSummaries(config.nodeId, outDir, reason, elapsedMs, summaries),
      cluster: { partitioner: partitioner.spec, nodes: summaries },
    };
  }

  /**
   * Ends the crawl when it is over as a whole (see the file comment); stops every node when one
   * stops for a limit.
   */
  private async watch(nodes: readonly CrawlNode[], exchanges: readonly Exchange[], runs: readonly Promise<unknown>[]): Promise<void> {
    let isDone = false;
    const ended = Promise.allSettled(runs).then(() => {
      isDone = true;
    });
    const everyMs = this.options.checkIntervalMs ?? 100;
    let quietChecks = 0;
    let lastTraffic = -1;
    while (!isDone) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, everyMs).unref())]);
      if (isDone) return;
      // A node's loop stops before the node closes: once one has a reason, the crawl is ending (a limit,
      // Ctrl-C, a failure), and the others stop for the same reason. Closed nodes are never asked anything.
      const stopped = nodes.find((node) => node.stopReason !== null);
      if (stopped !== undefined) {
        for (const node of nodes) node.stop(stopped.stopReason as StopReason);
        return;
      }
      // Messages sent but not yet handed to their receiver: delivered ones are the receiver's (inbox) work.
      let sent = 0;
      let received = 0;
      for (const e of exchanges) {
        const s = e.stats();
        sent += s.sent.messages;
        received += s.received.messages;
      }
      const isQuiet = received >= sent && nodes.every((node) => node.isIdle);
      quietChecks = isQuiet && received === lastTraffic ? quietChecks + 1 : isQuiet ? 1 : 0;
      lastTraffic = received;
      if (quietChecks >= 2) {
        for (const node of nodes) node.finish();
        return;
      }
    }
  }
}
