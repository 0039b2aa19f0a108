/**
 * The CDXJ index of the WARC files, as pywb and ReplayWeb.page read it: one line per `response` or
 * `revisit` record,
 *
 *     <SURT key> <14-digit timestamp> {"url":…,"mime":…,"status":…,"digest":…,"length":…,"offset":…,"filename":…}
 *
 * with `status`, `length` and `offset` as strings and `digest` without its `sha1:` prefix, exactly
 * as `cdxj-indexer` and warcio write them. `length` and `offset` locate the record's gzip member.
 *
 * During a crawl `index.cdxj` is appended to in write order (one line per record, O(1), and a kill
 * at any moment leaves at worst a torn last line). pywb binary-searches its indexes, so a finished
 * crawl is sorted once with {@link sortCdxj}; ReplayWeb.page loads either order. Keeping the append
 * order while crawling is also what makes {@link reconcileCdxj} cheap: the lines of the file being
 * written are always the last ones.
 *
 * The key is the SURT form of the URL made by pywb's `surt` package (Internet Archive's
 * canonicalizer); see {@link surtKey}.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  writevSync,
} from 'node:fs';
import { parseHttpHead, parseWarcHead, WarcType, type WarcRecord } from './warc-record.js';

/** One index line. */
export interface CdxjEntry {
  /** SURT key of `url` ({@link surtKey}). */
  readonly urlkey: string;
  /** `YYYYMMDDhhmmss` of the record's `WARC-Date`. */
  readonly timestamp: string;
  readonly url: string;
  /** Payload media type (`text/html`), `warc/revisit` for revisits, `unk` when unknown. */
  readonly mime: string;
  /** HTTP status as text, or null when the record has no HTTP head. */
  readonly status: string | null;
  /** Base32 SHA-1 of the payload (without `sha1:`), or null. */
  readonly digest: string | null;
  /** Compressed length of the record's gzip member, bytes. */
  readonly length: number;
  /** Offset of the record's gzip member in its file, bytes. */
  readonly offset: number;
  /** WARC file name (no directory). */
  readonly filename: string;
}

/** Where a record was written. */
export interface RecordLocation {
  readonly filename: string;
  readonly offset: number;
  readonly length: number;
}

/** `YYYYMMDDhhmmss` of a `WARC-Date` (any precision). */
export function cdxjTimestamp(warcDate: string): string {
  return warcDate.replace(/\D/g, '').slice(0, 14);
}

function digestValue(payloadDigest: string | null | undefined): string | null {
  if (payloadDigest === null || payloadDigest === undefined || payloadDigest === '') return null;
  const colon = payloadDigest.indexOf(':');
  return colon < 0 ? payloadDigest : payloadDigest.slice(colon + 1);
}

function entry(
  type: string,
  url: string,
  date: string,
  payloadDigest: string | null | undefined,
  http: { status: number | null; mime: string | null } | null,
  at: RecordLocation,
): CdxjEntry | null {
  if (type !== WarcType.response && type !== WarcType.revisit) return null;
  return {
    urlkey: surtKey(url),
    timestamp: cdxjTimestamp(date),
    url,
    mime: type === WarcType.revisit ? 'warc/revisit' : (http?.mime ?? 'unk'),
    status: http?.status === null || http?.status === undefined ? null : String(http.status),
    digest: digestValue(payloadDigest),
    length: at.length,
    offset: at.offset,
    filename: at.filename,
  };
}

/** The index entry of a record just written, or null for record types that are not indexed. */
export function cdxjEntry(record: WarcRecord, at: RecordLocation): CdxjEntry | null {
  return entry(record.type, record.targetUri ?? '', record.date, record.payloadDigest, record.http, at);
}

/** The index entry of a stored record, from its uncompressed bytes (header and at least the HTTP head). */
export function cdxjEntryFromStored(data: Buffer, at: RecordLocation): CdxjEntry | null {
  const head = parseWarcHead(data);
  if (head === null) return null;
  const f = head.fields;
  const block = data.subarray(head.headerLength);
  const http = (f.get('content-type') ?? '').startsWith('application/http') ? parseHttpHead(block) : null;
  return entry(f.get('warc-type') ?? '', f.get('warc-target-uri') ?? '', f.get('warc-date') ?? '', f.get('warc-payload-digest'), http, at);
}

/** The line of `e`, without its newline. */
export function cdxjLine(e: CdxjEntry): string {
  const json: Record<string, string> = { url: e.url, mime: e.mime };
  if (e.status !== null) json.status = e.status;
  if (e.digest !== null) json.digest = e.digest;
  json.length = String(e.length);
  json.offset = String(e.offset);
  json.filename = e.filename;
  return `${e.urlkey} ${e.timestamp} ${JSON.stringify(json)}`;
}

