/**
 * One sitemap document (sitemaps.org protocol 0.9) turned into URLs, pure apart from zlib: the
 * fetcher brings the body, this module says what it lists. Never throws for anything a server sends.
 *
 * Formats, told apart by the bytes, never by the name or the Content-Type:
 * - gzip (magic bytes `1f 8b`): decompressed first, at most `maxBytes` of output kept (a gzip bomb
 *   stops there); a truncated stream keeps what it held, a corrupt one is the `bad-gzip` problem;
 * - XML (the first non-blank character is `<`, or a `<urlset` / `<sitemapindex` tag appears in the
 *   first chunk, after a PHP warning say): `<urlset>` with `<url>` entries (`loc`, `lastmod`,
 *   `changefreq`, `priority`) or `<sitemapindex>` with `<sitemap>` entries (`loc`, `lastmod`);
 * - plain text: one absolute URL per line.
 *
 * XML is read by htmlparser2 in XML mode, fed decoded text chunk by chunk. Real-world mess it takes:
 * namespace prefixes (`<sm:url>`, `<ns0:loc>`), a missing or misspelled default namespace (the root
 * element's namespace is the protocol's, whatever it is), CDATA, XML entities, blanks around a loc,
 * a UTF-8 or UTF-16 BOM, an `encoding` other than UTF-8 in the XML declaration, tag-name case,
 * missing end tags between entries. Elements of other namespaces (image, video, news extensions,
 * `xhtml:link` hreflang alternates) are skipped with everything inside them, so an `<image:loc>`
 * is never read as a page. An HTML page, a feed or any other root element yields no URL and a
 * problem saying which.
 *
 * Each loc is trimmed, must be absolute http(s), at most `maxLocChars` long, is normalized with
 * {@link normalizeUrl}, then passes the location rule (below) and a per-document duplicate test.
 * Every drop is counted. Only the first `maxUrls` entries are considered (protocol: 50,000 per
 * document); later ones are counted as `overCap`. Only the first `maxBytes` decoded bytes are read
 * (protocol: 50 MiB uncompressed); an entry cut at that point (no end tag for its loc, or no line
 * end in a text sitemap) is left out.
 *
 * Location rule (sitemaps.org "Sitemap file location"): a sitemap may list only URLs of its own
 * scheme, host and port, under the directory of its own path (`/a/sitemap.xml` lists `/a/...`).
 * A sitemap announced by a robots.txt `Sitemap:` line may list any URL of the robots.txt's origin
 * (the protocol's cross-submission: the robots.txt owner vouches for it); for the usual case, a
 * robots.txt pointing at its own host, that lifts only the directory restriction. `locationRule`
 * `same-origin` drops the directory part, `off` the whole rule.
 *
 * Sources: https://www.sitemaps.org/protocol.html (0.9), SPEC §2 item 1.
 */
import { Parser } from 'htmlparser2';
import { TextDecoder } from 'node:util';
import { constants as zc, createGunzip } from 'node:zlib';
import { normalizeUrl, type NormalizeOptions } from '../url/normalize.js';

/** Protocol limit: URLs (or child sitemaps) per document. */
export const DEFAULT_SITEMAP_MAX_URLS = 50_000;
/** Protocol limit: uncompressed size of a document, 50 MiB, in bytes. */
export const DEFAULT_SITEMAP_MAX_BYTES = 52_428_800;
/** Protocol limit: characters of a loc (the protocol says "less than 2,048"; shoal allows 2,048). */
export const DEFAULT_SITEMAP_MAX_LOC_CHARS = 2048;

/** Where a sitemap URL came from: the user (configuration, command line) or a robots.txt `Sitemap:` line. */
export type SitemapSource =
  | { readonly kind: 'user' }
  /** `robotsUrl`: the robots.txt that announced it (its origin is what the announcement vouches for). */
  | { readonly kind: 'robots'; readonly robotsUrl: string };

/** Which location rule applies (see the module comment). */
export const LocationRule = { protocol: 'protocol', sameOrigin: 'same-origin', off: 'off' } as const;
export type LocationRule = (typeof LocationRule)[keyof typeof LocationRule];

/** Why a document yields nothing. */
export const SitemapProblem = {
  /** No bytes, or only blanks. */
  empty: 'empty',
  /** An HTML page (root `<html>`, `<head>` or `<body>`, or an HTML doctype): an error or login page served with 200. */
  html: 'html',
  /** An RSS or Atom feed, which the protocol allows but shoal does not read. */
  feed: 'feed',
  /** XML with another root element, or text without a single absolute http(s) URL. */
  notSitemap: 'not-sitemap',
  /** gzip magic bytes, but the stream is corrupt. */
  badGzip: 'bad-gzip',
} as const;
export type SitemapProblem = (typeof SitemapProblem)[keyof typeof SitemapProblem];

