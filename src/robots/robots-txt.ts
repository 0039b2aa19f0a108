/**
 * robots.txt parsing (RFC 9309 §2.1–§2.2, §2.5), pure: the fetcher brings the body, this module
 * turns it into the rules that apply to a crawler.
 *
 * Lines: `key: value`, keys case-insensitive, spaces and tabs allowed around both, `#` starts a
 * comment, lines end at CR, LF or CRLF, a leading UTF-8 BOM is skipped. The file is read as octets,
 * so invalid UTF-8 never throws and a path in a legacy encoding is escaped byte for byte.
 *
 * Groups (§2.1): one or more `user-agent` lines followed by rules; the next `user-agent` line after a
 * rule starts a new group. Blank lines, comments, unknown lines, `sitemap` and `crawl-delay` lines
 * neither start nor end a group (§2.2.4: other records must not change how the protocol's own lines
 * are grouped). Rules before the first `user-agent` line belong to no group and are ignored.
 *
 * Where shoal reads more than the grammar asks (each choice keeps the owner's evident meaning):
 * - A missing colon is tolerated for the five known keys when whitespace separates key and value
 *   (`Disallow /tmp`), as widely deployed parsers do. Misspelled keys are not guessed.
 * - A `user-agent` value is reduced to its leading product-token characters (`[A-Za-z_-]`), so
 *   `shoalbot/1.0` names `shoalbot`; `*` alone names every crawler; anything else names nobody.
 * - `Crawl-delay` (non-standard): seconds as a plain decimal (`2`, `0.5`, `.5`), one per group; a
 *   group with several, or merged groups, keep the largest (the polite reading). Other values are
 *   ignored.
 * - `Sitemap` (non-standard, global): absolute http(s) URLs in file order, duplicates dropped, stored
 *   in WHATWG serialization; relative or other-scheme values are ignored.
 * - Patterns that start with neither `/` nor `*` are kept as written; since every path starts
 *   with `/`, they match nothing (shoal does not guess a missing slash).
 *
 * Size (§2.5): only the first `maxBytes` octets are read, cut back to the last complete line so a
 * half line never turns into a shorter, broader rule (`Allow: /abc` cut to `Allow: /`).
 */
import { RobotsRules, normalizePatternOctets, type RobotsRule } from './rules.js';

/** Default parse limit: 500 KiB, the minimum RFC 9309 §2.5 asks crawlers to read. */
export const DEFAULT_ROBOTS_MAX_BYTES = 512_000;

/** Options of {@link parseRobotsTxt}. */
export interface RobotsTxtOptions {
  /** Octets of the body to read (default {@link DEFAULT_ROBOTS_MAX_BYTES}, unit bytes). */
  readonly maxBytes?: number;
}

/** A parsed robots.txt: the rules for any crawler, and the sitemaps it announces. */
export interface RobotsTxt {
  /** Absolute sitemap URLs from `Sitemap` lines, in file order, without duplicates. */
  readonly sitemaps: readonly string[];
  /**
   * The rules for a crawler: its own group(s) if any name its product token (case-insensitive),
   * else the `*` group(s), else no rules. Accepts a full user agent too (`shoalbot/1.0 (+url)`).
   */
  forAgent(productToken: string): RobotsRules;
}

const LF = 0x0a;
const CR = 0x0d;
const HASH = 0x23;
const COLON = 0x3a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0b || b === 0x0c;
}

