/**
 * A map from 64-bit fingerprints, given as two unsigned 32-bit words, to int32 values: open
 * addressing with linear probing over typed arrays, doubled when 70 % full, with backward-shift
 * deletion (no tombstones, so probes stay short however many keys come and go). No object per key:
 * n keys cost 12–24 bytes each, and the garbage collector never walks them. The URL ids of a node
 * (`url/url-ids.ts`) and the frontier's URL index (`frontier/slot-scheduler.ts`) are built on it.
 *
 * The all-zero pair marks an empty slot, so the key (0, 0) is kept in a field of its own.
 */
import { fmix32 } from './hash.js';

/** Linear probing stays short (about 2 probes for a hit, 6 for a miss) up to this load. */
const MAX_LOAD = 0.7;
const MIN_SLOTS = 16;

/** Value returned by {@link FingerprintMap.get} for a key that is not in the map. */
export const NOT_FOUND = -1;

/** Spreads a fingerprint's two words over the table (fingerprints made by hand often differ in their low bits only). */
function slotHash(hi: number, lo: number): number {
  return fmix32(Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo);
}

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
    if (!Number.isInteger(initialCapacity) || initialCapacity < 1) throw new RangeError(`FingerprintMap: initialCapacity must be a positive integer, got ${initialCapacity}`);
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

  /** Bytes of the tables. */
  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
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

  /** Removes key (hi, lo). @returns whether it was there. */
  delete(hi: number, lo: number): boolean {
    hi >>>= 0;
    lo >>>= 0;
    if (hi === 0 && lo === 0) {
      const had = this.zeroValue !== undefined;
      this.zeroValue = undefined;
      return had;
    }
    const keys = this.keys;
    const mask = this.mask;
    let s = slotHash(hi, lo) & mask;
    for (; ; s = (s + 1) & mask) {
      const h = keys[2 * s] as number;
      const l = keys[2 * s + 1] as number;
      if (h === hi && l === lo) break;
      if (h === 0 && l === 0) return false;
    }
    // Backward-shift deletion: move later members of the cluster into the hole when their home
    // slot does not lie (cyclically) between the hole and their own slot.
    let hole = s;
    for (let t = (s + 1) & mask; ; t = (t + 1) & mask) {
      const h = keys[2 * t] as number;
      const l = keys[2 * t + 1] as number;
      if (h === 0 && l === 0) break;
      const home = slotHash(h, l) & mask;
      const isBetween = hole <= t ? home > hole && home <= t : home > hole || home <= t;
      if (isBetween) continue;
      keys[2 * hole] = h;
      keys[2 * hole + 1] = l;
      this.values[hole] = this.values[t] as number;
      hole = t;
    }
    keys[2 * hole] = 0;
    keys[2 * hole + 1] = 0;
    this.used--;
    return true;
  }

  /** Removes every key; keeps the tables' size. */
  clear(): void {
    this.keys.fill(0);
    this.used = 0;
    this.zeroValue = undefined;
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
