/**
 * Dense URL ids for the ordering policies (`src/order/policy.ts`, Contract "Identity of URLs"): the
 * node names each normalized URL by an integer 0, 1, 2, ... in order of first sight, so that a
 * policy keeps its per-URL state (in-link counts, PageRank estimates, hot distances) in typed arrays
 * indexed by id, and the node turns the ids a policy hands back into the fingerprints its frontier
 * knows URLs by.
 *
 * Keyed by the URL's 64-bit fingerprint (`fingerprint.ts`), so two URLs with one fingerprint are one
 * URL here too, as in the URL-seen set. Memory: about 20–32 bytes per URL (the fingerprint → id map
 * and the id → fingerprint words), no object per URL. Volatile by design: ids name URLs for the life
 * of one process, as the policy's own state does; a resumed crawl numbers URLs afresh.
 */
import { FingerprintMap, NOT_FOUND } from '../core/fingerprint-map.js';
import { urlFingerprintInto } from './fingerprint.js';

/** Fingerprint ↔ dense id; see the file comment. */
export class UrlIds {
  private readonly byFingerprint = new FingerprintMap(4096);
  /** Fingerprint words of id i at (2i, 2i + 1). */
  private words = new Uint32Array(2 * 4096);
  private count = 0;
  private readonly scratch = new Uint32Array(2);

  /** The id of `url` (a normalized URL), handing out the next one on first sight. */
  idOf(url: string): number {
    urlFingerprintInto(url, this.scratch);
    return this.idOfFingerprint(this.scratch[0] as number, this.scratch[1] as number);
  }

  /** The id of the URL whose fingerprint is (hi, lo), handing out the next one on first sight. */
  idOfFingerprint(hi: number, lo: number): number {
    const known = this.byFingerprint.get(hi, lo);
    if (known !== NOT_FOUND) return known;
    const id = this.count++;
    if (2 * id + 1 >= this.words.length) {
      const grown = new Uint32Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
    }
    this.words[2 * id] = hi;
    this.words[2 * id + 1] = lo;
    this.byFingerprint.set(hi, lo, id);
    return id;
  }

  /** The id of `url` if it has one, else -1; hands out nothing. */
  peek(url: string): number {
    urlFingerprintInto(url, this.scratch);
    return this.byFingerprint.get(this.scratch[0] as number, this.scratch[1] as number);
  }

  /** The fingerprint's high word of id `id` (an id this table handed out). */
  hiOf(id: number): number {
    this.check(id);
    return this.words[2 * id] as number;
  }

  /** The fingerprint's low word of id `id`. */
  loOf(id: number): number {
    this.check(id);
    return this.words[2 * id + 1] as number;
  }

  private check(id: number): void {
    if (!(Number.isInteger(id) && id >= 0 && id < this.count))
      throw new RangeError(`UrlIds: no URL has id ${id} (${this.count} handed out)`);
  }
}
