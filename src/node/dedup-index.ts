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

/** Content digests seen in this crawl. */
export class DedupIndex {
  private readonly byDigest = new Map<string, FirstCapture>();

  constructor(private readonly maxDigests: number) {}

  get size(): number {
    return this.byDigest.size;
  }

  /** The first capture of `contentDigest`, if remembered. */
  find(contentDigest: string): FirstCapture | undefined {
    const hit = this.byDigest.get(contentDigest);
    if (hit !== undefined) {
      this.byDigest.delete(contentDigest);
      this.byDigest.set(contentDigest, hit);
    }
    return hit;
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
