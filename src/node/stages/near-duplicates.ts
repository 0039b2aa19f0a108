/**
 * Near-duplicate detection in the crawl (SPEC §2.10): each analysed HTML page's SimHash is looked up
 * among the pages kept before it (`src/dedup/simhash-index.ts`; this node's, and other nodes' when
 * they share them, see below); within
 * `dedup.near.maxDistance` bits of one, the page is a near-duplicate of the nearest (the oldest on a
 * tie), and the page processor marks it and applies `dedup.near.action`.
 *
 * Only the first page of its kind enters the index: a near-duplicate is not added, so every mark
 * names a page that was not itself a near-duplicate (no chains of copies of copies), and a skipped
 * page leaves nothing behind. A page without words (fingerprint 0) is neither looked up nor kept:
 * every empty page would resemble every other. A page is never a near-duplicate of its own URL
 * (fetched again after a crash, or revisited); its URL already in the index within range keeps it
 * from being added twice.
 *
 * Lookup and insertion happen in one synchronous step, so of two similar pages in flight the one
 * whose analysis ends first is the original.
 *
 * Across nodes: in a collaborative crawl with `dedup.near.isShared` (the default), every page a node
 * keeps as the first of its kind is handed to `onKept`, and the node sends its fingerprint and URL to
 * every other node (`node/collaboration/simhash-sharing.ts`), which adds it with {@link addRemote}:
 * a page is then compared with the pages every node kept whose fingerprints reached its node before
 * it was looked up. "Earlier" across nodes means exactly that: arrived in this node's index first.
 * The exchange is asynchronous, so two similar pages fetched on two nodes within a batch delay of each
 * other may both be kept as originals (and both shared); later copies are marked with the nearer of
 * them, the one that reached the index first on a tie. Only pages kept (not marked) are shared and a
 * mark is never revised, so a mark never names a page that is itself marked, wherever it was fetched.
 *
 * Across runs: with a persistent frontier, the index is rebuilt as the crawl opens from the page
 * lines of earlier runs (pages.jsonl, or the crawl log when pages.jsonl is not kept), taking the
 * pages not marked as near-duplicates in the order they were written, so that a resumed crawl
 * remembers what an uninterrupted one would (the newest `maxFingerprints`); then the fingerprints
 * other nodes shared, from `state/shared-simhashes.tsv` (`../durability/shared-simhashes.ts`).
 */
import { SimHashIndex } from '../../dedup/simhash-index.js';
import type { NearDuplicateAction } from '../../dedup/near-duplicate-action.js';

/** The `dedup.near` configuration section (`isShared` is read where the node is built). */
export interface NearDuplicateOptions {
  readonly action: NearDuplicateAction;
  readonly maxDistance: number;
  /** Blocks of the index; null = maxDistance + 1. */
  readonly blocks: number | null;
  readonly maxFingerprints: number;
}

/** The earlier page a page resembles. */
export interface NearDuplicateMatch {
  readonly url: string;
  /** Hamming distance between the two fingerprints, bits. */
  readonly distance: number;
}

/** A page line of an earlier run, as {@link NearDuplicates.restore} reads it. */
export interface KeptPage {
  readonly url: string;
  readonly simhash: string | null;
  readonly nearDuplicateOf: string | null;
}

/** Hex digits of a fingerprint as `simhashHex` writes them. */
const HEX16 = /^[0-9a-f]{16}$/;

/** Pages read back per rebuild of the index's tables. */
const RESTORE_BATCH = 65_536;

/** One node's near-duplicate index; see the file comment. */
export class NearDuplicates {
  private readonly index: SimHashIndex<string>;

  /**
   * @param onKept called with each page kept as the first of its kind (not with pages restored or
   *   received from other nodes): the node shares it with the others.
   */
  constructor(
    readonly options: NearDuplicateOptions,
    private readonly onKept: ((url: string, hi: number, lo: number) => void) | null = null,
  ) {
    this.index = new SimHashIndex<string>({
      maxDistance: options.maxDistance,
      capacity: options.maxFingerprints,
      ...(options.blocks === null ? {} : { blocks: options.blocks }),
    });
  }

  get action(): NearDuplicateAction {
    return this.options.action;
  }

  /** Pages held. */
  get size(): number {
    return this.index.size;
  }

  /** Tables of the index (its memory is about 16 + 12 × tables bytes a page, plus the URL). */
  get tables(): number {
    return this.index.tables;
  }

  /**
   * The earlier page `url` (fingerprint `simhash`, 16 hex digits) resembles, or null; when null the
   * page is remembered as the first of its kind.
   */
  check(url: string, simhash: string): NearDuplicateMatch | null {
    if (!HEX16.test(simhash) || simhash === '0000000000000000') return null;
    const hi = Number.parseInt(simhash.slice(0, 8), 16);
    const lo = Number.parseInt(simhash.slice(8), 16);
    let isKept = false;
    const match = this.index.nearest(hi, lo, (other) => {
      if (other !== url) return true;
      isKept = true;
      return false;
    });
    if (match !== null) return { url: match.value, distance: match.distance };
    if (!isKept) {
      this.index.add(hi, lo, url);
      this.onKept?.(url, hi, lo);
    }
    return null;
  }

  /**
   * Adds a page another node kept as the first of its kind (fingerprint as two unsigned 32-bit words,
   * high first), without a lookup: its node compared it with what it knew. Returns false, adding
   * nothing, for fingerprint 0 and for a (fingerprint, URL) pair already held (a message delivered
   * again, or sent to several partitions of this node).
   */
  addRemote(url: string, hi: number, lo: number): boolean {
    if ((hi | lo) === 0 || this.index.holds(hi, lo, url)) return false;
    this.index.add(hi, lo, url);
    return true;
  }

  /**
   * Takes back the pages of earlier runs (see the file comment), in batches added without lookups:
   * they were compared when they were fetched. Returns how many lines were read.
   */
  async restore(pages: AsyncIterable<KeptPage>): Promise<number> {
    let n = 0;
    let batch: [number, number, string][] = [];
    for await (const p of pages) {
      n++;
      if (p.simhash === null || p.nearDuplicateOf !== null || !HEX16.test(p.simhash) || p.simhash === '0000000000000000') continue;
      batch.push([Number.parseInt(p.simhash.slice(0, 8), 16), Number.parseInt(p.simhash.slice(8), 16), p.url]);
      if (batch.length === RESTORE_BATCH) {
        this.index.addAll(batch);
        batch = [];
      }
    }
    this.index.addAll(batch);
    return n;
  }
}