/** Characters of a product token (RFC 9309 §2.2.1), which are also the characters of keys. */
function isTokenChar(b: number): boolean {
  return (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x5f;
}

/**
 * The product token of a user agent: its leading `[A-Za-z_-]` characters, as written
 * (`shoalbot/1.0 (+https://example.org/bot)` → `shoalbot`). Empty when it starts with anything else.
 */
export function productToken(userAgent: string): string {
  const s = userAgent.trimStart();
  let n = 0;
  while (n < s.length && isTokenChar(s.charCodeAt(n))) n++;
  return s.slice(0, n);
}

/** Product tokens whose rules one parsed file keeps built (the cache stays small per host). */
const MAX_CACHED_AGENTS = 4;
const KNOWN_KEYS = new Set(['user-agent', 'allow', 'disallow', 'crawl-delay', 'sitemap']);
const CRAWL_DELAY = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/** One group as written: the rules and crawl delay of consecutive user-agent lines. */
interface Group {
  readonly rules: RobotsRule[];
  crawlDelayMs: number | null;
}

/** The end of the part of `bytes` to parse: all of it, or up to the last line ending within `maxBytes`. */
function parseEnd(bytes: Uint8Array, maxBytes: number): number {
  if (bytes.length <= maxBytes) return bytes.length;
  const next = bytes[maxBytes] as number;
  if (next === LF || next === CR) return maxBytes;
  for (let i = maxBytes - 1; i >= 0; i--) {
    const b = bytes[i] as number;
    if (b === LF || b === CR) return i + 1;
  }
  return 0;
}

function toBytes(body: string | Uint8Array, maxBytes: number): Uint8Array {
  if (typeof body !== 'string') return body;
  // Each character takes at least one octet: encoding more than maxBytes + 1 of them is wasted work.
  return utf8Encoder.encode(body.length > maxBytes + 1 ? body.slice(0, maxBytes + 1) : body);
}

class ParsedRobotsTxt implements RobotsTxt {
  readonly sitemaps: readonly string[];
  private readonly groupsByAgent: ReadonlyMap<string, readonly Group[]>;
  /** Rules already built per product token: a crawler asks for one or two, so a few are kept. */
  private readonly built = new Map<string, RobotsRules>();

  constructor(groupsByAgent: ReadonlyMap<string, readonly Group[]>, sitemaps: readonly string[]) {
    this.groupsByAgent = groupsByAgent;
    this.sitemaps = sitemaps;
  }

  forAgent(token: string): RobotsRules {
    const key = productToken(token).toLowerCase();
    const cached = this.built.get(key);
    if (cached !== undefined) return cached;
    const groups = (key === '' ? undefined : this.groupsByAgent.get(key)) ?? this.groupsByAgent.get('*');
    let rules = RobotsRules.allowAll;
    if (groups !== undefined) {
      // RFC 9309 §2.2.1: every group naming the crawler counts, merged into one.
      const delays = groups.flatMap((g) => (g.crawlDelayMs === null ? [] : [g.crawlDelayMs]));
      rules = new RobotsRules(
        groups.flatMap((g) => g.rules),
        delays.length > 0 ? Math.max(...delays) : null,
      );
    }
    if (this.built.size < MAX_CACHED_AGENTS) this.built.set(key, rules);
    return rules;
  }
}

/** The lowercased agent a `user-agent` value names: `*`, a product token, or null for nobody. */
function agentOf(bytes: Uint8Array, start: number, end: number): string | null {
  if (start >= end) return null;
  if (bytes[start] === 0x2a) return start + 1 === end || isSpace(bytes[start + 1] as number) ? '*' : null;
  let n = start;
  while (n < end && isTokenChar(bytes[n] as number)) n++;
  return n === start ? null : latin1.decode(bytes.subarray(start, n)).toLowerCase();
}

function crawlDelayOf(value: string): number | null {
  if (!CRAWL_DELAY.test(value)) return null;
  const ms = Math.round(Number(value) * 1000);
  return Number.isFinite(ms) ? ms : null;
}

function sitemapOf(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/**
 * Parses a robots.txt body (RFC 9309). Never throws on content: unparseable lines are skipped and
 * an empty or garbage body yields no rules.
 *
 * @throws RangeError when `options.maxBytes` is negative or not a number (a caller bug).
 */
export function parseRobotsTxt(body: string | Uint8Array, options: RobotsTxtOptions = {}): RobotsTxt {
  const maxBytes = Math.floor(options.maxBytes ?? DEFAULT_ROBOTS_MAX_BYTES);
  if (!(maxBytes >= 0)) throw new RangeError(`robots.txt maxBytes must be >= 0, got ${String(options.maxBytes)}`);
  const bytes = toBytes(body, maxBytes);
  const end = parseEnd(bytes, maxBytes);
  const groupsByAgent = new Map<string, Group[]>();
  const sitemaps: string[] = [];
  const seenSitemaps = new Set<string>();
  let group: Group | null = null;
  // True while the lines seen since the last rule are user-agent lines (they share one group).
  let isInAgents = false;
  let pos = end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (pos < end) {
    let lineEnd = pos;
    while (lineEnd < end && bytes[lineEnd] !== LF && bytes[lineEnd] !== CR) lineEnd++;
    const start = pos;
    pos = lineEnd + 1;
    let e = start;
    while (e < lineEnd && bytes[e] !== HASH) e++;
    let s = start;
    while (s < e && isSpace(bytes[s] as number)) s++;
    while (e > s && isSpace(bytes[e - 1] as number)) e--;
    let keyEnd = s;
    while (keyEnd < e && isTokenChar(bytes[keyEnd] as number)) keyEnd++;
    if (keyEnd === s) continue;
    const key = latin1.decode(bytes.subarray(s, keyEnd)).toLowerCase();
    let v = keyEnd;
    while (v < e && isSpace(bytes[v] as number)) v++;
    if (v < e && bytes[v] === COLON) v++;
    else if (v === keyEnd || !KNOWN_KEYS.has(key)) continue;
    while (v < e && isSpace(bytes[v] as number)) v++;
    switch (key) {
      case 'user-agent': {
        if (group === null || !isInAgents) group = { rules: [], crawlDelayMs: null };
        isInAgents = true;
        const agent = agentOf(bytes, v, e);
        if (agent === null) break;
        const list = groupsByAgent.get(agent);
        if (list === undefined) groupsByAgent.set(agent, [group]);
        else if (list[list.length - 1] !== group) list.push(group);
        break;
      }
      case 'allow':
      case 'disallow':
        if (group === null) break;
        isInAgents = false;
        // An empty value matches nothing (RFC 9309 §2.2.2) but still ends the user-agent lines.
        if (v < e) group.rules.push({ allow: key === 'allow', pattern: normalizePatternOctets(bytes, v, e) });
        break;
      case 'crawl-delay': {
        if (group === null) break;
        const ms = crawlDelayOf(latin1.decode(bytes.subarray(v, e)));
        if (ms !== null) group.crawlDelayMs = Math.max(ms, group.crawlDelayMs ?? 0);
        break;
      }
      case 'sitemap': {
        const url = sitemapOf(utf8.decode(bytes.subarray(v, e)));
        if (url !== null && !seenSitemaps.has(url)) {
          seenSitemaps.add(url);
          sitemaps.push(url);
        }
        break;
      }
      default:
        break;
    }
  }
  return new ParsedRobotsTxt(groupsByAgent, sitemaps);
}
