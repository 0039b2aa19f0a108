/**
 * Re-crawl (SPEC §2 item 12): every page fetched (a 2xx, or a 304 on a revisit) is scheduled to be
 * fetched again after an interval that adapts to how often it changed (`src/frontier/change-rate.ts`).
 * When it is due it is added to the frontier like any URL (the URL-seen test is not asked: the page is
 * known), so the frontier's politeness and the crawl's budgets (`limits.maxPages`, per-host caps,
 * bytes) hold for revisits as for first visits. A revisit goes before new URLs of its priority order
 * (it has the highest priority): it is due now, and a large frontier would otherwise keep it waiting
 * for hours.
 *
 * On a revisit the fetch is conditional: If-None-Match with the last ETag and If-Modified-Since with
 * the last Last-Modified. A 304 is written as a `revisit` record of the server-not-modified profile;
 * a 2xx whose content digest is the last one is unchanged, and the duplicate index writes it as a
 * `revisit` record of the identical-payload-digest profile (page-processor.ts).
 *
 * The schedule is kept in the {@link RevisitStore} beside the persistent frontier and flushed before
 * it at every checkpoint, so it survives restarts. When the crawl ends: with `recrawl.durationMs` the
 * run is held open (the fetch slots wait for revisits) until that long after the run began; without
 * it the run ends as soon as nothing but future revisits is left, which stay scheduled for the next
 * run. SIGTERM ends the run either way: the hold only keeps an empty frontier from ending it.
 */
import type { Clock } from '../../core/clock.js';
import type { Frontier } from '../../frontier/frontier.js';
import type { RevisitState, RevisitStore } from '../../frontier-store/revisit-store.js';
import type { Log } from '../../obs/log.js';
import type { RecrawlCounts } from '../crawl-stats.js';
import { firstVisit, nextIntervalMs, recordVisit, type RevisitBounds } from '../../frontier/change-rate.js';
import type { Waker } from './waker.js';

/** The priority of a due revisit: above every ordering policy's. */
export const REVISIT_PRIORITY = 1e300;

/**
 * What a fetch of a page found, for its schedule: its state's fields that a visit sets (`capture`:
 * its own response record, or the earlier capture a duplicate refers to; `links`: absent when its
 * links were not followed on this visit, and the last set is kept).
 */
export type PageVisit = Pick<
  RevisitState,
  'url' | 'host' | 'depth' | 'payloadDigest' | 'contentDigest' | 'etag' | 'lastModified' | 'capture' | 'links'
>;

/** Counters of a run's revisits: the summary's {@link RecrawlCounts}, counted up as they happen. */
export type RevisitCounts = { -readonly [K in keyof RecrawlCounts]: RecrawlCounts[K] };

/** Collaborators of {@link RevisitScheduler}. */
export interface RevisitSchedulerOptions {
  readonly bounds: RevisitBounds;
  /** Hold the run open this long from its start, ms; null: do not hold it. */
  readonly durationMs: number | null;
  /** Revisits queued at most in this run; null: no limit. */
  readonly maxRevisits: number | null;
  readonly store: RevisitStore;
  readonly frontier: Frontier;
  readonly clock: Clock;
  readonly waker: Waker;
  readonly log: Log;
  /** Keeps the run open on an empty frontier until the returned function is called (`FetchLoop.hold`). */
  readonly hold: () => () => void;
}

interface Due {
  readonly dueWallMs: number;
  readonly url: string;
}

/** Schedules revisits and hands them to the frontier when due; see the file comment. */
export class RevisitScheduler {
  readonly counts: RevisitCounts = { scheduled: 0, queued: 0, notModified: 0, unchanged: 0, changed: 0 };
  /** Min-heap of due times; entries superseded by a later schedule are skipped when they come up. */
  private readonly heap: Due[] = [];
  private wake: (() => void) | null = null;
  private endWallMs = Number.POSITIVE_INFINITY;

  constructor(private readonly options: RevisitSchedulerOptions) {}

  /** The validators to send when fetching `url`: none for a page not fetched before. */
  conditionalHeaders(url: string): { etag?: string; lastModified?: string } {
    const s = this.options.store.get(url);
    if (s === undefined) return {};
    return { ...(s.etag === null ? {} : { etag: s.etag }), ...(s.lastModified === null ? {} : { lastModified: s.lastModified }) };
  }

  /** What the crawl holds of `url`'s last capture (a 304 is written as a revisit of it). */
  lastVisit(url: string): RevisitState | undefined {
    return this.options.store.get(url);
  }

  /** A 2xx of a page: changed or not, it is scheduled again. */
  visited(v: PageVisit): void {
    const prev = this.options.store.get(v.url);
    if (prev === undefined) this.counts.scheduled++;
    const isChanged = prev !== undefined && prev.contentDigest !== v.contentDigest;
    if (prev !== undefined) {
      if (isChanged) this.counts.changed++;
      else this.counts.unchanged++;
    }
    this.schedule(prev, v.url, v.host, v.depth, isChanged, {
      payloadDigest: v.payloadDigest,
      contentDigest: v.contentDigest,
      etag: v.etag,
      lastModified: v.lastModified,
      capture: isChanged || prev === undefined ? v.capture : (prev.capture ?? v.capture),
      links: v.links ?? prev?.links,
    });
  }

