/**
 * URL normalization (SPEC §2.2): the one form a URL takes before the seen test and before hashing,
 * so that two URLs that differ only by the rules below share one fingerprint.
 *
 * Parsing, reference resolution and most of the rules come from the WHATWG URL parser (what
 * browsers do with an href): absolute URL against the base; leading and trailing C0 controls and
 * spaces trimmed, tabs and newlines removed; `\` read as `/`; scheme and host lower-cased; IDN to
 * punycode (UTS #46, non-transitional, so `ß` stays `ß` before encoding); IPv4 in any notation
 * written as a dotted quad and IPv6 compressed; default ports (:80, :443) dropped; `.` and `..`
 * segments resolved, percent-encoded dots (`%2e`) included; empty path written `/`; characters
 * outside URL syntax (spaces, non-ASCII) percent-encoded as UTF-8 with upper-case hex.
 *
 * shoal then applies what the WHATWG parser deliberately leaves alone (RFC 3986 §6.2.2):
 * - the fragment is dropped (it never reaches the server);
 * - in path and query, escapes of unreserved characters (ALPHA DIGIT - . _ ~) are decoded and the
 *   hex of every other escape is upper-cased; a `%` not followed by two hex digits is left as it is;
 * - trailing dots of the host name are removed (`example.com.` is the same host, written fully
 *   qualified);
 * - empty query parameters (`a=1&&b=2`, `a=1&`) are removed, and a query left empty (or `?`
 *   alone) is dropped;
 * and, configurable ({@link NormalizeOptions}): a leading `www.` stripped, query parameters
 * sorted, tracking and session parameters (query and `;name=value` path parameters) removed.
 *
 * Kept apart on purpose: `+` and `%20` in a query stay distinct (form decoding reads `+` as a space,
 * other decoders do not), and so do `/` and `%2F` in a path (many servers route them differently).
 * Userinfo is kept as the WHATWG parser writes it.
 */

/** Why a string is not a crawlable URL: the labels of the normalizer's rejection counter. */
export const InvalidUrlReason = {
  /** Not a URL, even against the base (bad host, bad port, relative with no base, ...). */
  unparseable: 'unparseable',
  /** A URL of a scheme other than http and https (`mailto:`, `javascript:`, `ftp:`, ...). */
  unsupportedScheme: 'unsupported-scheme',
} as const;
export type InvalidUrlReason = (typeof InvalidUrlReason)[keyof typeof InvalidUrlReason];

/** The outcome of {@link normalizeUrl}. */
export type NormalizeResult =
  /** `url` is the normalized absolute URL; `host` its host name (no port; IPv6 in brackets). */
  { readonly kind: 'ok'; readonly url: string; readonly host: string } | { readonly kind: 'invalid'; readonly reason: InvalidUrlReason };

/**
 * Tracking and session parameters dropped by default, matched ASCII case-insensitively by name; a
 * trailing `*` makes a prefix pattern. Chosen because they name a visitor, a campaign or a session,
 * never a different document:
 * - campaign tags: `utm_*` (Google Analytics), `gclid`, `gclsrc`, `dclid`, `gbraid`, `wbraid`
 *   (Google Ads), `fbclid` (Meta), `msclkid` (Microsoft Ads), `yclid` (Yandex), `twclid` (X),
 *   `ttclid` (TikTok), `li_fat_id` (LinkedIn), `igshid` (Instagram), `mc_cid`, `mc_eid`
 *   (Mailchimp), `_hsenc`, `_hsmi` (HubSpot), `mkt_tok` (Marketo), `_ga`, `_gl` (analytics
 *   cross-domain linkers);
 * - session ids: `jsessionid` (Java servlets, usually a `;jsessionid=` path parameter),
 *   `phpsessid` (PHP), `aspsessionid*` (classic ASP), `cfid`, `cftoken` (ColdFusion), `oscsid`
 *   (osCommerce), `sid`, `sessionid`, `session_id`.
 *
 * `sid` is the one judgement call: a few sites use it for content ("section id"); pass a list
 * without it to keep it.
 */
export const DEFAULT_DROP_PARAMS: readonly string[] = Object.freeze([
  'utm_*',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  '_ga',
  '_gl',
  'jsessionid',
  'phpsessid',
  'aspsessionid*',
  'cfid',
  'cftoken',
  'oscsid',
  'sid',
  'sessionid',
  'session_id',
]);

/** The configurable rules of {@link normalizeUrl}. */
export interface NormalizeOptions {
  /**
   * Drop a leading `www.` label when at least two labels remain (`www.example.com` becomes
   * `example.com`; `www.com` stays, so a name is never cut down to a top-level domain).
   * Default `false`: most sites serve the same pages on both names, but not all.
   */
  readonly stripWww?: boolean;
  /** Stable sort of the query parameters by name (code-unit order). Default `false`. */
  readonly sortQuery?: boolean;
  /**
   * Parameters removed from the query, and from `;name=value` path parameters: names, or prefix
   * patterns ending in `*` (`utm_*`), matched ASCII case-insensitively against the name after
   * escape normalization. Default {@link DEFAULT_DROP_PARAMS}; `[]` keeps every parameter.
   */
  readonly dropParams?: readonly string[];
}