/** How often a page changes, as the sitemap claims (`<changefreq>`). */
export const ChangeFreq = {
  always: 'always',
  hourly: 'hourly',
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  yearly: 'yearly',
  never: 'never',
} as const;
export type ChangeFreq = (typeof ChangeFreq)[keyof typeof ChangeFreq];

/** One page URL of a sitemap. Optional fields are null when absent or invalid. */
export interface SitemapUrl {
  /** Normalized absolute URL. */
  readonly url: string;
  /** `<lastmod>` (W3C Datetime; a time without zone read as UTC), ms since the epoch. */
  readonly lastmodMs: number | null;
  readonly changefreq: ChangeFreq | null;
  /** `<priority>`, 0.0 to 1.0. */
  readonly priority: number | null;
}

/** One child sitemap of a sitemap index. */
export interface SitemapRef {
  /** Normalized absolute URL. */
  readonly url: string;
  readonly lastmodMs: number | null;
}

/** Entries not kept, by reason (the labels of the counters). */
export interface SitemapDropCounts {
  /** No loc, or a loc that is empty, relative, not http(s), unparseable or over `maxLocChars`. */
  readonly invalid: number;
  /** Outside what the location rule allows. */
  readonly outOfLocation: number;
  /** Same normalized URL as an earlier entry of the document. */
  readonly duplicate: number;
  /** Past the first `maxUrls` entries. */
  readonly overCap: number;
}

interface ParseBase {
  /** Entries read: `<url>` or `<sitemap>` elements, non-blank text lines (kept or not). */
  readonly entryCount: number;
  readonly dropped: SitemapDropCounts;
  /** Whether the body was gzip (by its magic bytes). */
  readonly isGzip: boolean;
  /** Decoded bytes read (after gunzip; at most `maxBytes`). */
  readonly bytes: number;
  /** Whether the decoded document was longer than `maxBytes` (the rest was not read). */
  readonly isOverMaxBytes: boolean;
  /** Whether it held more than `maxUrls` entries (the rest were counted, not kept). */
  readonly isOverMaxUrls: boolean;
}

/** What one document lists. `kind` is the label of the document counters. */
export type SitemapParse =
  | (ParseBase & { readonly kind: 'urlset' | 'text'; readonly urls: readonly SitemapUrl[] })
  | (ParseBase & { readonly kind: 'index'; readonly sitemaps: readonly SitemapRef[] })
  | (ParseBase & { readonly kind: 'problem'; readonly problem: SitemapProblem; readonly message: string });

/** Where the document was found. */
export interface SitemapContext {
  /** The URL the document was fetched from (after redirects): absolute http(s). */
  readonly url: string;
  readonly source: SitemapSource;
}

/** Options of {@link parseSitemap}. */
export interface SitemapParseOptions {
  /** Entries kept per document (default {@link DEFAULT_SITEMAP_MAX_URLS}). */
  readonly maxUrls?: number;
  /** Decoded bytes read per document (default {@link DEFAULT_SITEMAP_MAX_BYTES}, bytes). */
  readonly maxBytes?: number;
  /** Longest loc accepted, in characters (default {@link DEFAULT_SITEMAP_MAX_LOC_CHARS}). */
  readonly maxLocChars?: number;
  /** Default `protocol`. */
  readonly locationRule?: LocationRule;
  /** Passed to {@link normalizeUrl} for every loc and for the sitemap URL itself (default none). */
  readonly normalize?: NormalizeOptions;
}

/** Bytes decoded and fed to the parser at a time. */
const CHUNK_BYTES = 1 << 20;
const SITEMAP_NS = /\/schemas\/sitemap\/[0-9.]+\/?$/i;
const XML_ROOT_HINT = /<(?:[\w.-]+:)?(?:urlset|sitemapindex)[\s>]/i;
const CHANGE_FREQS: ReadonlySet<string> = new Set(Object.values(ChangeFreq));
const PRIORITY = /^(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+)$/;
const W3C_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?)?)?$/;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`sitemap ${name} must be an integer >= 1, got ${String(value)}`);
  return value;
}

