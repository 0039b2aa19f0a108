/**
 * The index a WARC replay serves from: for every URL of the given WARC files, where its captures
 * lie (file, offset, length), when they were made and the digest of their payload. Built once at
 * start, from the CDXJ index beside a file when there is one that names it (shoal's `index.cdxj`,
 * a pywb collection's `indexes/index.cdxj`, or `FILE.cdxj`), else by walking the file's records
 * ({@link scanWarc}); the bodies stay in the files and are read when asked for.
 *
 * URLs are keyed by host, path and query, without scheme or port: the replay answers on its own
 * port over plain HTTP, whatever the capture's scheme and port were.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { isIP } from 'node:net';
import { parseCdxjLine } from '../store/warc/cdxj.js';
import { readLines } from '../store/read-lines.js';
import { isGzipFile, scanWarc, WarcFormatError } from '../store/warc/warc-scan.js';

/** One WARC file of a replay. */
export interface WarcFile {
  /** Absolute path. */
  readonly path: string;
  readonly isGzip: boolean;
  /** Where its index came from: a CDXJ file beside it, or a walk over its records. */
  readonly indexedFrom: string;
  /** Captures indexed from it. */
  readonly captures: number;
  /** Why the walk stopped before the end of the file (a torn tail), or null. */
  readonly problem: string | null;
}

/** One capture of a URL: a `response`, `revisit` or `resource` record. */
export interface WarcCapture {
  readonly file: number;
  readonly offset: number;
  /** Bytes of the record in the file, when known. */
  readonly length: number | undefined;
  /** `WARC-Date`, ms since the epoch (second precision when indexed from CDXJ). */
  readonly dateMs: number;
  /** Payload digest, upper case, with its algorithm (`SHA1:…`), or null. */
  readonly digest: string | null;
  readonly isRevisit: boolean;
  /** Order of indexing: of two captures of one second, the later one in the files wins. */
  readonly seq: number;
}

const INDEXED_TYPES = new Set(['response', 'revisit', 'resource']);

/**
 * The key of a URL: host (lower case, IDNs in punycode), path and query; null for a URL that is not
 * http(s) or has no host name.
 */
export function captureKey(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null;
  return `${u.hostname}${u.pathname}${u.search}`;
}

/** A payload digest in one form: algorithm and value in upper case; a bare value is SHA-1 (CDXJ writes it so). */
export function digestKey(digest: string | null | undefined): string | null {
  if (digest === null || digest === undefined || digest.trim() === '') return null;
  const d = digest.trim().toUpperCase();
  return d.includes(':') ? d : `SHA1:${d}`;
}

/** The captures of every URL of some WARC files. */
export class WarcIndex {
  private readonly byKey = new Map<string, WarcCapture[]>();
  private readonly byDigest = new Map<string, WarcCapture>();
  private readonly hostSet = new Set<string>();
  private readonly fileList: WarcFile[] = [];
  private seq = 0;

  private constructor() {}

  /** Indexes `paths`; throws {@link WarcFormatError} naming a file that is not a WARC. */
  static async open(paths: readonly string[]): Promise<WarcIndex> {
    const index = new WarcIndex();
    for (const p of paths) await index.addFile(resolve(p));
    return index;
  }

  get files(): readonly WarcFile[] {
    return this.fileList;
  }

  /** Host names that have at least one capture, sorted; IP literals are left out (no name to map). */
  get hosts(): string[] {
    return [...this.hostSet].sort();
  }

  /** Distinct URLs (keys) indexed. */
  get urlCount(): number {
    return this.byKey.size;
  }

  /** Captures of a key, newest first. */
  captures(key: string): readonly WarcCapture[] {
    return this.byKey.get(key) ?? [];
  }

  /**
   * The capture whose payload a revisit stands for: a non-revisit capture of `refersToUrl` made at
   * `refersToDate` (to the second), else one of it with the same digest, else the newest of it; with
   * no such URL, the first capture anywhere with the same digest. Null when none is indexed.
   */
  original(refersToUrl: string | null, refersToDate: string | null, digest: string | null): WarcCapture | null {
    const d = digestKey(digest);
    const key = refersToUrl === null ? null : captureKey(refersToUrl);
    const candidates = (key === null ? [] : this.captures(key)).filter((c) => !c.isRevisit);
    if (candidates.length > 0) {
      const at = refersToDate === null ? Number.NaN : Math.floor(Date.parse(refersToDate) / 1000);
      return (
        candidates.find((c) => Math.floor(c.dateMs / 1000) === at) ??
        candidates.find((c) => d !== null && c.digest === d) ??
        (candidates[0] as WarcCapture)
      );
    }
    return d === null ? null : (this.byDigest.get(d) ?? null);
  }

