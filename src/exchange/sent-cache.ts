/**
 * The cache of URLs recently sent to other nodes (SPEC §4.5): a URL found again on another page is
 * not sent again while the cache remembers it, which is most of the saving in communication
 * overhead, because links concentrate on few popular pages.
 *
 * A two-way set-associative table of 64-bit URL fingerprints with a small hit counter per slot. A
 * URL hashes to one set of two slots; a hit bumps the slot's counter; a miss takes the slot with the
 * lower counter and halves the other, so popular URLs stay while one-off URLs replace each other,
 * and a URL that stops being linked ages out. Fixed memory: 9 bytes per slot, no allocation per
 * lookup.
 *
 * A false hit (a URL the cache claims but never sent) needs two different URLs with the same 64-bit
 * fingerprint: the seen sets make the same assumption. A miss only costs a resend, which the
 * receiver's URL-seen test absorbs.
 */

/** Counter saturation: hits beyond this are not counted. */
const MAX_COUNT = 255;

/** Remembers fingerprints of URLs sent; see the file comment. */
export class SentCache {
  private readonly hi: Uint32Array;
  private readonly lo: Uint32Array;
  private readonly count: Uint8Array;
  private readonly setMask: number;
  private hitCount = 0;
  private missCount = 0;

  /** @param entries Slots (rounded up to a power of two, at least 2); 0 turns the cache off. */
  constructor(entries: number) {
    const slots = entries <= 0 ? 0 : 2 ** Math.max(1, Math.ceil(Math.log2(entries)));
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.count = new Uint8Array(slots);
    this.setMask = slots === 0 ? -1 : slots / 2 - 1;
  }

  /** Lookups that found the URL (it was not sent again). */
  get hits(): number {
    return this.hitCount;
  }

  /** Lookups that did not (the URL was sent). */
  get misses(): number {
    return this.missCount;
  }

  /**
   * Whether the fingerprint `hi:lo` was sent recently; remembers it when not. The all-zero
   * fingerprint marks an empty slot and is never remembered.
   */
  testAndAdd(hi: number, lo: number): boolean {
    // The table holds unsigned words; callers may pass the signed result of 32-bit arithmetic.
    hi >>>= 0;
    lo >>>= 0;
    if (this.setMask < 0) {
      this.missCount++;
      return false;
    }
    const a = ((lo ^ (hi >>> 7)) & this.setMask) * 2;
    const b = a + 1;
    const c = this.count;
    if (this.hi[a] === hi && this.lo[a] === lo && c[a] !== 0) {
      if ((c[a] as number) < MAX_COUNT) c[a] = (c[a] as number) + 1;
      this.hitCount++;
      return true;
    }
    if (this.hi[b] === hi && this.lo[b] === lo && c[b] !== 0) {
      if ((c[b] as number) < MAX_COUNT) c[b] = (c[b] as number) + 1;
      this.hitCount++;
      return true;
    }
    this.missCount++;
    if (hi === 0 && lo === 0) return false;
    const victim = (c[a] as number) <= (c[b] as number) ? a : b;
    const other = victim === a ? b : a;
    this.hi[victim] = hi;
    this.lo[victim] = lo;
    c[victim] = 1;
    c[other] = (c[other] as number) >>> 1;
    return false;
  }
}