const UNPARSEABLE: NormalizeResult = Object.freeze({ kind: 'invalid', reason: InvalidUrlReason.unparseable });
const UNSUPPORTED: NormalizeResult = Object.freeze({ kind: 'invalid', reason: InvalidUrlReason.unsupportedScheme });
const NO_OPTIONS: NormalizeOptions = Object.freeze({});

/**
 * Normalizes `input`, resolved against `base` (the effective base of the page it was found on: the
 * page URL, or its `<base href>` resolved against it). A `base` that does not parse is ignored, so
 * absolute inputs still normalize. Never throws.
 */
export function normalizeUrl(input: string, base?: string, options: NormalizeOptions = NO_OPTIONS): NormalizeResult {
  const u = parse(input, base);
  if (u === null) return invalidReason(input);
  const protocol = u.protocol;
  if (protocol !== 'http:' && protocol !== 'https:') return UNSUPPORTED;
  let href = u.href;
  const hash = href.indexOf('#');
  if (hash >= 0) href = href.slice(0, hash);
  const hostname = u.hostname;
  // Fast path, taken by most links: the parser has done everything else, and without a '%', '?'
  // or ';' in href there is no escape to normalize, no query to rewrite and no path parameter to
  // drop (a '?' or ';' outside the query and path would be percent-encoded).
  if (
    href.indexOf('%') < 0 &&
    href.indexOf('?') < 0 &&
    href.indexOf(';') < 0 &&
    hostname.charCodeAt(hostname.length - 1) !== 46 /* . */ &&
    !(options.stripWww === true && hostname.startsWith('www.'))
  ) {
    return { kind: 'ok', url: href, host: hostname };
  }
  return assemble(u, options);
}

/**
 * {@link normalizeUrl} without its shortcut: every rule applied component by component. The result
 * is always the same; tests compare the two to prove the shortcut safe.
 */
export function normalizeUrlReference(input: string, base?: string, options: NormalizeOptions = NO_OPTIONS): NormalizeResult {
  const u = parse(input, base);
  if (u === null) return invalidReason(input);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return UNSUPPORTED;
  return assemble(u, options);
}

function parse(input: string, base: string | undefined): URL | null {
  try {
    return base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    if (base === undefined) return null;
  }
  try {
    return new URL(input);
  } catch {
    return null;
  }
}

/**
 * Why `input` does not parse: a string that names another scheme (`ftp://`, `mailto:` with a broken
 * rest) counts as an unsupported scheme, so the rejection counter says what the link was.
 */
