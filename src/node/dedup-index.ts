/**
 * Exact-duplicate detection within one crawl (SPEC §2 item 10): the content digest (SHA-1 of the
 * decoded body) of every page fetched, with where it was first captured, so a later page with the
 * same digest is recognised: its links are not followed again, and when its payload as received is
 * also identical, it is written as a WARC `revisit` record pointing at the first capture.
 *
 * Why two digests: a mirror may compress where its original does not. The decoded content is then
 * the same (a duplicate) while the bytes on the wire differ, and a revisit record of the
 * identical-payload-digest profile would be false: replay would serve the original's bytes under
 * the mirror's headers. So the revisit needs the payload digests to agree too.
 *
 * Bounded: the least recently matched digests are forgotten past `maxDigests` (a forgotten original
 * makes a later copy a full response again, never a wrong revisit).
 *
 * Across runs (with a persistent frontier): a capture whose response record has reached the WARC file
 * is {@link DedupIndex.confirm}ed; a checkpoint seals what was confirmed before it and, once the WARC
 * files are fsynced, writes it to a {@link DedupStore} (dedup-store.ts), which `find` consults for
 * digests not in memory. A revisit therefore only ever points at a durable record.
 */

/** Where a content digest was first captured. */
export interface FirstCapture {
  readonly url: string;
  /** `WARC-Payload-Digest` of its payload as received. */
  readonly payloadDigest: string;
  /** `WARC-Record-ID` and `WARC-Date` of its response record. */
  readonly recordId: string;
  readonly warcDate: string;
}

/** Where first captures outlive a run. */
export interface DedupStore {
  get(contentDigest: string): FirstCapture | undefined;
  /** Stores captures durably. */
  putAll(captures: readonly (readonly [string, FirstCapture])[]): Promise<void>;
}

/** Content digests seen in this crawl. */
export class DedupIndex {
  private readonly byDigest = new Map<string, FirstCapture>();
  /** Confirmed since the last seal, and sealed (for the next promote). */
  private confirmed: [string, FirstCapture][] = [];
  private sealed: [string, FirstCapture][] = [];

  constructor(private readonly maxDigests: number, private readonly store: DedupStore | null = null) {}

  get size(): number {
    return this.byDigest.size;
  }

  /** The first capture of `contentDigest`, if remembered (in memory, else in the store). */
  find(contentDigest: string): FirstCapture | undefined {
    const hit = this.byDigest.get(contentDigest);
    if (hit !== undefined) {
      this.byDigest.delete(contentDigest);
      this.byDigest.set(contentDigest, hit);
      return hit;
    }
    if (this.maxDigests === 0) return undefined;
    const stored = this.store?.get(contentDigest);
    if (stored !== undefined) this.remember(contentDigest, stored);
    return stored;
  }

  /** The response record of a remembered capture is in the WARC file: the next checkpoint may store it. */
  confirm(contentDigest: string, capture: FirstCapture): void {
    if (this.store !== null && this.maxDigests > 0) this.confirmed.push([contentDigest, capture]);
  }

  /** Checkpoint, first step: what was confirmed so far is what the next {@link promote} stores. */
  seal(): void {
    this.sealed = this.sealed.length === 0 ? this.confirmed : this.sealed.concat(this.confirmed);
    this.confirmed = [];
  }

  /** Checkpoint, after the WARC files are fsynced: stores the sealed captures. */
  async promote(): Promise<void> {
    const batch = this.sealed;
    if (this.store === null || batch.length === 0) return;
    await this.store.putAll(batch);
    this.sealed = this.sealed === batch ? [] : this.sealed.slice(batch.length);
  }

  /** Remembers the first capture of `contentDigest`. */
  remember(contentDigest: string, capture: FirstCapture): void {
    if (this.maxDigests === 0) return;
    this.byDigest.set(contentDigest, capture);
    if (this.byDigest.size > this.maxDigests) {
      const oldest = this.byDigest.keys().next().value;
      if (oldest !== undefined) this.byDigest.delete(oldest);
    }
  }
}
