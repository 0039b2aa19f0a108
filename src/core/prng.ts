/**
 * Deterministic randomness for the test web. Every page, host and link is generated on demand
 * from (seed, purpose, id) so that any part of a million-page Web can be produced alone, in any
 * order, with the same bytes on every run and machine (32-bit integer arithmetic only).
 */

/** Mixes 32-bit words into one well-distributed 32-bit hash (murmur3 finalizer over a fold). */
export function hash32(a: number, b = 0, c = 0, d = 0): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ b, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16) ^ c, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 15) ^ d, 0x165667b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform float in [0, 1) from a hash. */
export function unitFromHash(h: number): number {
  return h / 4294967296;
}

/** Named purposes, so that streams for different things never collide. */
export const Purpose = {
  hostAttrs: 1,
  hostName: 2,
  hostSize: 3,
  pageAttrs: 4,
  pageLinks: 5,
  pageText: 6,
  pageTitle: 7,
  pageSlug: 8,
  popularity: 9,
  robots: 10,
  geo: 11,
  community: 12,
  seeds: 13,
  latency: 14,
  nearDup: 15,
  trap: 16,
  textTape: 17,
  /** The random ordering policy's draws (`src/order/random.ts`): not part of the test web. */
  orderRandom: 18,
  /** Host behaviours drawn apart from `hostAttrs`, so that turning them on changes nothing else. */
  hostFaults: 19,
  /** Where the test web's servers stand (`src/web/ip-cities.ts`), one stream per address. */
  ipCity: 20,
} as const;

/**
 * A small fast generator (sfc32) seeded from (seed, purpose, id, sub). Cheap to create: one per
 * page render is fine.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, purpose: number, id: number, sub = 0) {
    this.a = hash32(seed, purpose, id, sub);
    this.b = hash32(this.a, seed, 0x51ed27, id);
    this.c = hash32(this.b, purpose, 0x2545f49, sub);
    this.d = 1;
    for (let i = 0; i < 8; i++) this.nextU32();
  }

  /** Next uniform 32-bit unsigned integer. */
  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Exponentially distributed value with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** Log-normally distributed value with the given median and shape sigma. */
  logNormal(median: number, sigma: number): number {
    const u1 = 1 - this.next();
    const u2 = this.next();
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return median * Math.exp(sigma * z);
  }
}

/**
 * Draws a 0-based rank in [0, n) from a truncated power law P(rank r) ∝ (r + 1)^(-s), by inverting
 * the continuous CDF. With s = 1 / (γ − 1), the expected in-degree of the item at each rank gives
 * an in-degree distribution with tail exponent γ.
 */
export function zipfRank(u: number, n: number, s: number): number {
  return zipfRankScaled(u, n, s, zipfScale(n, s));
}

/** The part of {@link zipfRank} that depends on (n, s) only: computed once per pool. */
export function zipfScale(n: number, s: number): number {
  return Math.abs(s - 1) < 1e-9 ? 0 : Math.pow(n + 1, 1 - s) - 1;
}

/** {@link zipfRank} with its (n, s) part precomputed by {@link zipfScale}. */
export function zipfRankScaled(u: number, n: number, s: number, scale: number): number {
  if (n <= 1) return 0;
  const r = Math.abs(s - 1) < 1e-9 ? Math.pow(n + 1, u) : Math.pow(1 + u * scale, 1 / (1 - s));
  const k = Math.floor(r) - 1;
  return k < 0 ? 0 : k >= n ? n - 1 : k;
}

/** Weighted choice: index i with probability weights[i] / sum(weights), from u in [0, 1). */
export function pickWeighted(u: number, cumulative: Float64Array): number {
  const total = cumulative[cumulative.length - 1] as number;
  const x = u * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cumulative[mid] as number) > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Cumulative sums of weights, for {@link pickWeighted}. */
export function cumulate(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let acc = 0;
  weights.forEach((w, i) => {
    acc += w;
    out[i] = acc;
  });
  return out;
}
