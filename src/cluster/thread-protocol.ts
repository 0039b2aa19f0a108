/**
 * What the main thread and the worker threads of an embedded crawl with `cluster.workers` say to
 * each other, besides the exchange's own messages (`exchange/memory/port-exchange.ts`).
 */
import type { FromHub, ToHub } from '../exchange/memory/port-exchange.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import type { CrawlSummary } from '../node/crawl-stats.js';
import type { CrawlProgress, CrawlStarted, StopReason } from '../obs/events.js';

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
  | {
      readonly t: 'fetched';
      readonly node: string;
      readonly url: string;
      readonly host: string;
      readonly status: number | null;
      readonly fromUrl: string | null;
      /** The page's topic category, for live topic locality. */
      readonly category: string | null;
      /** The target cities whose addresses the page holds (a geo crawl), for live geo coverage and focus. */
      readonly geoCities: readonly number[] | null;
    }
  | { readonly t: 'summary'; readonly nodeId: string; readonly summary: CrawlSummary }
  | { readonly t: 'failed'; readonly nodeId: string; readonly message: string };

/** To a worker thread. */
export type ToWorker = FromHub | { readonly t: 'finish' } | { readonly t: 'stop'; readonly reason: StopReason } | { readonly t: 'abort' };
