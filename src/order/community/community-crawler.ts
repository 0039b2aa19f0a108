/**
 * One community crawler (seed 002 §2, Costa & Frasconi; SPEC §4.4): it grows a retrieved set R over
 * a graph it discovers page by page, and keeps a queue of cited documents not yet retrieved.
 *
 *     next()  = the queued document whose priority is highest (ties: queued first)
 *     priority(u) = max_{p ∈ R, p → u} score(p)                    rank `citing` (the paper's)
 *                 = score(u), u's own membership from its citers    rank `candidate` (shoal's)
 *                 = none: first in, first out                        rank `breadth-first` (baseline)
 *
 * score is m_k, or M_k with spreading (`membership.ts`). Seeds come first, in the order given.
 *
 * **Capacity.** The paper gives each crawler a capacity (200 pages on its graph of 100-page
 * communities) and discards low-membership documents "when the capacity is reached". Its figures
 * settle what the capacity bounds: precision × 200 = recall × 100 in every row it reports (37.7 % and
 * 75.4 %; 42.9 % and 85.8 %), so every crawler retrieved exactly 200 pages. shoal has both knobs:
 * `capacity` = pages retrieved (then `next()` returns null), `queueCapacity` = queued documents kept;
 * past it the lowest-priority ones (the newest, for breadth-first) are dropped. A dropped document
 * cited again later is queued again.
 *
 * **Rank `candidate`** (a shoal departure, measured against the paper's in the experiment): every
 * retrieved page passes its rank to all its links, the few that leave the community included, so
 * `citing` cannot tell them apart. A queued document's own m_k, from the co-citations and links its
 * citers in R give it (its out-links are unknown until it is fetched), can.
 *
 * **Live use.** The step API is `next()` → fetch → `retrieved(page, outLinks)`, or `failed(page)`
 * when the fetch failed (the slot is freed). Several pages may be in flight at once. `isTaken`, when
 * given, is asked before a queued document is handed out: a document it accepts is dropped (e.g. a
 * shared seen set: another crawler has it).
 *
 * Cost: `next()` scans the queue and each queued document's citers, O(links from R to the queue)
 * (about 7,000 on the paper's graph); fine for capacities of thousands, not millions.
 *
 * Determinism: no randomness inside; the same seeds and the same pages in the same order give the
 * same crawl.
 */
import { CommunityMembership, type MembershipOptions } from './membership.js';

/** How the queue is ranked; see the file comment. */
export const CommunityRank = {
  citing: 'citing',
  candidate: 'candidate',
  breadthFirst: 'breadth-first',
} as const;
/** One of {@link CommunityRank}. */
export type CommunityRank = (typeof CommunityRank)[keyof typeof CommunityRank];

/** Default pages retrieved per crawler (the paper's 200). */
export const DEFAULT_CAPACITY = 200;
/** Default queued documents kept. */
export const DEFAULT_QUEUE_CAPACITY = 4096;

/** Options of {@link CommunityCrawler}. */
export interface CommunityCrawlerOptions {
  /** Pages retrieved (handed out by `next()` and not failed). Default {@link DEFAULT_CAPACITY}. */
  readonly capacity?: number;
  /** Queued documents kept; the lowest-priority are dropped past it. Default {@link DEFAULT_QUEUE_CAPACITY}. */
  readonly queueCapacity?: number;
  /** Queue order. Default `citing`. */
  readonly rank?: CommunityRank;
  /** Membership options (k, weights, spreading, maxNeighbours). */
  readonly membership?: MembershipOptions;
  /** When given, a queued document for which it is true is dropped instead of handed out. */
  readonly isTaken?: (page: number) => boolean;
}

interface Queued {
  readonly page: number;
  /** Order of queueing: the tie-break, and the whole order for breadth-first. */
  readonly order: number;
  readonly isSeed: boolean;
}

/** A community crawler (or its breadth-first baseline); see the file comment. */
export class CommunityCrawler {
  /** The retrieved set and the membership of pages in it. */
  readonly membership: CommunityMembership;
  readonly capacity: number;
  readonly queueCapacity: number;
  readonly rank: CommunityRank;
  private readonly isTaken: ((page: number) => boolean) | undefined;
  private readonly queue = new Map<number, Queued>();
  private readonly inFlight = new Set<number>();
  private readonly handled = new Set<number>();
  private counter = 0;
  private dropped = 0;

