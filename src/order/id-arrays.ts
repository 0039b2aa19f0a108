/**
 * Per-URL state of the ordering policies lives in typed arrays indexed by the dense URL id
 * (`policy.ts`, Contract "Identity of URLs"); these helpers check ids and grow the arrays.
 *
 * Writes grow an array to the next power of two above the id, so n URLs cost O(n) copies in all.
 * Reads never grow: an id beyond an array's length is simply unknown (0, or the fill value), which
 * is how a policy meets an unknown `fromId` without allocating for it.
 */

import { withRoomFor } from '../core/typed-arrays.js';

/** Largest id a policy keeps state for: ids are array indices, and 2^31 − 2 keeps them Int32-safe. */
const MAX_URL_ID = 2 ** 31 - 2;

/** Whether `id` can index per-URL state: an integer in [0, {@link MAX_URL_ID}]. -1 (no ids) is not. */
export function isUrlId(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id <= MAX_URL_ID;
}

/**
 * One flag per id (prioritized, fetched, ...). Unknown ids read false; setting an invalid id is a
 * no-op, so odd input never throws.
 */
export class IdFlags {
  private bits = new Uint8Array(0);

  /** Whether the flag is set for `id`. */
  has(id: number): boolean {
    return id >= 0 && id < this.bits.length && this.bits[id] === 1;
  }

  /** Sets or clears the flag of `id` (ignored for an invalid id). */
  set(id: number, isSet: boolean): void {
    if (!isUrlId(id)) return;
    if (!isSet && id >= this.bits.length) return;
    this.bits = withRoomFor(this.bits, id + 1);
    this.bits[id] = isSet ? 1 : 0;
  }
}

/** Float64 per id, 0 for ids never written; non-finite writes are refused by the caller's checks. */
export class IdNumbers {
  private values: Float64Array;
  private readonly fill: number;

  /** `fill`: the value of an id never written (default 0). */
  constructor(fill = 0) {
    this.fill = fill;
    this.values = new Float64Array(0);
  }

  /** The value of `id`, or the fill value for an id never written. */
  get(id: number): number {
    return id >= 0 && id < this.values.length ? (this.values[id] as number) : this.fill;
  }

  /** Stores `value` for `id` (ignored for an invalid id). */
  set(id: number, value: number): void {
    if (!isUrlId(id)) return;
    this.values = withRoomFor(this.values, id + 1, this.fill);
    this.values[id] = value;
  }
}
