/**
 * The per-host activity cap of X4 (SPEC §2 item 5: "a host that exceeds a share of total activity
 * (X4 used 0.2% per hour) is throttled"): the frontier counts the leases of the last `windowMs`, by
 * host, and a host whose count is above `maxShare` × the total is *over its share*:
 *
 *     over(h, now) ⇔ leases(h, (now − windowMs, now]) > maxShare × leases(all, (now − windowMs, now])
 *
 * The slot frontier then passes such a host over while a host under its share may be fetched now
 * (`slot-frontier.ts`, `next`). It never idles a fetch slot for the cap: when every host that may be
 * contacted is over its share, the best of them goes anyway. So a crawl whose only host left (or
 * whose every host) is over its share runs exactly as without the cap, and the cap costs no
 * throughput; what it changes is who gets a free slot when hosts compete for it, so that one host
 * with many URLs and fast answers cannot take most of the crawl's fetches while other hosts wait.
 *
 * Departure from X4 (which throttled the host outright): holding a host back while no other host can
 * use the slot would only slow the crawl, and with few hosts it would stop it.
 *
 * The window slides in {@link ACTIVITY_BUCKETS} steps (a lease leaves the count between
 * `windowMs × (1 − 1/60)` and `windowMs` after it was taken), so memory is bounded by the buckets
 * times the hosts leased within each, not by the leases: a count per host and bucket.
 */

/** The steps the window slides in. */
export const ACTIVITY_BUCKETS = 60;

/** Options of {@link ActivityWindow}. */
export interface ActivityCapOptions {
  /** Share of the window's leases above which a host is over its share, in (0, 1]. X4 used 0.002. */
  readonly maxShare: number;
  /** Length of the window, ms (> 0). X4 used an hour. */
  readonly windowMs: number;
}

interface Bucket {
  readonly index: number;
  readonly counts: Map<string, number>;
  total: number;
}

/** Leases of the last `windowMs` by host; see the file comment. Pure: time comes in as `nowMs`. */
export class ActivityWindow {
  private readonly maxShare: number;
  private readonly bucketMs: number;
  private readonly buckets: Bucket[] = [];
  private readonly counts = new Map<string, number>();
  private total = 0;

  /** @throws RangeError on a share outside (0, 1] or a window that is not a positive finite length. */
  constructor(options: ActivityCapOptions) {
    if (!(options.maxShare > 0 && options.maxShare <= 1))
      throw new RangeError(`frontier: maxShare must be in (0, 1], got ${options.maxShare}`);
    if (!(Number.isFinite(options.windowMs) && options.windowMs > 0))
      throw new RangeError(`frontier: the activity window must be a finite length > 0 ms, got ${options.windowMs}`);
    this.maxShare = options.maxShare;
    this.bucketMs = options.windowMs / ACTIVITY_BUCKETS;
  }

  /** Leases counted in the window (after the last {@link expire}). */
  get size(): number {
    return this.total;
  }

  /** Leases of `host` counted in the window. */
  countOf(host: string): number {
    return this.counts.get(host) ?? 0;
  }

  /** Counts a lease of `host` at `nowMs`. */
  record(host: string, nowMs: number): void {
    this.expire(nowMs);
    const index = Math.floor(nowMs / this.bucketMs);
    let bucket = this.buckets[this.buckets.length - 1];
    if (bucket === undefined || bucket.index !== index) {
      bucket = { index, counts: new Map(), total: 0 };
      this.buckets.push(bucket);
    }
    bucket.counts.set(host, (bucket.counts.get(host) ?? 0) + 1);
    bucket.total++;
    this.counts.set(host, (this.counts.get(host) ?? 0) + 1);
    this.total++;
  }

  /** Drops the leases that have left the window at `nowMs`. */
  expire(nowMs: number): void {
    const oldest = Math.floor(nowMs / this.bucketMs) - ACTIVITY_BUCKETS + 1;
    while (this.buckets.length > 0 && (this.buckets[0] as Bucket).index < oldest) {
      const bucket = this.buckets.shift() as Bucket;
      for (const [host, n] of bucket.counts) {
        const left = (this.counts.get(host) as number) - n;
        if (left === 0) this.counts.delete(host);
        else this.counts.set(host, left);
      }
      this.total -= bucket.total;
    }
  }

  /** Whether `host` took more than its share of the window's leases (call {@link expire} first). */
  isOverShare(host: string): boolean {
    return this.countOf(host) > this.maxShare * this.total;
  }
}