/** Reads one line back; null when it is not a CDXJ line with a location. */
export function parseCdxjLine(line: string): CdxjEntry | null {
  const m = /^(\S+) (\d{14}) (\{.*\})\s*$/.exec(line);
  if (m === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(m[3] ?? '');
  } catch {
    return null; // a torn or foreign line: the caller decides what to do with it
  }
  if (typeof json !== 'object' || json === null) return null;
  const j = json as Record<string, unknown>;
  const offset = Number(j.offset);
  const length = Number(j.length);
  if (typeof j.filename !== 'string' || !Number.isSafeInteger(offset) || !Number.isSafeInteger(length)) return null;
  return {
    urlkey: m[1] ?? '',
    timestamp: m[2] ?? '',
    url: String(j.url ?? ''),
    mime: String(j.mime ?? 'unk'),
    status: j.status === undefined ? null : String(j.status),
    digest: j.digest === undefined ? null : String(j.digest),
    length,
    offset,
    filename: j.filename,
  };
}

// --- SURT ----------------------------------------------------------------------------------------

const QUERY_SESSION_IDS = [
  /^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$/i,
  /^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$/i,
  /^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$/i,
];
const PATH_SESSION_IDS = [/^(.*\/)(\((?:[a-z]\([0-9a-z]{24}\))+\)\/)([^?]+\.aspx.*)$/i, /^(.*\/)(\([0-9a-z]{24}\)\/)([^?]+\.aspx.*)$/i];

/** Decodes `%XX` until nothing changes, then reads the bytes as UTF-8 (invalid bytes become U+FFFD). */
function unescapeRepeatedly(s: string): string {
  for (;;) {
    const u = s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (u === s) return Buffer.from(s, 'latin1').toString('utf8');
    s = u;
  }
}

/** Percent-encodes the UTF-8 bytes that are controls, space, non-ASCII, `#` or `%`; nothing else. */
function escapeOnce(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    out +=
      b <= 0x20 || b >= 0x7f || b === 0x23 || b === 0x25 ? `%${b.toString(16).toUpperCase().padStart(2, '0')}` : String.fromCharCode(b);
  }
  return out;
}

/** Removes `.` and `..` segments and empty segments (but keeps a final `/`). */
function normalizePath(path: string): string {
  const kept: string[] = [];
  for (const p of path.split('/').slice(1)) {
    if (p === '.') continue;
    if (p === '..') {
      if (kept.length > 0) kept.pop();
      else kept.push(p);
      continue;
    }
    kept.push(p);
  }
  let out = '/';
  for (let i = 0; i < kept.length - 1; i++) if (kept[i] !== '') out += `${kept[i]}/`;
  return out + (kept[kept.length - 1] ?? '');
}

/** Sorts `a=1&b` by name, then valueless before valued, then value (Python's tuple order). */
function alphaReorder(query: string): string {
  if (query.length <= 1) return query;
  const args = query.split('&').map((arg) => {
    const eq = arg.indexOf('=');
    return eq < 0 ? { name: arg, value: null } : { name: arg.slice(0, eq), value: arg.slice(eq + 1) };
  });
  args.sort((a, b) => {
    if (a.name !== b.name) return a.name < b.name ? -1 : 1;
    if (a.value === b.value) return 0;
    if (a.value === null) return -1;
    if (b.value === null) return 1;
    return a.value < b.value ? -1 : 1;
  });
  return args.map((a) => (a.value === null ? a.name : `${a.name}=${a.value}`)).join('&');
}

/**
 * SURT key of an http(s) URL, as pywb computes it with Internet Archive's canonicalizer (the `surt`
 * package's defaults): host lower case, IDNA, a leading `www`/`wwwN` label dropped, labels reversed
 * and comma-separated (IPv4 addresses too), a non-default port kept as `:port`, then `)` and the
 * path and query: percent-escapes decoded and only controls, space, non-ASCII, `#` and `%`
 * re-escaped, dot and empty segments removed, lower-cased, a trailing `/` dropped (except the root),
 * well-known session ids removed, query arguments sorted, an empty query and the fragment dropped.
 *
 * `http://www.Example.com/A/?b=2&a=1#x` → `com,example)/a?a=1&b=2`.
 *
 * Departures, all rare: host names go through the WHATWG URL parser (UTS #46 IDNA rather than the
 * package's IDNA 2003, so `ß` is kept rather than mapped to `ss`); URLs other than http(s), or that do
 * not parse, are returned unchanged.
 */
