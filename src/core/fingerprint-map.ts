/**
 * A map from 64-bit fingerprints, given as two unsigned 32-bit words, to int32 values: open
 * addressing with linear probing over typed arrays, doubled when 70 % full. Keys are only added
 * (no deletion: none of its users forgets a key). No object per key: n keys cost 12–24 bytes each,
 * and the garbage collector never walks them. The URL ids of a node (`url/url-ids.ts`), the link
 * graph's URL dictionary (`store/link-graph.ts`) and the persistent frontier's recovery
 * (`frontier-store/persistent-frontier.ts`) are built on it; the frontier's own URL index is the
 * `SlotIndex` of `frontier/slot-table.ts`, which reads its keys from the slot columns.
 *
 * The all-zero pair marks an empty slot, so the key (0, 0) is kept in a field of its own.
 */
import { slotHash } from './hash.js';

/** Linear probing stays short (about 2 probes for a hit, 6 for a miss) up to this load. */
const MAX_LOAD = 0.7;
const MIN_SLOTS = 16;

/** Value returned by {@link FingerprintMap.get} for a key that is not in the map. */
export const NOT_FOUND = -1;

/** Fingerprint → int32; see the file comment. */
export class FingerprintMap {
  /** Slot s holds its key at (2s, 2s + 1); (0, 0) is empty. */
  private keys: Uint32Array;
  private values: Int32Array;
  private mask: number;
  private used = 0;
  private growAt: number;
  private zeroValue: number | undefined;

  /** @param initialCapacity keys held before the first doubling (default 1,024). */
  constructor(initialCapacity = 1024) {
    if (!Number.isInteger(initialCapacity) || initialCapacity < 1)
      throw new RangeError(`FingerprintMap: initialCapacity must be a positive integer, got ${initialCapacity}`);
    let slots = MIN_SLOTS;
    while (slots * MAX_LOAD < initialCapacity) slots *= 2;
    this.keys = new Uint32Array(2 * slots);
    this.values = new Int32Array(slots);
    this.mask = slots - 1;
    this.growAt = Math.floor(slots * MAX_LOAD);
  }

  /** Keys held. */
  get size(): number {
    return this.used + (this.zeroValue === undefined ? 0 : 1);
  }

  /** The value of key (hi, lo), or {@link NOT_FOUND}. */
  get(hi: number, lo: number): number {
    hi >>>= 0;
    lo >>>= 0;
    if (hi === 0 && lo === 0) return this.zeroValue ?? NOT_FOUND;
    const keys = this.keys;
    for (let s = slotHash(hi, lo) & this.mask; ; s = (s + 1) & this.mask) {
      const h = keys[2 * s] as number;
      const l = keys[2 * s + 1] as number;
      if (h === hi && l === lo) return this.values[s] as number;
      if (h === 0 && l === 0) return NOT_FOUND;
    }
  }

  /** Sets the value of key (hi, lo), adding the key if needed. */
  set(hi: number, lo: number, value: number): void {
    hi >>>= 0;
    lo >>>= 0;
    if (hi === 0 && lo === 0) {
      this.zeroValue = value | 0;
      return;
    }
    const keys = this.keys;
    let s = slotHash(hi, lo) & this.mask;
    for (; ; s = (s + 1) & this.mask) {
      const h = keys[2 * s] as number;
      const l = keys[2 * s + 1] as number;
      if (h === hi && l === lo) {
        this.values[s] = value;
        return;
      }
      if (h === 0 && l === 0) break;
    }
    keys[2 * s] = hi;
    keys[2 * s + 1] = lo;
    this.values[s] = value;
    if (++this.used > this.growAt) this.grow();
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const slots = (this.mask + 1) * 2;
    this.keys = new Uint32Array(2 * slots);
    this.values = new Int32Array(slots);
    this.mask = slots - 1;
    this.growAt = Math.floor(slots * MAX_LOAD);
    const keys = this.keys;
    for (let o = 0; o < oldValues.length; o++) {
      const h = oldKeys[2 * o] as number;
      const l = oldKeys[2 * o + 1] as number;
      if (h === 0 && l === 0) continue;
      let s = slotHash(h, l) & this.mask;
      while (keys[2 * s] !== 0 || keys[2 * s + 1] !== 0) s = (s + 1) & this.mask;
      keys[2 * s] = h;
      keys[2 * s + 1] = l;
      this.values[s] = oldValues[o] as number;
    }
  }
}
