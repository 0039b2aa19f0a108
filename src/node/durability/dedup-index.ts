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

/**
 * A first capture as one flat string: the lengths of its payload digest, record id and date, then
 * the four fields end to end (the URL last). In a crawl's heap that is one string of about 150 bytes
 * plus the URL (226 bytes on average in `bench:frontier`, next to 56 for the digest that keys it),
 * where an object and four strings took up to 1.3 KB (measured with 100,000 synthetic captures):
 * at the default of 250,000 digests, over 300 MB of the crawl thread's heap. Any field may hold any
 * character: nothing is split on a separator.
 */
export function packCapture(c: FirstCapture): string {
  // Array.prototype.join builds a flat string; `+` would build a tree holding on to every part.
  return [c.payloadDigest.length, ':', c.recordId.length, ':', c.warcDate.length, ':', c.payloadDigest, c.recordId, c.warcDate, c.url].join(
    '',
  );
}

/** The capture {@link packCapture} packed. */
export function unpackCapture(packed: string): FirstCapture {
  const a = packed.indexOf(':');
  const b = packed.indexOf(':', a + 1);
  const c = packed.indexOf(':', b + 1);
  const p = c + 1 + Number(packed.slice(0, a));
  const r = p + Number(packed.slice(a + 1, b));
  const d = r + Number(packed.slice(b + 1, c));
  return { payloadDigest: packed.slice(c + 1, p), recordId: packed.slice(p, r), warcDate: packed.slice(r, d), url: packed.slice(d) };
}

/** Content digests seen in this crawl. */
export class DedupIndex {
  /** Packed first captures ({@link packCapture}) by content digest, least recently matched first. */
  private readonly byDigest = new Map<string, string>();
  /** Confirmed since the last seal, and sealed (for the next promote). */
  private confirmed: [string, FirstCapture][] = [];
  private sealed: [string, FirstCapture][] = [];

  constructor(
    private readonly maxDigests: number,
    private readonly store: DedupStore | null = null,
  ) {}

  get size(): number {
    return this.byDigest.size;
  }

  /** The first capture of `contentDigest`, if remembered (in memory, else in the store). */
  find(contentDigest: string): FirstCapture | undefined {
    const hit = this.byDigest.get(contentDigest);
    if (hit !== undefined) {
      this.byDigest.delete(contentDigest);
      this.byDigest.set(contentDigest, hit);
      return unpackCapture(hit);
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
    this.byDigest.set(contentDigest, packCapture(capture));
    if (this.byDigest.size > this.maxDigests) {
      const oldest = this.byDigest.keys().next().value;
      if (oldest !== undefined) this.byDigest.delete(oldest);
    }
  }
}