function invalidReason(input: string): NormalizeResult {
  let i = 0;
  while (i < input.length && input.charCodeAt(i) <= 32) i++;
  const start = i;
  for (; i < input.length; i++) {
    const c = input.charCodeAt(i) | 32;
    const isLetter = c >= 97 && c <= 122;
    if (i === start ? !isLetter : !(isLetter || (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) break;
  }
  if (i === start || input.charCodeAt(i) !== 58 /* : */) return UNPARSEABLE;
  const scheme = input.slice(start, i).toLowerCase();
  return scheme === 'http' || scheme === 'https' ? UNPARSEABLE : UNSUPPORTED;
}

function assemble(u: URL, options: NormalizeOptions): NormalizeResult {
  let host = u.hostname;
  let end = host.length;
  while (end > 0 && host.charCodeAt(end - 1) === 46) end--;
  if (end === 0) return UNPARSEABLE;
  if (end < host.length) host = host.slice(0, end);
  if (options.stripWww === true && host.startsWith('www.') && host.indexOf('.', 4) > 4) host = host.slice(4);
  const drop = dropMatcher(options.dropParams ?? DEFAULT_DROP_PARAMS);
  let path = normalizeEscapes(u.pathname);
  if (drop !== null && path.indexOf(';') >= 0) path = dropPathParams(path, drop);
  let query = u.search;
  if (query !== '') {
    query = rewriteQuery(normalizeEscapes(query.slice(1)), drop, options.sortQuery === true);
    if (query !== '') query = '?' + query;
  }
  const user = u.username;
  const password = u.password;
  const userinfo = user === '' && password === '' ? '' : password === '' ? `${user}@` : `${user}:${password}@`;
  const port = u.port;
  return { kind: 'ok', url: `${u.protocol}//${userinfo}${host}${port === '' ? '' : ':' + port}${path}${query}`, host };
}

const HEX = '0123456789ABCDEF';

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

/** ALPHA DIGIT - . _ ~ (RFC 3986 §2.3). */
function isUnreserved(b: number): boolean {
  const l = b | 32;
  return (l >= 97 && l <= 122) || (b >= 48 && b <= 57) || b === 45 || b === 46 || b === 95 || b === 126;
}

function isHexDigit(c: number): boolean {
  return hexValue(c) >= 0;
}

/**
 * Decodes escapes of unreserved characters and upper-cases the hex of the others. A lone `%` stays,
 * and an escape of a hex digit right after one stays encoded: decoding it would let the next pass
 * read a new escape (`%%34%31` would become `%41`, then `A`), and normalizing must be idempotent.
 */
export function normalizeEscapes(s: string): string {
  let i = s.indexOf('%');
  if (i < 0) return s;
  let out = '';
  let last = 0;
  while (i >= 0) {
    const hi = i + 2 < s.length ? hexValue(s.charCodeAt(i + 1)) : -1;
    const lo = hi >= 0 ? hexValue(s.charCodeAt(i + 2)) : -1;
    if (lo < 0) {
      i = s.indexOf('%', i + 1);
      continue;
    }
    const b = hi * 16 + lo;
    out += s.slice(last, i);
    last = i + 3;
    if (isUnreserved(b) && !(isHexDigit(b) && followsLonePercent(out))) out += String.fromCharCode(b);
    else out += '%' + HEX[hi] + HEX[lo];
    i = s.indexOf('%', last);
  }
  return out + s.slice(last);
}

/** Whether `out` ends in a `%` or `%` and one hex digit (only a lone `%` can, in its output). */
function followsLonePercent(out: string): boolean {
  const n = out.length;
  return (n >= 1 && out.charCodeAt(n - 1) === 37) || (n >= 2 && out.charCodeAt(n - 2) === 37 && isHexDigit(out.charCodeAt(n - 1)));
}

/** A compiled `dropParams` list: exact lower-case names and prefixes. */
interface DropMatcher {
  readonly names: ReadonlySet<string>;
  readonly prefixes: readonly string[];
}

// Options are built once per crawl and passed on every call: compile each list once.
const matchers = new WeakMap<readonly string[], DropMatcher | null>();

function dropMatcher(list: readonly string[]): DropMatcher | null {
  let m = matchers.get(list);
  if (m === undefined) {
    const names = new Set<string>();
    const prefixes: string[] = [];
    for (const p of list) {
      const lower = p.toLowerCase();
      if (lower.endsWith('*')) prefixes.push(lower.slice(0, -1));
      else names.add(lower);
    }
    m = names.size === 0 && prefixes.length === 0 ? null : { names, prefixes };
    matchers.set(list, m);
  }
  return m;
}

function isDropped(drop: DropMatcher, name: string): boolean {
  const lower = name.toLowerCase();
  if (drop.names.has(lower)) return true;
  for (const p of drop.prefixes) if (lower.startsWith(p)) return true;
  return false;
}

/** Removes `;name=value` path parameters whose name is dropped (`/a.jsp;jsessionid=1F?x`). */
function dropPathParams(path: string, drop: DropMatcher): string {
  let out = '';
  let i = 0;
  while (i < path.length) {
    const semi = path.indexOf(';', i);
    if (semi < 0) break;
    out += path.slice(i, semi);
    let end = semi + 1;
    while (end < path.length && path.charCodeAt(end) !== 59 && path.charCodeAt(end) !== 47) end++;
    const param = path.slice(semi + 1, end);
    const eq = param.indexOf('=');
    if (!isDropped(drop, eq < 0 ? param : param.slice(0, eq))) out += path.slice(semi, end);
    i = end;
  }
  return out + path.slice(i);
}

/**
 * Drops empty and unwanted parameters and sorts by name; returns the query itself when nothing
 * changes (the common case, without splitting when there is nothing to drop or sort).
 */
function rewriteQuery(query: string, drop: DropMatcher | null, isSorted: boolean): string {
  const hasEmpty = query.charCodeAt(0) === 38 || query.charCodeAt(query.length - 1) === 38 || query.indexOf('&&') >= 0;
  if (drop === null && !isSorted && !hasEmpty) return query;
  const params = query.split('&');
  const kept: string[] = [];
  for (const p of params) {
    if (p === '') continue;
    if (drop !== null) {
      const eq = p.indexOf('=');
      if (isDropped(drop, eq < 0 ? p : p.slice(0, eq))) continue;
    }
    kept.push(p);
  }
  if (isSorted && kept.length > 1) {
    const names = new Map<string, string>();
    for (const p of kept) {
      const eq = p.indexOf('=');
      names.set(p, eq < 0 ? p : p.slice(0, eq));
    }
    // Array.prototype.sort is stable: parameters of one name keep their order.
    kept.sort((a, b) => {
      const x = names.get(a) as string;
      const y = names.get(b) as string;
      return x < y ? -1 : x > y ? 1 : 0;
    });
  } else if (kept.length === params.length) {
    return query;
  }
  return kept.join('&');
}