  /** @param seeds the initial collection, fetched first in this order (repeats ignored). */
  constructor(seeds: readonly number[], options: CommunityCrawlerOptions = {}) {
    this.capacity = options.capacity ?? DEFAULT_CAPACITY;
    this.queueCapacity = options.queueCapacity ?? DEFAULT_QUEUE_CAPACITY;
    this.rank = options.rank ?? CommunityRank.citing;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) throw new RangeError(`capacity: a positive integer, got ${this.capacity}`);
    if (!(this.queueCapacity >= 1)) throw new RangeError(`queueCapacity: at least 1, got ${this.queueCapacity}`);
    this.membership = new CommunityMembership(options.membership);
    this.isTaken = options.isTaken;
    for (const seed of seeds) this.enqueue(seed, true);
  }

  /** Pages retrieved so far, in order. Do not modify. */
  retrievedPages(): readonly number[] {
    return this.membership.members();
  }

  /** Documents queued. */
  get queueSize(): number {
    return this.queue.size;
  }

  /** Documents dropped from the queue so far (over `queueCapacity`, or taken elsewhere). */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Whether the crawler handed out `capacity` pages (retrieved or in flight). */
  get isFull(): boolean {
    return this.membership.size + this.inFlight.size >= this.capacity;
  }

  /** The next page to fetch, or null when full or when nothing is queued. */
  next(): number | null {
    while (!this.isFull && this.queue.size > 0) {
      const best = this.best();
      if (best === undefined) return null;
      this.queue.delete(best.page);
      if (this.isTaken?.(best.page) === true) {
        this.dropped++;
        this.handled.add(best.page);
        continue;
      }
      this.inFlight.add(best.page);
      this.handled.add(best.page);
      return best.page;
    }
    return null;
  }

  /**
   * The page handed out by `next()` was fetched with these out-links: it joins R and its links
   * not yet handled are queued. A page not handed out (fed by a caller on its own) is accepted too.
   *
   * @throws RangeError if the page was retrieved before.
   */
  retrieved(page: number, outLinks: ArrayLike<number>): void {
    if (this.membership.isMember(page)) throw new RangeError(`page ${page} was retrieved before`);
    this.inFlight.delete(page);
    this.handled.add(page);
    this.queue.delete(page);
    const kept = this.membership.add(page, outLinks);
    for (const target of kept) this.enqueue(target, false);
    this.trim();
  }

  /** The page handed out by `next()` could not be fetched: its slot is freed and it is not queued again. */
  failed(page: number): void {
    this.inFlight.delete(page);
  }

  /** The priority `next()` gives a queued document now (+∞ for seeds; −order for breadth-first). */
  priority(page: number): number {
    const entry = this.queue.get(page);
    return entry === undefined ? Number.NaN : this.priorityOf(entry);
  }

  private priorityOf(entry: Queued): number {
    if (entry.isSeed) return Number.POSITIVE_INFINITY;
    switch (this.rank) {
      case CommunityRank.breadthFirst:
        return -entry.order;
      case CommunityRank.candidate:
        return this.membership.score(entry.page);
      case CommunityRank.citing: {
        let best = 0;
        for (const p of this.membership.view.inLinks(entry.page)) best = Math.max(best, this.membership.score(p));
        return best;
      }
    }
  }

  private best(): Queued | undefined {
    let best: Queued | undefined;
    let bestPriority = Number.NEGATIVE_INFINITY;
    for (const entry of this.queue.values()) {
      const p = this.priorityOf(entry);
      if (best === undefined || p > bestPriority || (p === bestPriority && entry.order < best.order)) {
        best = entry;
        bestPriority = p;
      }
    }
    return best;
  }

  private enqueue(page: number, isSeed: boolean): void {
    if (this.handled.has(page) || this.queue.has(page)) return;
    this.queue.set(page, { page, order: this.counter++, isSeed });
  }

  /** Drops the lowest-priority documents (latest queued among equals) beyond `queueCapacity`. */
  private trim(): void {
    const excess = this.queue.size - this.queueCapacity;
    if (excess <= 0) return;
    const ranked = [...this.queue.values()].map((entry) => ({ entry, p: this.priorityOf(entry) }));
    ranked.sort((a, b) => (a.p < b.p ? -1 : a.p > b.p ? 1 : b.entry.order - a.entry.order));
    for (let i = 0; i < excess; i++) this.queue.delete((ranked[i] as { entry: Queued }).entry.page);
    this.dropped += excess;
  }
}
