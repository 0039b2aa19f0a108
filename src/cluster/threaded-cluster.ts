/**
 * An embedded crawl whose nodes are spread over worker threads (`cluster.workers`), so that several
 * cores crawl. Node i runs in thread i mod W; the exchange's hub stays in this thread and each
 * thread's nodes reach it through a {@link HubPortBridge}. Everything else is as in
 * embedded-cluster.ts: the same crawl directory and `cluster.json`, `limits.maxPages` shared (an
 * atomic counter), `limits.concurrency` split evenly, and the crawl over when every node is idle and
 * no message waits in the hub, at two checks in a row with every node's state renewed in between.
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { HubPortBridge } from '../exchange/memory/port-exchange.js';
import { MemoryExchangeHub } from '../exchange/memory/memory-exchange-hub.js';
import type { NodeDeps } from '../node/build-node.js';
import { SystemClock } from '../core/clock.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import type { CrawlSummary } from '../node/crawl-stats.js';
import { diagnosticsEvents, type StopReason } from '../obs/events.js';
import { startWorker } from '../node/analysis/worker-entry.js';
import type { Partitioner } from '../partition/partitioner.js';
import { combineSummaries } from './cluster-summary.js';
import { ProgressCombiner, stopReasonOf } from './progress-combiner.js';
import { memberCitiesOf } from './read-geo.js';
import { liveCommunitiesOf } from './read-community.js';
import type { ClusterManifest } from '../store/crawl-dir.js';
import type { ClusterWorkerData, FromWorker, ToWorker } from './thread-protocol.js';

/** See the file comment. */
export class ThreadedCluster {
  constructor(
    private readonly config: CrawlConfig,
    private readonly manifest: ClusterManifest,
    private readonly partitioner: Partitioner,
    private readonly deps: Partial<NodeDeps>,
  ) {}

  async run(signal: AbortSignal): Promise<CrawlSummary> {
    const { config, manifest } = this;
    const outDir = config.store.outDir as string;
    const n = manifest.nodes.length;
    const threads = Math.min(config.cluster.workers, n);
    const clock = this.deps.clock ?? new SystemClock();
    const events = this.deps.events ?? diagnosticsEvents;
    const hub = new MemoryExchangeHub();
    const sharedPages = new SharedArrayBuffer(4);
    const concurrency = Math.max(1, Math.ceil(config.limits.concurrency / n));
    const states = new Map<string, { isIdle: boolean; stopReason: StopReason | null; version: number }>();
    const summaries = new Map<string, CrawlSummary>();
    let failure: Error | null = null;
    const workers: Worker[] = [];
    const progress = new ProgressCombiner(
      config.nodeId,
      manifest.nodes.map((m) => m.nodeId),
      events,
      outDir,
      memberCitiesOf(manifest),
      await liveCommunitiesOf(config.cluster.truthDir, manifest.nodes.length),
    );
    progress.start();
    const startMs = clock.nowMs();
    let version = 0;
    const ended = Promise.all(
      Array.from(
        { length: threads },
        (_, t) =>
          new Promise<void>((resolve) => {
            const nodes = manifest.nodes
              .filter((_m, i) => i % threads === t)
              .map((m) => ({ nodeId: m.nodeId, partitions: m.partitions, outDir: join(outDir, m.dir), concurrency }));
            const data: ClusterWorkerData = {
              config,
              partitionCount: manifest.partitionCount,
              forward: manifest.forward,
              nodes,
              sharedPages,
            };
            const worker = startWorker(import.meta.url, './cluster-worker', { workerData: data });
            workers.push(worker);
            const bridge = new HubPortBridge(hub, (m) => worker.postMessage(m));
            worker.on('message', (m: FromWorker) => {
              switch (m.t) {
                case 'state':
                  states.set(m.nodeId, { isIdle: m.isIdle, stopReason: m.stopReason, version: ++version });
                  return;
                case 'progress':
                  events.progress(m.progress);
                  return;
                case 'started':
                  events.started?.(m.started);
                  return;
                case 'fetched':
                  // The progress combiner counts it from this thread's channel, like the records of nodes here.
                  events.fetch(m.record);
                  return;
                case 'summary':
                  summaries.set(m.nodeId, m.summary);
                  return;
                case 'failed':
                  failure ??= new Error(`node ${m.nodeId}: ${m.message}`);
                  this.tell(workers, { t: 'stop', reason: 'interrupted' });
                  return;
                default:
                  bridge.onNode(m);
              }
            });
            worker.once('error', (err) => {
              failure ??= err;
              this.tell(workers, { t: 'stop', reason: 'interrupted' });
            });
            worker.once('exit', () => resolve());
          }),
      ),
    );
    const onAbort = (): void => this.tell(workers, { t: 'abort' });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.watch(workers, states, hub, manifest.partitionCount, ended);
      await ended;
    } finally {
      signal.removeEventListener('abort', onAbort);
      progress.stop();
    }
    if (failure !== null) throw failure;
    const nodes = manifest.nodes.map((m) => summaries.get(m.nodeId)).filter((s): s is CrawlSummary => s !== undefined);
    if (nodes.length !== n) throw new Error(`${n - nodes.length} nodes ended without a summary`);
    const elapsedMs = clock.nowMs() - startMs;
    const reason = stopReasonOf(nodes);
    events.progress(progress.combined(elapsedMs, reason));
    return { ...combineSummaries(config.nodeId, outDir, reason, elapsedMs, nodes), cluster: { partitioner: this.partitioner.spec, nodes } };
  }

  private tell(workers: readonly Worker[], m: ToWorker): void {
    for (const w of workers) w.postMessage(m);
  }

  /** Finishes every node once the crawl is over; stops them all when one stops for a reason of its own. */
  private async watch(
    workers: readonly Worker[],
    states: ReadonlyMap<string, { isIdle: boolean; stopReason: StopReason | null; version: number }>,
    hub: MemoryExchangeHub,
    partitionCount: number,
    ended: Promise<unknown>,
  ): Promise<void> {
    let isEnded = false;
    void ended.then(() => {
      isEnded = true;
    });
    let quiet = 0;
    let lastVersions = new Map<string, number>();
    while (!isEnded) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 150).unref())]);
      if (isEnded) return;
      const all = [...states.entries()];
      const stopped = all.find(([, s]) => s.stopReason !== null);
      if (stopped !== undefined) {
        this.tell(workers, { t: 'stop', reason: stopped[1].stopReason as StopReason });
        return;
      }
      const isRenewed = all.length === this.manifest.nodes.length && all.every(([id, s]) => s.version !== lastVersions.get(id));
      let pending = 0;
      for (let p = 0; p < partitionCount; p++) pending += hub.pending(p);
      const isQuiet = all.length === this.manifest.nodes.length && all.every(([, s]) => s.isIdle) && pending === 0;
      quiet = isQuiet ? (isRenewed ? quiet + 1 : quiet) : 0;
      lastVersions = new Map(all.map(([id, s]) => [id, s.version]));
      if (quiet >= 2) {
        this.tell(workers, { t: 'finish' });
        return;
      }
    }
  }
}