  /** A 304 on a revisit: unchanged, scheduled again with what it had. */
  notModified(url: string): void {
    const prev = this.options.store.get(url);
    if (prev === undefined) return;
    this.counts.notModified++;
    this.schedule(prev, url, prev.host, prev.depth, false, prev);
  }

  /**
   * Arms every schedule in the store (those a previous run left) and hands revisits to the frontier
   * as they fall due, until `signal` aborts.
   */
  async run(signal: AbortSignal): Promise<void> {
    const o = this.options;
    for (const s of o.store.all()) this.push({ dueWallMs: s.dueWallMs, url: s.url });
    const release = o.durationMs === null ? null : o.hold();
    if (o.durationMs !== null) this.endWallMs = o.clock.wallMs() + o.durationMs;
    try {
      while (!signal.aborted) {
        this.release();
        const nowWall = o.clock.wallMs();
        if (nowWall >= this.endWallMs) break;
        const next = Math.min(this.heap[0]?.dueWallMs ?? Number.POSITIVE_INFINITY, this.endWallMs);
        await this.sleep(next === Number.POSITIVE_INFINITY ? next : o.clock.nowMs() + (next - nowWall), signal);
      }
    } finally {
      this.endWallMs = Math.min(this.endWallMs, o.clock.wallMs());
      release?.();
      o.log.info('recrawl-summary', { ...this.counts, scheduledPages: o.store.size });
    }
  }

  private schedule(
    prev: RevisitState | undefined,
    url: string,
    host: string,
    depth: number,
    isChanged: boolean,
    found: Pick<RevisitState, 'payloadDigest' | 'contentDigest' | 'etag' | 'lastModified' | 'capture' | 'links'>,
  ): void {
    const o = this.options;
    const nowWall = o.clock.wallMs();
    let history = prev === undefined ? firstVisit(o.bounds) : recordVisit(prev.history, nowWall - prev.visitedWallMs, isChanged);
    history = { ...history, intervalMs: nextIntervalMs(history, isChanged, o.bounds) };
    const state: RevisitState = {
      url,
      host,
      depth,
      dueWallMs: nowWall + history.intervalMs,
      visitedWallMs: nowWall,
      history,
      payloadDigest: found.payloadDigest,
      contentDigest: found.contentDigest,
      etag: found.etag,
      lastModified: found.lastModified,
      capture: found.capture,
      ...(found.links === undefined ? {} : { links: found.links }),
    };
    o.store.set(state);
    if (state.dueWallMs < this.endWallMs) this.push({ dueWallMs: state.dueWallMs, url });
  }

  /** Hands the due revisits to the frontier. */
  private release(): void {
    const o = this.options;
    const nowWall = o.clock.wallMs();
    let added = 0;
    for (let top = this.heap[0]; top !== undefined && top.dueWallMs <= nowWall; top = this.heap[0]) {
      this.pop();
      const s = o.store.get(top.url);
      if (s === undefined || s.dueWallMs !== top.dueWallMs) continue; // rescheduled since
      if (o.maxRevisits !== null && this.counts.queued >= o.maxRevisits) continue;
      const isAdded = o.frontier.add(
        { url: s.url, host: s.host, depth: s.depth, priority: REVISIT_PRIORITY, fromUrl: null },
        o.clock.nowMs(),
      );
      if (isAdded) {
        this.counts.queued++;
        added++;
      }
    }
    for (let i = 0; i < added; i++) o.waker.notify();
  }

  private sleep(untilMs: number, signal: AbortSignal): Promise<void> {
    const woken = new AbortController();
    const onAbort = (): void => woken.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.wake = () => woken.abort();
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      this.wake = null;
    };
    if (untilMs === Number.POSITIVE_INFINITY) {
      return new Promise<void>((resolve) => woken.signal.addEventListener('abort', () => resolve(), { once: true })).finally(done);
    }
    return this.options.clock.sleepUntil(untilMs, woken.signal).finally(done);
  }

  private push(d: Due): void {
    const h = this.heap;
    h.push(d);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((h[parent] as Due).dueWallMs <= d.dueWallMs) break;
      h[i] = h[parent] as Due;
      i = parent;
    }
    h[i] = d;
    if (i === 0) this.wake?.();
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop() as Due;
    if (h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && (h[r] as Due).dueWallMs < (h[l] as Due).dueWallMs ? r : l;
      if ((h[c] as Due).dueWallMs >= last.dueWallMs) break;
      h[i] = h[c] as Due;
      i = c;
    }
    h[i] = last;
  }
}