  /** Where a capture lies, for {@link openRecord}. */
  locate(c: WarcCapture): { path: string; offset: number; length?: number; isGzip: boolean } {
    const f = this.fileList[c.file] as WarcFile;
    return { path: f.path, offset: c.offset, isGzip: f.isGzip, ...(c.length === undefined ? {} : { length: c.length }) };
  }

  private add(url: string, capture: Omit<WarcCapture, 'seq'>): void {
    const key = captureKey(url);
    if (key === null) return;
    const c: WarcCapture = { ...capture, seq: this.seq++ };
    const list = this.byKey.get(key);
    if (list === undefined) this.byKey.set(key, [c]);
    else {
      // Newest first; captures mostly arrive in date order, so this is an insertion at the front.
      let i = 0;
      while (i < list.length && newer(list[i] as WarcCapture, c)) i++;
      list.splice(i, 0, c);
    }
    if (!c.isRevisit && c.digest !== null && !this.byDigest.has(c.digest)) this.byDigest.set(c.digest, c);
    const host = key.slice(0, key.indexOf('/'));
    if (isIP(host.replace(/^\[|\]$/g, '')) === 0) this.hostSet.add(host);
  }

  private async addFile(path: string): Promise<void> {
    if (!existsSync(path) || !statSync(path).isFile()) throw new WarcFormatError(`${path}: no such file`);
    const isGzip = await isGzipFile(path);
    const file = this.fileList.length;
    const size = statSync(path).size;
    for (const cdxj of cdxjCandidates(path)) {
      const n = await this.addFromCdxj(cdxj, basename(path), file, size);
      if (n > 0) {
        this.fileList.push({ path, isGzip, indexedFrom: cdxj, captures: n, problem: null });
        return;
      }
    }
    let n = 0;
    const it = scanWarc(path);
    let step = await it.next();
    for (; step.done !== true; step = await it.next()) {
      const { head, offset, length } = step.value;
      const f = head.fields;
      const type = f.get('warc-type') ?? '';
      const url = f.get('warc-target-uri');
      if (!INDEXED_TYPES.has(type) || url === undefined) continue;
      const dateMs = Date.parse(f.get('warc-date') ?? '');
      this.add(stripAngles(url), {
        file,
        offset,
        length,
        dateMs: Number.isFinite(dateMs) ? dateMs : 0,
        digest: digestKey(f.get('warc-payload-digest')),
        isRevisit: type === 'revisit',
      });
      n++;
    }
    this.fileList.push({ path, isGzip, indexedFrom: 'scan', captures: n, problem: step.value.problem });
  }

  /**
   * Adds the lines of `cdxj` that name `filename`; 0 when there are none. A line pointing past the
   * end of the file means the index is not this file's: every line of it is dropped again.
   */
  private async addFromCdxj(cdxj: string, filename: string, file: number, size: number): Promise<number> {
    const found: { url: string; capture: Omit<WarcCapture, 'seq'> }[] = [];
    for await (const line of readLines(cdxj)) {
      const e = parseCdxjLine(line.text);
      if (e === null || basename(e.filename) !== filename || e.url === '') continue;
      if (e.offset + e.length > size || e.length <= 0) return 0;
      const dateMs = Date.parse(e.timestamp.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:$6Z'));
      found.push({
        url: stripAngles(e.url),
        capture: {
          file,
          offset: e.offset,
          length: e.length,
          dateMs: Number.isFinite(dateMs) ? dateMs : 0,
          digest: digestKey(e.digest),
          isRevisit: e.mime === 'warc/revisit',
        },
      });
    }
    for (const f of found) this.add(f.url, f.capture);
    return found.length;
  }
}

function newer(a: WarcCapture, b: WarcCapture): boolean {
  return a.dateMs > b.dateMs || (a.dateMs === b.dateMs && a.seq > b.seq);
}

/** WARC/1.0 writers may wrap the target URI in angle brackets. */
function stripAngles(uri: string): string {
  return uri.startsWith('<') && uri.endsWith('>') ? uri.slice(1, -1) : uri;
}

/** CDXJ files that may index `path`: shoal's and warcio's beside it, a pywb collection's. */
function cdxjCandidates(path: string): string[] {
  const dir = dirname(path);
  return [`${path}.cdxj`, join(dir, 'index.cdxj'), join(dir, '..', 'indexes', 'index.cdxj')].filter((p) => existsSync(p));
}
