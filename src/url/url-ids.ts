/**
 * Dense URL ids for the ordering policies (`src/order/policy.ts`, Contract "Identity of URLs"): the
 * node names each normalized URL by an integer 0, 1, 2, ... in order of first sight, so that a
 * policy keeps its per-URL state (in-link counts, PageRank estimates, hot distances) in typed arrays
 * indexed by id, and the node turns the ids a policy hands back into the fingerprints its frontier
 * knows URLs by.
 *
 * Keyed by the URL's 64-bit fingerprint (`fingerprint.ts`), so two URLs with one fingerprint are one
 * URL here too, as in the URL-seen set. Memory: 14–20 bytes per URL, no object per URL: the
 * fingerprint words of each id (8 bytes, in pages that never move, `core/paged-arrays.ts`) and an
 * open-addressing index of 1 + id per slot (4 bytes per slot, 35–70 % full), which reads the
 * keys back from the words rather than holding a second copy of them. A node of a priority order
 * numbers every URL it queues, a million or more, so these bytes count against its memory bound
 * (`docs/memory.md`). The fingerprints of a batch of ids (a policy's priority changes, up to most of
 * the queued URLs after a PageRank recomputation) are written into arrays whose memory is given
 * back as soon as the batch is applied (`core/releasable-array.ts`). Volatile by design: ids name URLs for the life of one process, as the
 * policy's own state does; a resumed crawl numbers URLs afresh.
 */
import { slotHash } from '../core/hash.js';
import { PagedArray } from '../core/paged-arrays.js';
import { ReleasableArray } from '../core/releasable-array.js';
import { urlFingerprintInto } from './fingerprint.js';

/** Linear probing stays short (about 2 probes for a hit, 6 for a miss) up to this load. */
const MAX_LOAD = 0.7;

/** Fingerprint ↔ dense id; see the file comment. */
export class UrlIds {
  /** Slot s holds 1 + the id whose fingerprint hashes there (linear probing), 0 when empty. */
  private slots = new Int32Array(4096);
  private mask = 4095;
  private growAt = Math.floor(4096 * MAX_LOAD);
  /** Fingerprint words of id i at (2i, 2i + 1). */
  private readonly words = new PagedArray(Uint32Array);
  private count = 0;
  private readonly scratch = new Uint32Array(2);
  private readonly batchHis = new ReleasableArray(Uint32Array);
  private readonly batchLos = new ReleasableArray(Uint32Array);

  /** The id of `url` (a normalized URL), handing out the next one on first sight. */
  idOf(url: string): number {
    urlFingerprintInto(url, this.scratch);
    return this.idOfFingerprint(this.scratch[0] as number, this.scratch[1] as number);
  }

  /** The id of the URL whose fingerprint is (hi, lo), handing out the next one on first sight. */
  idOfFingerprint(hi: number, lo: number): number {
    hi >>>= 0;
    lo >>>= 0;
    const { slots, mask, words } = this;
    let s = slotHash(hi, lo) & mask;
    for (; ; s = (s + 1) & mask) {
      const entry = slots[s] as number;
      if (entry === 0) break;
      const id = entry - 1;
      if (words.get(2 * id) === hi && words.get(2 * id + 1) === lo) return id;
    }
    const id = this.count++;
    words.set(2 * id, hi);
    words.set(2 * id + 1, lo);
    slots[s] = id + 1;
    if (this.count > this.growAt) this.grow();
    return id;
  }

  /** The id of `url` if it has one, else -1; hands out nothing. */
  peek(url: string): number {
    urlFingerprintInto(url, this.scratch);
    const hi = this.scratch[0] as number;
    const lo = this.scratch[1] as number;
    const { slots, mask, words } = this;
    for (let s = slotHash(hi, lo) & mask; ; s = (s + 1) & mask) {
      const entry = slots[s] as number;
      if (entry === 0) return -1;
      const id = entry - 1;
      if (words.get(2 * id) === hi && words.get(2 * id + 1) === lo) return id;
    }
  }

  /** The fingerprint's high word of id `id` (an id this table handed out). */
  hiOf(id: number): number {
    this.check(id);
    return this.words.get(2 * id);
  }

  /** The fingerprint's low word of id `id`. */
  loOf(id: number): number {
    this.check(id);
    return this.words.get(2 * id + 1);
  }

  /**
   * The fingerprints of `ids[0 .. n)` (ids this table handed out), as parallel arrays of high and
   * low words, valid until {@link releaseFingerprints} or the next call.
   */
  fingerprintsOf(ids: ArrayLike<number>, n: number): { readonly his: Uint32Array; readonly los: Uint32Array } {
    const his = this.batchHis.acquire(n);
    const los = this.batchLos.acquire(n);
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      his[i] = this.hiOf(id);
      los[i] = this.loOf(id);
    }
    return { his, los };
  }

  /** Gives back the memory of the last {@link fingerprintsOf}. */
  releaseFingerprints(): void {
    this.batchHis.release();
    this.batchLos.release();
  }

  /** URLs numbered so far. */
  get size(): number {
    return this.count;
  }

  /** Bytes held: the fingerprint words' pages and the index. */
  get bytes(): number {
    return this.words.bytes + this.slots.byteLength;
  }

  /** Doubles the index, placing every id again from its words (the keys are not copied). */
  private grow(): void {
    const size = this.slots.length * 2;
    const slots = new Int32Array(size);
    const mask = size - 1;
    const { words } = this;
    for (let id = 0; id < this.count; id++) {
      let s = slotHash(words.get(2 * id), words.get(2 * id + 1)) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
    this.growAt = Math.floor(size * MAX_LOAD);
  }

  private check(id: number): void {
    if (!(Number.isInteger(id) && id >= 0 && id < this.count))
      throw new RangeError(`UrlIds: no URL has id ${id} (${this.count} handed out)`);
  }
}