/**
 * `<lastmod>` as ms since the epoch: W3C Datetime (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, with a time
 * `Thh:mm[:ss[.s]]` and zone `Z` or `±hh:mm`); also a space for `T`, `±hhmm`, and no zone (UTC).
 * Null for anything else or an impossible date.
 */
export function parseW3cDatetime(text: string): number | null {
  const m = W3C_DATE.exec(text.trim());
  if (m === null) return null;
  const [, y, mo = '1', d = '1', h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const month = Number(mo) - 1;
  const ms = Date.UTC(Number(y), month, Number(d), Number(h), Number(mi), Number(s), frac === '' ? 0 : Math.round(Number(frac) * 1000));
  const check = new Date(ms);
  if (check.getUTCMonth() !== month || check.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  if (zone === 'Z' || zone === 'z') return ms;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return ms - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/** The part of a normalized URL a location allows: `scheme://host[:port]` plus a path prefix. */
function originOf(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** Builds the location test of a document, or throws RangeError for a context URL that is not http(s). */
function locationTest(context: SitemapContext, rule: LocationRule, normalize: NormalizeOptions): (url: string) => boolean {
  if (rule === LocationRule.off) return () => true;
  const own = normalizeUrl(context.url, undefined, normalize);
  if (own.kind !== 'ok') throw new RangeError(`sitemap URL ${JSON.stringify(context.url)} is not an absolute http(s) URL`);
  const origin = originOf(own.url);
  const path = new URL(own.url).pathname;
  const prefix = rule === LocationRule.sameOrigin ? `${origin}/` : `${origin}${path.slice(0, path.lastIndexOf('/') + 1)}`;
  let vouched: string | null = null;
  if (context.source.kind === 'robots') {
    const robots = normalizeUrl(context.source.robotsUrl, undefined, normalize);
    if (robots.kind !== 'ok')
      throw new RangeError(`robots.txt URL ${JSON.stringify(context.source.robotsUrl)} is not an absolute http(s) URL`);
    vouched = `${originOf(robots.url)}/`;
  }
  return (url) => url.startsWith(prefix) || (vouched !== null && url.startsWith(vouched));
}

/** Raw text of one entry's fields, as read. */
interface RawEntry {
  loc: string | null;
  lastmod: string | null;
  changefreq: string | null;
  priority: string | null;
}

/** Validates, normalizes, filters and counts entries. */
class EntryCollector {
  readonly urls: SitemapUrl[] = [];
  entryCount = 0;
  valid = 0;
  readonly dropped = { invalid: 0, outOfLocation: 0, duplicate: 0, overCap: 0 };
  private readonly seen = new Set<string>();

  constructor(
    private readonly isAllowed: (url: string) => boolean,
    private readonly maxUrls: number,
    private readonly maxLocChars: number,
    private readonly normalize: NormalizeOptions,
  ) {}

  add(raw: RawEntry): void {
    this.entryCount++;
    if (this.entryCount > this.maxUrls) {
      this.dropped.overCap++;
      return;
    }
    const loc = raw.loc?.trim() ?? '';
    const n = loc === '' || loc.length > this.maxLocChars ? null : normalizeUrl(loc, undefined, this.normalize);
    if (n === null || n.kind !== 'ok') {
      this.dropped.invalid++;
      return;
    }
    this.valid++;
    if (!this.isAllowed(n.url)) this.dropped.outOfLocation++;
    else if (this.seen.has(n.url)) this.dropped.duplicate++;
    else {
      this.seen.add(n.url);
      const priority = raw.priority === null ? '' : raw.priority.trim();
      const freq = raw.changefreq?.trim().toLowerCase() ?? '';
      this.urls.push({
        url: n.url,
        lastmodMs: raw.lastmod === null ? null : parseW3cDatetime(raw.lastmod),
        changefreq: CHANGE_FREQS.has(freq) ? (freq as ChangeFreq) : null,
        priority: PRIORITY.test(priority) ? Number(priority) : null,
      });
    }
  }
}

type RootKind = 'urlset' | 'index' | 'html' | 'feed' | 'other';
type Role = 'root' | 'entry' | 'field' | 'foreign' | 'other';
type Field = keyof RawEntry;
const URL_FIELDS: ReadonlySet<string> = new Set(['loc', 'lastmod', 'changefreq', 'priority']);
const INDEX_FIELDS: ReadonlySet<string> = new Set(['loc', 'lastmod']);
const ROOTS: ReadonlyMap<string, RootKind> = new Map([
  ['urlset', 'urlset'],
  ['sitemapindex', 'index'],
  ['html', 'html'],
  ['head', 'html'],
  ['body', 'html'],
  ['rss', 'feed'],
  ['feed', 'feed'],
  ['rdf', 'feed'],
]);

/** An open element that matters: one with namespace declarations or a role other than `other`. */
interface Frame {
  /** Nesting depth of the element (the root is 1). */
  readonly depth: number;
  readonly bindings: Map<string, string> | null;
  readonly role: Role;
  /** The entry an `entry` or `field` frame belongs to. */
  readonly entry: RawEntry | null;
}

/** Deepest nesting read: sitemaps need 4 levels, extensions a few more; deeper is hostile. */
const MAX_XML_DEPTH = 64;

/** htmlparser2 callbacks: finds the root, the entries and their fields, skipping foreign namespaces. */
class XmlReader {
  root: RootKind | null = null;
  rootName = '';
  /** Set while the parser closes what the document left open at its end: a field cut there is partial. */
  isEnding = false;
  /** Set when elements nest deeper than {@link MAX_XML_DEPTH}: reading stops there. */
  isTooDeep = false;
  private isHtmlDoctype = false;
  private rootNs = '';
  private depth = 0;
  private readonly stack: Frame[] = [];
  private foreignDepth = 0;
  private entry: RawEntry | null = null;
  private field: Field | null = null;
  private text = '';
  /** The parser feeding this reader, paused once there is nothing left to read. */
  parser: Parser | null = null;

  constructor(
    private readonly collector: EntryCollector,
    private readonly maxFieldChars: number,
  ) {}

  /** Whether there is anything left to read (a urlset or index, not nested too deep). */
  get isReading(): boolean {
    return !this.isTooDeep && (this.root === null || this.root === 'urlset' || this.root === 'index');
  }

  onprocessinginstruction(name: string, data: string): void {
    if (name.toLowerCase() === '!doctype' && /\bhtml\b/i.test(data)) this.isHtmlDoctype = true;
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    if (this.isTooDeep) return;
    if (++this.depth > MAX_XML_DEPTH) {
      // htmlparser2's open-element stack costs O(depth) per element: stop before it gets quadratic.
      this.isTooDeep = true;
      this.parser?.pause();
      return;
    }
    let bindings: Map<string, string> | null = null;
    for (const key in attribs) {
      if (key === 'xmlns' || key.startsWith('xmlns:')) (bindings ??= new Map()).set(key.slice(6), attribs[key] as string);
    }
    const colon = name.indexOf(':');
    const local = name.slice(colon + 1).toLowerCase();
    const prefix = colon < 0 ? '' : name.slice(0, colon);
    const ns = bindings?.get(prefix) ?? this.resolve(prefix);
    const role = this.roleOf(name, local, ns);
    if (!this.isReading) this.parser?.pause();
    if (role === 'entry') {
      this.finishEntry();
      this.entry = { loc: null, lastmod: null, changefreq: null, priority: null };
    } else if (role === 'field') {
      this.field = local as Field;
      this.text = '';
    } else if (role === 'foreign') {
      this.foreignDepth++;
    }
    if (bindings !== null || role !== 'other') this.stack.push({ depth: this.depth, bindings, role, entry: this.entry });
  }

  ontext(data: string): void {
    if (this.field !== null && this.text.length <= this.maxFieldChars) this.text += data;
  }

  onclosetag(_name: string, isImplied: boolean): void {
    if (this.isTooDeep) return;
    const top = this.stack[this.stack.length - 1];
    const depth = this.depth--;
    if (top === undefined || top.depth !== depth) return;
    this.stack.pop();
    if (top.role === 'field') {
      // An implied close at the very end means the document stopped inside this field.
      const field = this.field;
      if (field !== null && top.entry === this.entry && top.entry !== null && !(isImplied && this.isEnding) && top.entry[field] === null) {
        top.entry[field] = this.text;
      }
      this.field = null;
    } else if (top.role === 'entry') {
      if (top.entry === this.entry) this.finishEntry();
    } else if (top.role === 'foreign') {
      this.foreignDepth--;
    }
  }

  private roleOf(name: string, local: string, ns: string): Role {
    if (this.root === null) {
      this.root = ROOTS.get(local) ?? (this.isHtmlDoctype ? 'html' : 'other');
      this.rootName = name;
      this.rootNs = ns;
      return 'root';
    }
    if ((this.root !== 'urlset' && this.root !== 'index') || this.foreignDepth > 0) return 'other';
    // No namespace counts as the protocol's too: a prefixed root over unprefixed children is common.
    if (ns !== '' && ns !== this.rootNs && !SITEMAP_NS.test(ns)) return 'foreign';
    if (local === (this.root === 'urlset' ? 'url' : 'sitemap')) return 'entry';
    if (this.entry !== null && this.field === null && (this.root === 'urlset' ? URL_FIELDS : INDEX_FIELDS).has(local)) return 'field';
    return 'other';
  }

  private finishEntry(): void {
    const entry = this.entry;
    this.entry = null;
    this.field = null;
    // An entry whose loc was cut off by the end of the document is not an entry.
    if (entry !== null && !(this.isEnding && entry.loc === null)) this.collector.add(entry);
  }

  private resolve(prefix: string): string {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const ns = (this.stack[i] as Frame).bindings?.get(prefix);
      if (ns !== undefined) return ns;
    }
    return prefix === '' ? '' : `undeclared:${prefix}`;
  }
}

/** Splits text into lines across chunks; each non-blank line is an entry. Over-long lines are cut, then dropped. */
class TextReader {
  private rest = '';
  private isRestTooLong = false;

  constructor(
    private readonly collector: EntryCollector,
    private readonly maxLineChars: number,
  ) {}

  write(chunk: string): void {
    const lines = (this.rest + chunk).split(/\r\n|\r|\n/);
    this.rest = lines.pop() as string;
    for (const line of lines) {
      this.line(this.isRestTooLong ? null : line);
      this.isRestTooLong = false;
    }
    if (this.rest.length > this.maxLineChars) {
      this.rest = this.rest.slice(0, this.maxLineChars);
      this.isRestTooLong = true;
    }
  }

  /** Ends the text; the last line counts only if the document was not cut. */
  end(isCut: boolean): void {
    if (!isCut) this.line(this.isRestTooLong ? null : this.rest);
  }

  private line(line: string | null): void {
    if (line === null) this.collector.add({ loc: null, lastmod: null, changefreq: null, priority: null });
    else if (line.trim() !== '') this.collector.add({ loc: line, lastmod: null, changefreq: null, priority: null });
  }
}

type Gunzipped =
  { readonly kind: 'ok'; readonly body: Buffer; readonly isOver: boolean } | { readonly kind: 'error'; readonly message: string };

/** Decompresses gzip, keeping at most `maxBytes` of output; a truncated stream gives what it held. */
function gunzipCapped(input: Uint8Array, maxBytes: number): Promise<Gunzipped> {
  return new Promise((resolve) => {
    const gunzip = createGunzip({ finishFlush: zc.Z_SYNC_FLUSH, chunkSize: 64 * 1024 });
    const parts: Buffer[] = [];
    let size = 0;
    let isDone = false;
    const finish = (result: Gunzipped): void => {
      if (isDone) return;
      isDone = true;
      resolve(result);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (isDone) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        parts.push(chunk.subarray(0, room));
        finish({ kind: 'ok', body: Buffer.concat(parts), isOver: true });
        gunzip.destroy();
        return;
      }
      parts.push(chunk);
      size += chunk.length;
    });
    gunzip.on('end', () => finish({ kind: 'ok', body: Buffer.concat(parts), isOver: false }));
    gunzip.on('error', (err) => finish({ kind: 'error', message: err.message }));
    gunzip.end(input);
  });
}

/** A decoder for the body: BOM first, then the XML declaration's encoding, else UTF-8. */
function decoderFor(bytes: Uint8Array): { decoder: TextDecoder; start: number } {
  const [a, b, c] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { decoder: new TextDecoder('utf-8'), start: 3 };
  if (a === 0xff && b === 0xfe) return { decoder: new TextDecoder('utf-16le'), start: 2 };
  if (a === 0xfe && b === 0xff) return { decoder: new TextDecoder('utf-16be'), start: 2 };
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 256));
  const label = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1];
  // A declaration readable as ASCII cannot be in UTF-16, whatever it says.
  if (label !== undefined && !/^utf-?(?:8|16)/i.test(label)) {
    try {
      return { decoder: new TextDecoder(label), start: 0 };
    } catch {
      // An encoding the runtime does not know: read as UTF-8, the protocol's only encoding.
    }
  }
  return { decoder: new TextDecoder('utf-8'), start: 0 };
}

