/**
 * The entry of a worker thread of an embedded crawl with `cluster.workers` (threaded-cluster.ts):
 * builds and runs its share of the nodes, each with a {@link PortExchange} to the hub in the main
 * thread; reports each node's state every 100 ms and its progress events; finishes, stops or aborts
 * the nodes when told; sends each node's summary when it is done.
 */
import { channel } from 'node:diagnostics_channel';
import { parentPort, workerData } from 'node:worker_threads';
import { PortExchange } from '../exchange/memory/port-exchange.js';
import { analyzerOf, buildNode } from '../node/build-node.js';
import { crawlDirLayout } from '../store/crawl-dir.js';
import type { CrawlNode } from '../node/crawl-node.js';
import { CrawlChannel, type CrawlProgress, type CrawlStarted } from '../obs/events.js';
import type { CrawlLogRecord } from '../store/records.js';
import { WorkerPageAnalyzer, type PageAnalyzer } from '../node/analysis/page-analyzer.js';
import { createPartitioner } from '../partition/registry.js';
import { partitionModelsOf } from './partition-models.js';
import type { ClusterWorkerData, FromWorker, ToWorker } from './thread-protocol.js';

const port = parentPort;
if (port === null) throw new Error('cluster-worker.ts runs as a worker thread');
const data = workerData as ClusterWorkerData;
const post = (m: FromWorker): void => port.postMessage(m);
const config = data.config;
const partitioner = createPartitioner(config.cluster.partition, data.partitionCount, await partitionModelsOf(config));
const counter = new Int32Array(data.sharedPages);
// Every node of every thread adds its page fetches with one atomic add.
const sharedPages = {
  get started(): number {
    return Atomics.load(counter, 0);
  },
  add: (pages: number): void => {
    Atomics.add(counter, 0, pages);
  },
};
// The threads themselves spread the work over the cores: pages are analysed in the node's thread
// unless parse.workers asks for analysis threads of their own.
const analyzer: PageAnalyzer = analyzerOf(config, 0);
const exchanges = new Map<string, PortExchange>();
const nodes: CrawlNode[] = [];
for (const [i, n] of data.nodes.entries()) {
  const exchange = new PortExchange(n.nodeId, crawlDirLayout(n.outDir).outbox, post);
  exchanges.set(n.nodeId, exchange);
  if (i > 0 && analyzer instanceof WorkerPageAnalyzer) analyzer.retain();
  try {
    nodes.push(
      buildNode(
        {
          ...config,
          nodeId: n.nodeId,
          store: { ...config.store, outDir: n.outDir },
          limits: { ...config.limits, concurrency: n.concurrency },
        },
        {},
        { analyzer },
        { partitioner, partitions: n.partitions, exchange, forward: data.forward, sharedPages },
      ),
    );
  } catch (err) {
    // Locks are the process's files, not the thread's: the nodes built so far let theirs go.
    if (i > 0 && analyzer instanceof WorkerPageAnalyzer) void analyzer.close();
    await Promise.allSettled(nodes.map((node) => node.discard()));
    throw err;
  }
}
const abort = new AbortController();
port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'deliver':
    case 'confirm':
      exchanges.get(m.nodeId)?.onHub(m);
      return;
    case 'finish':
      for (const node of nodes) node.finish();
      return;
    case 'stop':
      for (const node of nodes) node.stop(m.reason);
      return;
    case 'abort':
      abort.abort();
      return;
  }
});
const onProgress = (m: unknown): void => post({ t: 'progress', progress: m as CrawlProgress });
channel(CrawlChannel.progress).subscribe(onProgress);
const onStarted = (m: unknown): void => post({ t: 'started', started: m as CrawlStarted });
channel(CrawlChannel.started).subscribe(onStarted);
// For the crawl's live collaboration metrics (live-collab.ts) and whoever listens in the main thread.
const onFetch = (m: unknown): void => post({ t: 'fetched', record: m as CrawlLogRecord });
channel(CrawlChannel.fetch).subscribe(onFetch);
const states = setInterval(() => {
  for (const [i, node] of nodes.entries())
    post({ t: 'state', nodeId: data.nodes[i]?.nodeId ?? '', isIdle: node.isIdle, stopReason: node.stopReason });
}, 100);
await Promise.all(
  nodes.map(async (node, i) => {
    const nodeId = data.nodes[i]?.nodeId ?? '';
    try {
      post({ t: 'summary', nodeId, summary: await node.run(abort.signal) });
    } catch (err) {
      post({ t: 'failed', nodeId, message: err instanceof Error ? err.message : String(err) });
    }
  }),
);
clearInterval(states);
channel(CrawlChannel.progress).unsubscribe(onProgress);
channel(CrawlChannel.started).unsubscribe(onStarted);
channel(CrawlChannel.fetch).unsubscribe(onFetch);
port.close();
