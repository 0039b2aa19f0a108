/**
 * Per-URL state of the ordering policies lives in arrays indexed by the dense URL id (`policy.ts`,
 * Contract "Identity of URLs"); these helpers check ids and hold the state.
 *
 * The state is paged (`core/paged-arrays.ts`): a node numbers every URL it queues, a million or
 * more, and a flat array doubled at each power of two would be resident twice over while it is
 * copied. Pages are allocated on write; reads never allocate: an id on a page never written is
 * simply unknown (0, or the fill value), which is how a policy meets an unknown `fromId` without
 * allocating for it. Flags are bits: 1 bit per id rather than a byte.
 */

import { PagedArray } from '../core/paged-arrays.js';

/** Largest id a policy keeps state for: ids are array indices, and 2^31 − 2 keeps them Int32-safe. */
const MAX_URL_ID = 2 ** 31 - 2;

/** Whether `id` can index per-URL state: an integer in [0, {@link MAX_URL_ID}]. -1 (no ids) is not. */
export function isUrlId(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id <= MAX_URL_ID;
}

/**
 * One flag per id (prioritized, fetched, ...), one bit each. Unknown ids read false; setting an
 * invalid id is a no-op, so odd input never throws.
 */
export class IdFlags {
  private readonly words = new PagedArray(Int32Array);

  /** Whether the flag is set for `id`. */
  has(id: number): boolean {
    return isUrlId(id) && (this.words.get(id >>> 5) & (1 << (id & 31))) !== 0;
  }

  /** Sets or clears the flag of `id` (ignored for an invalid id). */
  set(id: number, isSet: boolean): void {
    if (!isUrlId(id)) return;
    const w = id >>> 5;
    const word = this.words.get(w);
    const bit = 1 << (id & 31);
    const next = isSet ? word | bit : word & ~bit;
    if (next !== word) this.words.set(w, next);
  }
}

/** Float64 per id, the fill value for ids never written; non-finite writes are refused by the caller's checks. */
export class IdNumbers {
  private readonly values: PagedArray<Float64Array>;

  /** `fill`: the value of an id never written (default 0). */
  constructor(fill = 0) {
    this.values = new PagedArray(Float64Array, fill);
  }

  /** The value of `id`, or the fill value for an id never written. */
  get(id: number): number {
    return isUrlId(id) ? this.values.get(id) : this.values.fill;
  }

  /** Stores `value` for `id` (ignored for an invalid id). */
  set(id: number, value: number): void {
    if (isUrlId(id)) this.values.set(id, value);
  }
}

/**
 * A count per id, 0 for ids never counted: 4 bytes per id rather than a Float64's 8. Exact up to
 * 2^32 − 1 per id, which no count of pages reaches; {@link add} saturates there rather than wrap.
 */
export class IdCounts {
  private readonly values = new PagedArray(Uint32Array);

  /** The count of `id`, 0 for an id never counted or invalid. */
  get(id: number): number {
    return isUrlId(id) ? this.values.get(id) : 0;
  }

  /** Adds 1 to the count of `id` (ignored for an invalid id); returns the new count. */
  increment(id: number): number {
    if (!isUrlId(id)) return 0;
    const c = this.values.get(id);
    if (c === 0xffffffff) return c;
    this.values.set(id, c + 1);
    return c + 1;
  }
}