export function surtKey(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return url;
  const host = u.hostname
    .replace(/\.{2,}/g, '.')
    .replace(/^\.+|\.+$/g, '')
    .replace(/^www\d*\./, '');
  let key = host.startsWith('[') ? host : host.split('.').reverse().join(',');
  if (u.port !== '') key += `:${u.port}`; // the parser has already dropped default ports
  let path = escapeOnce(normalizePath(unescapeRepeatedly(u.pathname))).toLowerCase();
  for (const re of PATH_SESSION_IDS) path = path.replace(re, '$1$3');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  key += `)${path}`;
  let query = u.search.slice(1);
  if (query !== '') {
    query = escapeOnce(unescapeRepeatedly(query));
    for (const re of QUERY_SESSION_IDS) {
      const m = re.exec(query);
      if (m !== null) query = (m[1] ?? '') + (m[2] ?? '');
    }
    query = alphaReorder(query.toLowerCase());
    if (query !== '') key += `?${query}`;
  }
  return key;
}

// --- maintenance ---------------------------------------------------------------------------------

/** What {@link reconcileCdxj} did. */
export interface CdxjReconcileReport {
  /** End (offset + length) of the last indexed record of the file; 0 when none of its lines is left. */
  readonly indexedEnd: number;
  /** Lines removed from the end: torn, unreadable, or pointing past the repaired end of the file. */
  readonly droppedLines: number;
}

/**
 * Brings an append-order index in line with a WARC file whose tail was repaired to `keptBytes`:
 * drops a torn last line and every trailing line that is unreadable or points past `keptBytes` in
 * `filename`, then reports where the kept lines of `filename` end, so that the caller can index
 * the records that made it to disk but not to the index. Reads only the end of the index.
 */
export function reconcileCdxj(indexPath: string, filename: string, keptBytes: number): CdxjReconcileReport {
  if (!existsSync(indexPath)) return { indexedEnd: 0, droppedLines: 0 };
  const fd = openSync(indexPath, 'r+');
  try {
    const size = fstatSync(fd).size;
    for (let block = 64 * 1024; ; block *= 2) {
      const from = Math.max(0, size - block);
      const buf = Buffer.allocUnsafe(size - from);
      let got = 0;
      while (got < buf.length) got += readSync(fd, buf, got, buf.length - got, from + got);
      const result = scanTail(buf, from, filename, keptBytes);
      if (result === null) continue; // a line reaches past the block: read more
      if (result.end < size) {
        ftruncateSync(fd, result.end);
        fsyncSync(fd);
      }
      return { indexedEnd: result.indexedEnd, droppedLines: result.droppedLines };
    }
  } finally {
    closeSync(fd);
  }
}

/** Walks lines backwards from the end of `buf` (which starts at file position `from`); null: need more. */
function scanTail(
  buf: Buffer,
  from: number,
  filename: string,
  keptBytes: number,
): { end: number; indexedEnd: number; droppedLines: number } | null {
  let end = buf.length; // relative end of the kept region
  let droppedLines = 0;
  if (end > 0 && buf[end - 1] !== 0x0a) {
    const nl = buf.lastIndexOf(0x0a);
    if (nl < 0 && from > 0) return null;
    end = nl + 1;
    droppedLines++;
  }
  while (end > 0) {
    // (Buffer#lastIndexOf counts a negative start from the end, hence the guard.)
    const start = end >= 2 ? buf.lastIndexOf(0x0a, end - 2) + 1 : 0;
    if (start === 0 && from > 0) return null;
    const e = parseCdxjLine(buf.toString('utf8', start, end - 1));
    if (e !== null && (e.filename !== filename || e.offset + e.length <= keptBytes)) {
      return { end: from + end, indexedEnd: e.filename === filename ? e.offset + e.length : 0, droppedLines };
    }
    end = start;
    droppedLines++;
  }
  return { end: from + end, indexedEnd: 0, droppedLines };
}

/**
 * Sorts a CDXJ file by byte order of its lines (what `LC_ALL=C sort` does and pywb's binary search
 * expects), writing `target` (default: in place) through a temporary file and a rename, so readers
 * see the old or the new index, never half of one. Sorts in memory: about twice the index size.
 * Sort only an index no writer is appending to.
 *
 * @returns the number of lines.
 */
export function sortCdxj(source: string, target: string = source): number {
  const data = readFileSync(source);
  const lines: Buffer[] = [];
  let start = 0;
  while (start < data.length) {
    let nl = data.indexOf(0x0a, start);
    if (nl < 0) nl = data.length;
    if (nl > start) lines.push(data.subarray(start, nl));
    start = nl + 1;
  }
  lines.sort(Buffer.compare);
  const NL = Buffer.from('\n');
  const tmp = `${target}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w');
  try {
    for (let i = 0; i < lines.length; i += 512)
      writevSync(
        fd,
        lines.slice(i, i + 512).flatMap((l) => [l, NL]),
      );
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, target);
  return lines.length;
}
