/**
 * What a node of a distributed crawl tells the others, and `shoal dashboard`, about its progress: its
 * latest progress event (from its own `shoal:crawl:progress` events) and its slowest hosts (from its
 * fetch records), kept small enough to go into its statistics entry every check (distributed-node.ts).
 */
import { channel } from 'node:diagnostics_channel';
import { CrawlChannel, type CrawlProgress } from '../obs/events.js';
import { HostDurations } from '../obs/dashboard/host-durations.js';
import type { SlowHost } from '../obs/dashboard/snapshot.js';
import type { CrawlLogRecord } from '../store/records.js';

/** Slowest hosts a node publishes. */
const PUBLISHED_SLOW_HOSTS = 5;
/** Unreachable hosts named in the published progress. */
const PUBLISHED_UNREACHABLE = 3;

/** Listens to one node's events; see the file comment. */
export class OwnProgress {
  private last: CrawlProgress | null = null;
  private readonly hosts = new HostDurations(1_000);
  private readonly onProgress = (m: unknown): void => {
    const p = m as CrawlProgress;
    if (p.node === this.nodeId) this.last = p;
  };
  private readonly onFetch = (m: unknown): void => {
    const r = m as CrawlLogRecord;
    if (r.node === this.nodeId) this.hosts.add(r);
  };

  constructor(private readonly nodeId: string) {}

  start(): void {
    channel(CrawlChannel.progress).subscribe(this.onProgress);
    channel(CrawlChannel.fetch).subscribe(this.onFetch);
  }

  stop(): void {
    channel(CrawlChannel.progress).unsubscribe(this.onProgress);
    channel(CrawlChannel.fetch).unsubscribe(this.onFetch);
  }

  /** The latest progress event, its list of unreachable hosts cut short; null before the first. */
  get progress(): CrawlProgress | null {
    const p = this.last;
    if (p === null || p.unreachable === undefined) return p;
    return { ...p, unreachable: { ...p.unreachable, hosts: p.unreachable.hosts.slice(0, PUBLISHED_UNREACHABLE) } };
  }

  /** The hosts with the longest mean fetch so far. */
  slowHosts(): SlowHost[] {
    return this.hosts.slowest(PUBLISHED_SLOW_HOSTS);
  }
}
