/**
 * The link graph of a crawl with anchor text (SPEC §2 item 11), in a compact form the simulator
 * reads back as a CSR (SPEC §6: "replayed on the link graph of a real crawl"). Three append-only
 * files in `<crawl dir>/links/`, borrowing the test web's truth format (`src/web/truth/format.ts`):
 * a TSV with a header line for the strings, little-endian uint32 ids for the graph.
 *
 * - `urls.tsv`: the URL dictionary. Header `id\turl`, then one line `<id>\t<url>` per URL, ids dense
 *   from 0 in the order URLs were first named (as a source or a target). A URL holds no tab or line
 *   break (the writer refuses one).
 * - `anchors.txt`: anchor texts as UTF-8, back to back, no separators (so they may hold anything,
 *   line breaks included), referred to by offset and length. A text repeated recently (menus on every
 *   page of a site) is written once and shared.
 * - `links.bin`: a 16-byte header, then one 20-byte record per link in the order links were added
 *   (layout at {@link LINK_RECORD_BYTES}). Duplicate links and self-links are kept as found.
 *
 * Crash safety: links depend on the URLs and anchor texts they name (`AppendFile.dependsOn`): those
 * reach the kernel, and the disk, first. On `start()` each file's torn tail is cut, then a link
 * record is kept only if its checksum holds, both ids are in `urls.tsv` and its anchor lies inside
 * `anchors.txt`, so after a crash the graph is a prefix of the links added. Bytes of `anchors.txt`
 * that no kept link names (written just before a crash) stay, unreferenced.
 *
 * Memory: the URL → id dictionary maps each URL's 64-bit fingerprint (`url/fingerprint.ts`, the
 * identity the URL-seen set uses too) to its id in typed arrays: 12–24 bytes per URL and no string,
 * so 10 million URLs take about 200 MB. Past that the dictionary belongs on disk, like the URL-seen
 * set (`src/seen/disk-seen-set.ts`); `LinkGraphWriter.urlIdOfFingerprint` is the one place that would ask
 * it. Everything else is bounded: one buffer per file and the anchor cache (at most
 * `anchorCacheEntries` texts of 256 characters or fewer).
 */
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { detach } from '../core/strings.js';
import { FingerprintMap, NOT_FOUND } from '../core/fingerprint-map.js';
import { urlFingerprintInto } from '../url/fingerprint.js';
import { AppendFile, type AppendFileOptions, type AppendRepairReport } from './append-file.js';
import { readLines } from './read-lines.js';

/** Default directory of the link graph in the crawl directory. */
export const LINK_GRAPH_DIR = 'links';
/** The URL dictionary. */
export const URLS_FILE = 'urls.tsv';
/** Anchor texts, referred to by offset and length. */
export const ANCHORS_FILE = 'anchors.txt';
/** The link records. */
export const LINKS_FILE = 'links.bin';
/** First line of `urls.tsv`. */
export const URLS_HEADER = 'id\turl';

/** Bits of a link record's flags byte. */
export const LinkFlag = {
  /** rel=nofollow (or ugc, sponsored) on the link, or meta robots nofollow on the page. */
  nofollow: 0x01,
  /** A navigation link (menu, header, footer) rather than one in the content. */
  nav: 0x02,
  /** Not a link but a redirect: the source answered 3xx with the target as `Location`. */
  redirect: 0x04,
  /** `<frame src>` or `<iframe src>`: the target is part of the source page. */
  frame: 0x08,
} as const;
export type LinkFlag = (typeof LinkFlag)[keyof typeof LinkFlag];
/** Every defined flag bit; the writer refuses others (bits 4–7 are kept for later versions, and readers pass them through). */
export const LINK_FLAG_MASK = 0x0f;

/** `links.bin` starts with these 8 ASCII bytes, then the version and the record size (uint32 LE each). */
export const LINKS_MAGIC = 'SHOALLNK';
/** Version of the `links.bin` layout this code writes and reads. */
export const LINKS_VERSION = 1;
/** Size of the `links.bin` header, in bytes. */
export const LINKS_HEADER_BYTES = 16;
/**
 * Size of one link record: five little-endian uint32 words (4-byte aligned after the 16-byte
 * header, so a reader may view the file as a Uint32Array):
 *
 * | word | bits  | field |
 * |------|-------|-------|
 * | 0    | 0–31  | source URL id |
 * | 1    | 0–31  | target URL id |
 * | 2    | 0–31  | anchor text offset in `anchors.txt`, low 32 bits (0 for an empty anchor) |
 * | 3    | 0–15  | anchor text offset, high 16 bits (offsets up to 2^48) |
 * | 3    | 16–31 | anchor text length in bytes (at most {@link MAX_ANCHOR_BYTES}) |
 * | 4    | 0–7   | flags ({@link LinkFlag}) |
 * | 4    | 8–15  | reserved, 0 |
 * | 4    | 16–31 | check: {@link linkRecordCheck} of the rest, so that zeros or stale blocks left by a power loss are not read as links |
 */
