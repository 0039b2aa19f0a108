/**
 * Feeds a {@link DashboardAggregator} from a distributed crawl's NATS buckets (`shoal dashboard
 * --nats URL --crawl ID`): every `intervalMs` it reads each node's statistics entry, whose `progress`
 * is the node's latest progress event (src/cluster/distributed-node.ts), and the live members. The
 * crawl is over for the dashboard once it has seen a live member and then none is left: every node
 * left cleanly or its membership expired. Entries are written by other processes, perhaps other
 * versions of shoal: a value without the expected shape is skipped, never trusted.
 */
import type { CrawlReading } from '../../exchange/nats/nats-crawl-reader.js';
import type { CrawlProgress } from '../events.js';
import type { DashboardAggregator } from './dashboard-aggregator.js';
import type { SlowHost } from './snapshot.js';

/** Where the figures are read from: `NatsCrawlReader`, or a stand-in in tests. */
export interface CrawlReader {
  read(): Promise<CrawlReading>;
}

/** Options of {@link pollNatsCrawl}. */
export interface NatsPollOptions {
  /** Ms between two readings; default 1,000. */
  readonly intervalMs?: number;
  /** Wall clock, ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** A reading failed (the broker is away): the next one is tried all the same. */
  readonly onError?: (err: unknown) => void;
}

/** A running poll. */
export interface NatsPoll {
  /** Resolves once the crawl's nodes have all left (see the file comment). */
  readonly over: Promise<void>;
  /** Stops polling; resolves when the reading under way is done. */
  stop(): Promise<void>;
}

/** Applies one reading to the aggregator; returns how many members are live. */
export function applyReading(aggregator: DashboardAggregator, reading: CrawlReading, nowMs: number): number {
  for (const [nodeId, raw] of Object.entries(reading.stats)) {
    const stats = raw as { atMs?: unknown; progress?: unknown; partitions?: unknown; isIdle?: unknown; slowHosts?: unknown };
    const progress = stats.progress;
    if (!isProgress(progress) || progress.node !== nodeId) continue;
    aggregator.progress(progress, typeof stats.atMs === 'number' ? stats.atMs : nowMs);
    if (Array.isArray(stats.partitions) && stats.partitions.every((p) => typeof p === 'number'))
      aggregator.nodeState(nodeId, { partitions: stats.partitions as number[], isIdle: stats.isIdle === true });
    if (Array.isArray(stats.slowHosts)) aggregator.nodeSlowHosts(nodeId, stats.slowHosts.filter(isSlowHost));
  }
  return reading.members.length;
}

/** Polls `reader` into `aggregator`; see the file comment. */
export function pollNatsCrawl(reader: CrawlReader, aggregator: DashboardAggregator, options: NatsPollOptions = {}): NatsPoll {
  const now = options.now ?? Date.now;
  const everyMs = options.intervalMs ?? 1_000;
  let isStopped = false;
  let wake = (): void => {};
  let markOver = (): void => {};
  const over = new Promise<void>((resolve) => {
    markOver = resolve;
  });
  const loop = (async (): Promise<void> => {
    let hasSeenMember = false;
    while (!isStopped) {
      try {
        const live = applyReading(aggregator, await reader.read(), now());
        if (live > 0) hasSeenMember = true;
        else if (hasSeenMember) {
          markOver();
          return;
        }
      } catch (err) {
        if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) throw err;
        options.onError?.(err);
      }
      if (isStopped) return;
      // Not unref'd: the poll is what its command waits for; stop() clears it.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, everyMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    over,
    stop: async () => {
      isStopped = true;
      wake();
      await loop;
    },
  };
}

function isProgress(v: unknown): v is CrawlProgress {
  if (typeof v !== 'object' || v === null) return false;
  const p = v as Record<string, unknown>;
  const frontier = p.frontier as Record<string, unknown> | undefined;
  return (
    typeof p.node === 'string' &&
    (p.stopReason === null || typeof p.stopReason === 'string') &&
    ['elapsedMs', 'urls', 'pages', 'bytes', 'pagesPerSecond', 'recentPagesPerSecond', 'bytesPerSecond', 'hosts'].every(
      (k) => typeof p[k] === 'number',
    ) &&
    typeof p.errors === 'object' &&
    p.errors !== null &&
    typeof frontier === 'object' &&
    frontier !== null &&
    ['queued', 'inFlight', 'activeHosts', 'parked'].every((k) => typeof frontier[k] === 'number')
  );
}

function isSlowHost(v: unknown): v is SlowHost {
  if (typeof v !== 'object' || v === null) return false;
  const h = v as Record<string, unknown>;
  return typeof h.host === 'string' && typeof h.node === 'string' && ['fetches', 'meanMs', 'maxMs'].every((k) => typeof h[k] === 'number');
}
