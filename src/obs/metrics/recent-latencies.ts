/**
 * The durations of the last few fetches, for percentiles that say how the crawl is doing now (the
 * progress line's p50 and p95): a ring of the last `capacity` values, sorted when asked. The
 * Prometheus histogram keeps the whole run in buckets; this keeps exact values, but only recent ones.
 *
 * Percentiles are nearest-rank: the p-th percentile of n sorted values is the ⌈p·n⌉-th.
 */

/** Fetch-duration percentiles of the recent fetches, ms. */
export interface LatencyPercentiles {
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** Fetches they are computed from. */
  readonly count: number;
}

/** Fetches kept by default: enough for a stable p95 (50 values above it), few enough to sort every second. */
export const DEFAULT_RECENT_FETCHES = 1024;

/** See the file comment. */
export class RecentLatencies {
  private readonly values: Float64Array;
  private next = 0;
  private size = 0;

  constructor(capacity = DEFAULT_RECENT_FETCHES) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`RecentLatencies: capacity must be a whole number >= 1, got ${capacity}`);
    this.values = new Float64Array(capacity);
  }

  /** Adds one fetch's duration, ms; the oldest is dropped once the ring is full. */
  add(ms: number): void {
    this.values[this.next] = ms;
    this.next = (this.next + 1) % this.values.length;
    if (this.size < this.values.length) this.size++;
  }

  /** p50 and p95 of the values held; null before the first. */
  percentiles(): LatencyPercentiles | null {
    if (this.size === 0) return null;
    const sorted = this.values.slice(0, this.size).sort();
    const at = (p: number): number => sorted[Math.max(0, Math.ceil(p * this.size) - 1)] as number;
    return { p50Ms: at(0.5), p95Ms: at(0.95), count: this.size };
  }
}
