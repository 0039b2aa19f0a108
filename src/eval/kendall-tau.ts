/**
 * Kendall's τ-b between two rankings of the same items (SPEC §5; seed 000 compares the PageRank of a
 * subcollection computed on its own links with the global PageRank of the same pages):
 *
 *   τ_b = (n_c − n_d) / sqrt((n_0 − n_1) · (n_0 − n_2))
 *
 * n_0 = n(n − 1)/2 pairs, n_c and n_d the concordant and discordant pairs, n_1 and n_2 the pairs tied
 * in x and in y. Computed in O(n log n) with Knight's algorithm: sort by (x, y); count the ties in x
 * (n_1) and in both (n_3); merge-sort by y counting the exchanges a stable sort makes (the discordant
 * pairs, n_d); count the ties in y (n_2). Then n_c − n_d = n_0 − n_1 − n_2 + n_3 − 2·n_d.
 *
 * τ_b is null when it is undefined: fewer than two items, or every x (or every y) equal. NaN values
 * are refused (they have no order).
 */

/** τ-b and the counts it is made of. */
export interface KendallTau {
  readonly tau: number | null;
  readonly n: number;
  /** Pairs tied in x, in y, in both. */
  readonly tiesX: number;
  readonly tiesY: number;
  readonly tiesXY: number;
  /** n_c − n_d. */
  readonly concordantMinusDiscordant: number;
}

/** Pairs within runs of equal values of `key` in `order` (already sorted by `key`). */
function tiedPairs(order: Uint32Array, equal: (a: number, b: number) => boolean): number {
  let pairs = 0;
  let run = 1;
  for (let i = 1; i <= order.length; i++) {
    if (i < order.length && equal(order[i - 1] as number, order[i] as number)) run++;
    else {
      pairs += (run * (run - 1)) / 2;
      run = 1;
    }
  }
  return pairs;
}

/** Stable merge sort of `order` by y, returning how many exchanges (inversions) it made. */
function sortCountingSwaps(order: Uint32Array, y: ArrayLike<number>): number {
  const n = order.length;
  let src: Uint32Array = order;
  let dst: Uint32Array = new Uint32Array(n);
  let swaps = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if ((y[src[j] as number] as number) < (y[src[i] as number] as number)) {
          dst[k++] = src[j++] as number;
          swaps += mid - i;
        } else dst[k++] = src[i++] as number;
      }
      while (i < mid) dst[k++] = src[i++] as number;
      while (j < hi) dst[k++] = src[j++] as number;
    }
    [src, dst] = [dst, src];
  }
  if (src !== order) order.set(src);
  return swaps;
}

/** τ-b of the paired values x[i], y[i]; O(n log n). Throws a RangeError on unequal lengths or NaN. */
export function kendallTauB(x: ArrayLike<number>, y: ArrayLike<number>): KendallTau {
  const n = x.length;
  if (y.length !== n) throw new RangeError(`kendallTauB: ${n} x values but ${y.length} y values`);
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(x[i]) || Number.isNaN(y[i])) throw new RangeError(`kendallTauB: NaN at index ${i}`);
  }
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  order.sort((a, b) => (x[a] as number) - (x[b] as number) || (y[a] as number) - (y[b] as number));
  const tiesX = tiedPairs(order, (a, b) => x[a] === x[b]);
  const tiesXY = tiedPairs(order, (a, b) => x[a] === x[b] && y[a] === y[b]);
  const swaps = sortCountingSwaps(order, y);
  const tiesY = tiedPairs(order, (a, b) => y[a] === y[b]);
  const n0 = (n * (n - 1)) / 2;
  const diff = n0 - tiesX - tiesY + tiesXY - 2 * swaps;
  const denominator = Math.sqrt((n0 - tiesX) * (n0 - tiesY));
  return { tau: denominator > 0 ? diff / denominator : null, n, tiesX, tiesY, tiesXY, concordantMinusDiscordant: diff };
}