export const LINK_RECORD_BYTES = 20;
/** Longest anchor text kept, in UTF-8 bytes; a longer one is cut at a character boundary. */
export const MAX_ANCHOR_BYTES = 0xffff;

/** The 16-byte header of `links.bin`. */
export function linksHeader(): Buffer {
  const h = Buffer.alloc(LINKS_HEADER_BYTES);
  h.write(LINKS_MAGIC, 0, 'latin1');
  h.writeUInt32LE(LINKS_VERSION, 8);
  h.writeUInt32LE(LINK_RECORD_BYTES, 12);
  return h;
}

function mix(h: number, w: number): number {
  const x = Math.imul(h ^ w, 0x9e3779b1);
  return x ^ (x >>> 15);
}

/**
 * The 16-bit check of a link record: a multiplicative hash of words 0–3 and the low 16 bits of word
 * 4, seeded so that an all-zero record does not pass. Detects damage, not tampering.
 */
export function linkRecordCheck(w0: number, w1: number, w2: number, w3: number, low16: number): number {
  let h = mix(mix(mix(mix(mix(0x5bd1e995, w0), w1), w2), w3), low16);
  h = Math.imul(h ^ (h >>> 13), 0x85ebca6b);
  return (h ^ (h >>> 16)) & 0xffff;
}

/** A link record, decoded. */
export interface LinkRecord {
  readonly source: number;
  readonly target: number;
  readonly anchorOffset: number;
  readonly anchorBytes: number;
  readonly flags: number;
}

/** Decodes the record at `at` of `buf`, or null when its check fails. */
export function decodeLinkRecord(buf: Buffer, at = 0): LinkRecord | null {
  const w0 = buf.readUInt32LE(at);
  const w1 = buf.readUInt32LE(at + 4);
  const w2 = buf.readUInt32LE(at + 8);
  const w3 = buf.readUInt32LE(at + 12);
  const w4 = buf.readUInt32LE(at + 16);
  if (w4 >>> 16 !== linkRecordCheck(w0, w1, w2, w3, w4 & 0xffff)) return null;
  return { source: w0, target: w1, anchorOffset: (w3 & 0xffff) * 2 ** 32 + w2, anchorBytes: w3 >>> 16, flags: w4 & 0xff };
}

/** Why the record at `at` cannot be a link of a graph with `urlCount` URLs and `anchorsBytes` of anchor text; null if it can. */
export function linkRecordProblem(buf: Buffer, at: number, urlCount: number, anchorsBytes: number): string | null {
  const r = decodeLinkRecord(buf, at);
  if (r === null) return 'its check does not match (damaged)';
  if (r.source >= urlCount || r.target >= urlCount)
    return `it names URL ${Math.max(r.source, r.target)}, beyond the ${urlCount} of ${URLS_FILE}`;
  if (r.anchorOffset + r.anchorBytes > anchorsBytes) return `its anchor text ends beyond the ${anchorsBytes} bytes of ${ANCHORS_FILE}`;
  return null;
}

function encodeLinkRecord(buf: Buffer, source: number, target: number, anchorOffset: number, anchorBytes: number, flags: number): void {
  const w2 = anchorOffset % 2 ** 32;
  const w3 = (Math.floor(anchorOffset / 2 ** 32) | (anchorBytes << 16)) >>> 0;
  buf.writeUInt32LE(source, 0);
  buf.writeUInt32LE(target, 4);
  buf.writeUInt32LE(w2, 8);
  buf.writeUInt32LE(w3, 12);
  buf.writeUInt32LE((flags | (linkRecordCheck(source, target, w2, w3, flags) << 16)) >>> 0, 16);
}

const URL_LINE = /^(\d+)\t([^\t\r]+)$/;

function checkFlags(flags: number): void {
  if (!Number.isInteger(flags) || (flags & ~LINK_FLAG_MASK) !== 0) throw new RangeError(`link flags must be LinkFlag bits, got ${flags}`);
}

/** One link to add from a page. */
export interface LinkToWrite {
  readonly target: string;
  /** Anchor text; default ''. */
  readonly anchorText?: string;
  /** {@link LinkFlag} bits; default 0. */
  readonly flags?: number;
}

/** Options of {@link LinkGraphWriter}. */
export interface LinkGraphWriterOptions extends Pick<AppendFileOptions, 'bufferBytes' | 'syncEveryBytes' | 'repairScanBytes'> {
  /** Directory of the three files, usually `<crawl dir>/links` ({@link LINK_GRAPH_DIR}); created if missing. */
  readonly dir: string;
  /** Distinct recent anchor texts remembered so a repeat is written once. Default 4096; 0 turns sharing off. */
  readonly anchorCacheEntries?: number;
}

