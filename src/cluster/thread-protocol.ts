/**
 * What the main thread and the worker threads of an embedded crawl with `cluster.workers` say to
 * each other, besides the exchange's own messages (`exchange/memory/port-exchange.ts`).
 */
import type { FromHub, ToHub } from '../exchange/memory/port-exchange.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import type { CrawlSummary } from '../node/crawl-stats.js';
import type { CrawlProgress, CrawlStarted, StopReason } from '../obs/events.js';
import type { CrawlLogRecord } from '../store/records.js';

/** What a worker thread is started with. */
export interface ClusterWorkerData {
  readonly config: CrawlConfig;
  readonly partitionCount: number;
  readonly forward: 'urls' | 'pages' | 'both';
  /** The nodes this thread runs: id, partitions, and the configuration's own changes for each. */
  readonly nodes: readonly {
    readonly nodeId: string;
    readonly partitions: readonly number[];
    readonly outDir: string;
    readonly concurrency: number;
  }[];
  /** One int32: page fetches started by every node of the crawl (`limits.maxPages`). */
  readonly sharedPages: SharedArrayBuffer;
}

/** From a worker thread. */
export type FromWorker =
  | ToHub
  | { readonly t: 'state'; readonly nodeId: string; readonly isIdle: boolean; readonly stopReason: StopReason | null }
  | { readonly t: 'progress'; readonly progress: CrawlProgress }
  | { readonly t: 'started'; readonly started: CrawlStarted }
  /** A node's crawl-log record, published again on this thread's fetch channel (live collaboration metrics, Prometheus metrics). */
  | { readonly t: 'fetched'; readonly record: CrawlLogRecord }
  | { readonly t: 'summary'; readonly nodeId: string; readonly summary: CrawlSummary }
  | { readonly t: 'failed'; readonly nodeId: string; readonly message: string };

/** To a worker thread. */
export type ToWorker = FromHub | { readonly t: 'finish' } | { readonly t: 'stop'; readonly reason: StopReason } | { readonly t: 'abort' };
