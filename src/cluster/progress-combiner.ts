/**
 * The progress of an embedded collaborative crawl as a whole, from its nodes' own events (in this
 * thread, or relayed from worker threads).
 */
import { channel } from 'node:diagnostics_channel';
import type { CrawlSummary } from '../node/crawl-stats.js';
import type { CrawlLogRecord } from '../store/records.js';
import { CrawlChannel, StopReason, type CrawlEvents, type CrawlProgress, type CrawlStarted } from '../obs/events.js';
import { combineProgress } from './cluster-summary.js';
import { LiveCollab, type LiveCommunities } from './live-collab.js';

/**
 * Publishes the crawl's progress: each time the first node publishes, the latest event of every
 * node added up, under the crawl's own node id; and the crawl's start, once every node has started.
 */
export class ProgressCombiner {
  private readonly latest = new Map<string, CrawlProgress>();
  private readonly started = new Map<string, CrawlStarted>();
  /** The collaboration metrics so far, from the nodes' fetch records. */
  readonly live: LiveCollab;
  private readonly onEvent = (m: unknown): void => {
    const p = m as CrawlProgress;
    if (!this.members.includes(p.node)) return;
    this.latest.set(p.node, p);
    if (p.node === this.members[0] && p.stopReason === null) this.events.progress(this.combined(p.elapsedMs, null));
  };
  private readonly onFetch = (m: unknown): void => this.live.add(m as CrawlLogRecord);
  private readonly onStarted = (m: unknown): void => {
    const s = m as CrawlStarted;
    if (!this.members.includes(s.node) || this.started.has(s.node)) return;
    this.started.set(s.node, s);
    if (this.started.size < this.members.length) return;
    const all = [...this.started.values()];
    const sum = (of: (x: CrawlStarted) => number): number => all.reduce((a, x) => a + of(x), 0);
    this.events.started?.({
      node: this.node,
      outDir: this.outDir,
      concurrency: sum((x) => x.concurrency),
      seeds: Math.max(...all.map((x) => x.seeds)),
      seenBefore: sum((x) => x.seenBefore),
      frontierQueued: sum((x) => x.frontierQueued),
    });
  };

  constructor(
    private readonly node: string,
    private readonly members: readonly string[],
    private readonly events: CrawlEvents,
    private readonly outDir: string,
    memberCities: readonly (readonly number[])[] | null = null,
    communities: LiveCommunities | null = null,
  ) {
    this.live = new LiveCollab(members, memberCities, communities);
  }

  /** Listens to this thread's channels (nodes in other threads relay their events). */
  start(): void {
    channel(CrawlChannel.progress).subscribe(this.onEvent);
    channel(CrawlChannel.fetch).subscribe(this.onFetch);
    channel(CrawlChannel.started).subscribe(this.onStarted);
  }

  stop(): void {
    channel(CrawlChannel.progress).unsubscribe(this.onEvent);
    channel(CrawlChannel.fetch).unsubscribe(this.onFetch);
    channel(CrawlChannel.started).unsubscribe(this.onStarted);
  }

  combined(elapsedMs: number, stopReason: StopReason | null): CrawlProgress {
    const p = combineProgress(this.node, elapsedMs, [...this.latest.values()], stopReason);
    return { ...p, collab: this.live.figures(p.exchange?.urlsSent ?? 0) };
  }
}

/** The stop reason of the crawl: a limit or an interruption if any node had one, else exhausted. */
export function stopReasonOf(summaries: readonly CrawlSummary[]): StopReason {
  return summaries.find((s) => s.stopReason !== StopReason.exhausted)?.stopReason ?? StopReason.exhausted;
}