/** What {@link LinkGraphWriter.start} found. */
export interface LinkGraphResumeReport {
  readonly urls: AppendRepairReport;
  readonly anchors: AppendRepairReport;
  readonly links: AppendRepairReport;
  readonly urlCount: number;
  readonly linkCount: number;
}

/** Anchor texts longer than this (UTF-16 units) are not cached: they seldom repeat. */
const MAX_CACHED_ANCHOR_CHARS = 256;

/**
 * Writes the link graph. Lifecycle: construct, `await start()` (creates the files, or repairs them
 * and reloads the URL dictionary), `addLinks` per page, `flush()` at checkpoints, `close()`
 * (idempotent). Ids are stable across a resume.
 */
export class LinkGraphWriter {
  private readonly urls: AppendFile;
  private readonly anchors: AppendFile;
  private readonly links: AppendFile;
  /** URL fingerprint → id (stored as int32: ids up to 2^32 − 2 read back with `>>> 0`). */
  private readonly ids = new FingerprintMap(4096);
  private readonly fingerprint = new Uint32Array(2);
  private readonly anchorCache = new Map<string, readonly [offset: number, bytes: number]>();
  private readonly anchorCacheEntries: number;
  private readonly record = Buffer.alloc(LINK_RECORD_BYTES);
  private linksWritten = 0;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: LinkGraphWriterOptions) {
    const { dir, anchorCacheEntries, ...fileOptions } = options;
    this.anchorCacheEntries = anchorCacheEntries ?? 4096;
    this.urls = new AppendFile({
      ...fileOptions,
      path: join(dir, URLS_FILE),
      framing: { kind: 'lines' },
      header: Buffer.from(`${URLS_HEADER}\n`),
      isValidRecord: (line) => URL_LINE.test(line.toString('utf8')),
    });
    this.anchors = new AppendFile({ ...fileOptions, path: join(dir, ANCHORS_FILE), framing: { kind: 'bytes' } });
    this.links = new AppendFile({
      ...fileOptions,
      path: join(dir, LINKS_FILE),
      framing: { kind: 'fixed', recordBytes: LINK_RECORD_BYTES },
      header: linksHeader(),
      // Called by links.start(), after the dictionary is loaded and anchors.txt opened.
      isValidRecord: (rec) => linkRecordProblem(rec, 0, this.ids.size, this.anchors.size) === null,
      dependsOn: [this.urls, this.anchors],
    });
  }

  /** URLs in the dictionary. */
  get urlCount(): number {
    return this.ids.size;
  }

  /** Links written (kept ones after a resume included). */
  get linkCount(): number {
    return this.linksWritten;
  }

  /** The dictionary file, for a store whose records name URL ids and so must follow it (`dependsOn`). */
  get urlDictionaryFile(): AppendFile {
    return this.urls;
  }

  /**
   * The link records' file (which itself follows the dictionary and the anchor texts), for a store
   * whose records must reach the disk after a page's links (`dependsOn`).
   */
  get linksFile(): AppendFile {
    return this.links;
  }

  /** Creates the files, or repairs them and reloads the dictionary; see the file comment. */
  async start(): Promise<LinkGraphResumeReport> {
    const urls = await this.urls.start();
    await this.loadDictionary();
    const anchors = await this.anchors.start();
    const links = await this.links.start();
    this.linksWritten = (links.keptBytes - LINKS_HEADER_BYTES) / LINK_RECORD_BYTES;
    return { urls, anchors, links, urlCount: this.ids.size, linkCount: this.linksWritten };
  }

  private async loadDictionary(): Promise<void> {
    const path = this.urls.path;
    for await (const line of readLines(path)) {
      if (line.lineNumber === 1) continue; // the header, checked by AppendFile
      const m = URL_LINE.exec(line.text);
      if (m === null || Number(m[1]) !== this.ids.size || this.idOf(m[2] as string) !== NOT_FOUND) {
        throw new ShoalError(
          'IO',
          `${path}:${line.lineNumber}: expected URL id ${this.ids.size} and a URL not seen before: the dictionary is damaged`,
        );
      }
      this.ids.set(this.fingerprint[0] as number, this.fingerprint[1] as number, this.ids.size);
    }
  }

  /**
   * The id of `url`, assigned (and written to `urls.tsv`) when it is new.
   *
   * @throws RangeError when `url` is empty or holds a tab or a line break.
   */
  urlId(url: string): number {
    urlFingerprintInto(url, this.fingerprint);
    return this.urlIdOfFingerprint(url, this.fingerprint[0] as number, this.fingerprint[1] as number);
  }

  /** {@link urlId} for a URL whose fingerprint (hi, lo) the caller computed already. */
  private urlIdOfFingerprint(url: string, hi: number, lo: number): number {
    const known = this.ids.get(hi, lo);
    if (known !== NOT_FOUND) return known >>> 0;
    if (url.length === 0 || /[\t\r\n]/.test(url))
      throw new RangeError(`a URL of the link graph must be non-empty, without tabs or line breaks: ${JSON.stringify(url)}`);
    const id = this.ids.size;
    if (id > 0xfffffffe) throw new RangeError('the link graph holds 2^32 - 1 URLs, its most');
    this.urls.append(`${id}\t${url}\n`);
    this.ids.set(hi, lo, id);
    return id;
  }

  /** The stored id of `url` (as int32), or NOT_FOUND; leaves its fingerprint in `this.fingerprint`. */
  private idOf(url: string): number {
    urlFingerprintInto(url, this.fingerprint);
    return this.ids.get(this.fingerprint[0] as number, this.fingerprint[1] as number);
  }

  /**
   * Adds one link (or redirect, with {@link LinkFlag.redirect}).
   *
   * @throws RangeError when `flags` has bits outside {@link LINK_FLAG_MASK}, or a URL is invalid (see {@link urlId}).
   */
  addLink(source: string, target: string, anchorText = '', flags = 0): void {
    checkFlags(flags);
    const s = this.urlId(source);
    this.writeLink(s, this.urlId(target), anchorText, flags);
  }

  /**
   * Adds the links of one page, in order, with the same ids and records as {@link addLink} one by
   * one; the source URL is looked up once. `fingerprints`, when given, holds each target's
   * fingerprint (`url/fingerprint.ts`) at words (2i, 2i + 1), as a caller that hashed the links
   * already has them: the targets are then not hashed again.
   *
   * @throws RangeError as {@link addLink} does; the links before the bad one are added.
   */
  addLinks(source: string, links: readonly LinkToWrite[], fingerprints?: Uint32Array): void {
    let s = -1;
    for (let i = 0; i < links.length; i++) {
      const l = links[i] as LinkToWrite;
      const flags = l.flags ?? 0;
      checkFlags(flags);
      if (s < 0) s = this.urlId(source);
      const t =
        fingerprints === undefined
          ? this.urlId(l.target)
          : this.urlIdOfFingerprint(l.target, fingerprints[2 * i] as number, fingerprints[2 * i + 1] as number);
      this.writeLink(s, t, l.anchorText ?? '', flags);
    }
  }

  private writeLink(source: number, target: number, anchorText: string, flags: number): void {
    const [offset, bytes] = this.anchorRef(anchorText);
    encodeLinkRecord(this.record, source, target, offset, bytes, flags);
    this.links.append(this.record);
    this.linksWritten++;
  }

  /** Writes an anchor text (or finds it among recent ones): its offset and length in `anchors.txt`. */
  private anchorRef(text: string): readonly [number, number] {
    if (text.length === 0) return [0, 0]; // names no bytes, so no cut of anchors.txt can invalidate it
    const isCached = this.anchorCacheEntries > 0 && text.length <= MAX_CACHED_ANCHOR_CHARS;
    if (isCached) {
      const hit = this.anchorCache.get(text);
      if (hit !== undefined) return hit;
    }
    let bytes: Buffer | string = text;
    if (text.length * 3 > MAX_ANCHOR_BYTES) {
      const b = Buffer.from(text, 'utf8');
      let cut = Math.min(b.length, MAX_ANCHOR_BYTES);
      while (cut < b.length && cut > 0 && ((b[cut] as number) & 0xc0) === 0x80) cut--; // not inside a character
      bytes = b.subarray(0, cut);
    }
    const offset = this.anchors.size;
    this.anchors.append(bytes);
    const ref = [offset, this.anchors.size - offset] as const;
    if (isCached) {
      // Clearing rather than evicting one by one: a site's menu texts come back on its next page.
      if (this.anchorCache.size >= this.anchorCacheEntries) this.anchorCache.clear();
      // The text may be cut from the page's own characters (an analysis in the crawl thread).
      this.anchorCache.set(detach(text), ref);
    }
    return ref;
  }

  /** Makes every URL, anchor text and link added so far durable (in that order). */
  async flush(): Promise<void> {
    await this.urls.flush();
    await this.anchors.flush();
    await this.links.flush();
  }

  /** Flushes and closes the three files; idempotent. */
  close(): Promise<void> {
    // Links first: their close may still fsync the files they depend on.
    this.closing ??= this.links.close().finally(() => Promise.all([this.anchors.close(), this.urls.close()]));
    return this.closing;
  }
}