/**
 * Parses one sitemap document (see the module comment). Resolves for every body; rejects only for
 * caller bugs: an option out of range, or a context URL that is not absolute http(s) (RangeError).
 */
export async function parseSitemap(body: Uint8Array, context: SitemapContext, options: SitemapParseOptions = {}): Promise<SitemapParse> {
  const maxUrls = positive('maxUrls', options.maxUrls, DEFAULT_SITEMAP_MAX_URLS);
  const maxBytes = positive('maxBytes', options.maxBytes, DEFAULT_SITEMAP_MAX_BYTES);
  const maxLocChars = positive('maxLocChars', options.maxLocChars, DEFAULT_SITEMAP_MAX_LOC_CHARS);
  const normalize = options.normalize ?? {};
  const collector = new EntryCollector(
    locationTest(context, options.locationRule ?? LocationRule.protocol, normalize),
    maxUrls,
    maxLocChars,
    normalize,
  );
  const isGzip = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
  let bytes = body;
  let isOverMaxBytes = false;
  if (isGzip) {
    const out = await gunzipCapped(body, maxBytes);
    if (out.kind === 'error') {
      return {
        kind: 'problem',
        problem: SitemapProblem.badGzip,
        message: `corrupt gzip stream: ${out.message}`,
        entryCount: 0,
        dropped: { ...collector.dropped },
        isGzip,
        bytes: 0,
        isOverMaxBytes: false,
        isOverMaxUrls: false,
      };
    }
    bytes = out.body;
    isOverMaxBytes = out.isOver;
  } else if (body.length > maxBytes) {
    bytes = body.subarray(0, maxBytes);
    isOverMaxBytes = true;
  }
  const base = (): ParseBase => ({
    entryCount: collector.entryCount,
    dropped: { ...collector.dropped },
    isGzip,
    bytes: bytes.length,
    isOverMaxBytes,
    isOverMaxUrls: collector.dropped.overCap > 0,
  });

  const { decoder, start } = decoderFor(bytes);
  let xml: XmlReader | null = null;
  let parser: Parser | null = null;
  let text: TextReader | null = null;
  for (let i = start; i < bytes.length; i += CHUNK_BYTES) {
    const isLast = i + CHUNK_BYTES >= bytes.length;
    let chunk = decoder.decode(bytes.subarray(i, i + CHUNK_BYTES), { stream: !isLast });
    if (xml === null && text === null) {
      const trimmed = chunk.trimStart();
      if (trimmed === '') continue;
      chunk = trimmed;
      if (chunk.startsWith('<') || XML_ROOT_HINT.test(chunk)) {
        xml = new XmlReader(collector, maxLocChars + 256);
        parser = new Parser(xml, { xmlMode: true });
        xml.parser = parser;
      } else {
        text = new TextReader(collector, maxLocChars + 256);
      }
    }
    if (parser !== null) {
      parser.write(chunk);
      // Past the root of an HTML page or another document there is nothing left to learn.
      if (xml?.isReading === false) break;
    } else {
      text?.write(chunk);
    }
  }
  if (xml === null && text === null) return { kind: 'problem', problem: SitemapProblem.empty, message: 'the document is empty', ...base() };
  if (text !== null) {
    text.end(isOverMaxBytes);
    if (collector.valid === 0 && collector.dropped.overCap === 0) {
      return { kind: 'problem', problem: SitemapProblem.notSitemap, message: 'text without a single absolute http(s) URL', ...base() };
    }
    return { kind: 'text', urls: collector.urls, ...base() };
  }
  const reader = xml as XmlReader;
  reader.isEnding = true;
  (parser as Parser).end();
  switch (reader.root) {
    case 'urlset':
      return { kind: 'urlset', urls: collector.urls, ...base() };
    case 'index':
      return { kind: 'index', sitemaps: collector.urls.map((u) => ({ url: u.url, lastmodMs: u.lastmodMs })), ...base() };
    case 'html':
      return {
        kind: 'problem',
        problem: SitemapProblem.html,
        message: `an HTML page (root <${reader.rootName}>), not a sitemap`,
        ...base(),
      };
    case 'feed':
      return {
        kind: 'problem',
        problem: SitemapProblem.feed,
        message: `an RSS or Atom feed (root <${reader.rootName}>): not supported`,
        ...base(),
      };
    case 'other':
      return {
        kind: 'problem',
        problem: SitemapProblem.notSitemap,
        message: `root element <${reader.rootName}> is neither <urlset> nor <sitemapindex>`,
        ...base(),
      };
    default:
      return { kind: 'problem', problem: SitemapProblem.notSitemap, message: 'markup without any element', ...base() };
  }
}
