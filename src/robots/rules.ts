/**
 * The rules of one robots.txt group and the decision they make for a URL path (RFC 9309 §2.2.2,
 * §2.2.3).
 *
 *   decision(p) = the matching rule with the longest pattern, in octets; on a tie, allow;
 *                 no matching rule → allowed; `/robots.txt` → always allowed.
 *
 * A pattern matches when it matches a prefix of the path (matching starts at the path's first
 * octet): `*` stands for any run of octets (including `/`), a `$` at the very end anchors the pattern
 * to the end of the path, every other octet is literal and case-sensitive. The path includes the
 * query (`/search?q=1`).
 *
 * Both sides are normalized to one percent-encoding before they are compared (§2.2.2):
 * - `%XX` naming an unreserved character (RFC 3986: letters, digits, `-._~`) is decoded;
 * - other escapes keep their encoding, with uppercase hex (`%3c` → `%3C`);
 * - octets that may not appear raw in a URI (non-ASCII, controls, space, `"<>\^`{|}`, a `%` that
 *   starts no escape) are encoded, so `/ツ` and `/%E3%83%84` are the same path;
 * - reserved characters stay as written, so `/a%2Fb` is not `/a/b` — except `*` and `$`: a
 *   literal `*` or `$` in a path is encoded as `%2A` / `%24`, which is how a rule names those two
 *   octets without meaning a wildcard or an anchor (§2.2.3's examples).
 *
 * Specificity is the length of the *normalized* pattern, so two spellings of the same rule
 * (`/%61` and `/a`) tie and the allow rule wins.
 *
 * Speed: patterns are split at `*` once, when the rules are built; a lookup finds the rules whose
 * literal head (the text before the first `*`) is a prefix of the path by one binary search over the
 * sorted heads plus a walk up a precomputed "longest head that is a prefix of this head" chain, then
 * checks the rest of each candidate with `indexOf` left to right. No regular expressions, no
 * backtracking: a lookup is linear in the path length times the (small) number of candidates.
 */

/** One Allow or Disallow line. */
export interface RobotsRule {
  readonly allow: boolean;
  /**
   * The path pattern, normalized (see the module comment): literal `*` and `$` are encoded, so a
   * raw `*` is always a wildcard and a raw `$` can only be the final anchor.
   */
  readonly pattern: string;
}

/** What a set of rules costs in memory besides its rules (see {@link RobotsRules.approxBytes}). */
const BYTES_PER_SET = 512;
/** What a rule costs in memory besides its pattern's characters. */
const BYTES_PER_RULE = 250;

const CLASS_KEEP = 1;
const CLASS_UNRESERVED = 2;

/** How each ASCII octet appears in a normalized path: kept raw, or percent-encoded (0). */
const OCTET_CLASS = (() => {
  const table = new Uint8Array(128);
  const unreserved = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
  for (const c of unreserved) table[c.charCodeAt(0)] = CLASS_KEEP | CLASS_UNRESERVED;
  // Reserved characters stay raw, except `*` and `$` (see the module comment).
  for (const c of ":/?#[]@!&'()+,;=") table[c.charCodeAt(0)] = CLASS_KEEP;
  return table;
})();

const HEX = '0123456789ABCDEF';
const STAR = 0x2a;
const DOLLAR = 0x24;
const PERCENT = 0x25;
const utf8 = new TextEncoder();

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/** The normalized form of octets [start, end), all of them literal. */
function normalizeRun(bytes: Uint8Array, start: number, end: number): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const b = bytes[i] as number;
    if (b === PERCENT) {
      const hi = i + 2 < end ? hexValue(bytes[i + 1] as number) : -1;
      const lo = hi >= 0 ? hexValue(bytes[i + 2] as number) : -1;
      if (lo < 0) {
        out += '%25';
        continue;
      }
      const v = hi * 16 + lo;
      out +=
        v < 128 && ((OCTET_CLASS[v] as number) & CLASS_UNRESERVED) !== 0
          ? String.fromCharCode(v)
          : `%${HEX[hi] as string}${HEX[lo] as string}`;
      i += 2;
    } else if (b < 128 && OCTET_CLASS[b] !== 0) {
      out += String.fromCharCode(b);
    } else {
      out += `%${HEX[b >> 4] as string}${HEX[b & 15] as string}`;
    }
  }
  return out;
}

/**
 * A path made only of characters kept raw: already normal. A single character class, checked by the
 * regular-expression engine's compiled code, which beats a JavaScript loop on this hot path.
 */
const PLAIN_PATH = /^[A-Za-z0-9\-._~:/?#[\]@!&'()+,;=]*$/;

/** Whether s[start, end) is already in normal form (the common case: URLs come normalized from url/). */
function isNormalRun(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && OCTET_CLASS[c] !== 0) continue;
    if (c !== PERCENT || i + 2 >= end) return false;
    const a = s.charCodeAt(i + 1);
    const b = s.charCodeAt(i + 2);
    // Lowercase hex and escaped unreserved characters need rewriting.
    if (hexValue(a) < 0 || hexValue(b) < 0 || a >= 0x61 || b >= 0x61) return false;
    const v = hexValue(a) * 16 + hexValue(b);
    if (v < 128 && ((OCTET_CLASS[v] as number) & CLASS_UNRESERVED) !== 0) return false;
    i += 2;
  }
  return true;
}

/** Whether a pattern is already normalized (the parser hands over normalized patterns). */
function isNormalPattern(p: string): boolean {
  const end = p.endsWith('$') ? p.length - 1 : p.length;
  let from = 0;
  for (let star = p.indexOf('*'); star >= 0 && star < end; star = p.indexOf('*', from)) {
    if (!isNormalRun(p, from, star)) return false;
    from = star + 1;
  }
  return isNormalRun(p, from, end);
}

/**
 * A URL path (with its query) in the normal form rules are compared in. Non-ASCII characters are
 * taken as UTF-8; an empty path is `/`.
 */
export function normalizeRobotsPath(path: string): string {
  if (path === '') return '/';
  if (PLAIN_PATH.test(path) || isNormalRun(path, 0, path.length)) return path;
  const bytes = utf8.encode(path);
  return normalizeRun(bytes, 0, bytes.length);
}

/**
 * The normalized pattern of the octets [start, end) of a robots.txt line: raw `*` stay wildcards,
 * a final raw `$` stays the anchor, everything else is normalized as a path. Works on octets so that
 * a file in a legacy encoding still matches URLs escaped in that encoding (RFC 9309 §2.2.2 lets
 * crawlers bridge such mismatches).
 */
export function normalizePatternOctets(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const isAnchored = end > start && bytes[end - 1] === DOLLAR;
  const bodyEnd = isAnchored ? end - 1 : end;
  let out = '';
  let from = start;
  for (let i = start; i <= bodyEnd; i++) {
    if (i < bodyEnd && bytes[i] !== STAR) continue;
    out += normalizeRun(bytes, from, i);
    if (i < bodyEnd) out += '*';
    from = i + 1;
  }
  return isAnchored ? `${out}$` : out;
}

/** {@link normalizePatternOctets} for a pattern given as text (taken as UTF-8). */
export function normalizeRobotsPattern(pattern: string): string {
  return isNormalPattern(pattern) ? pattern : normalizePatternOctets(utf8.encode(pattern));
}

/** A rule ready for matching. */
interface CompiledRule {
  readonly rule: RobotsRule;
  /** Specificity: octets of the normalized pattern. */
  readonly length: number;
  readonly allow: boolean;
  /** The pattern split at `*`; `segments[0]` is the literal head every match starts with. */
  readonly segments: readonly string[];
  readonly isAnchored: boolean;
}

function compile(allow: boolean, rawPattern: string): CompiledRule {
  const pattern = normalizeRobotsPattern(rawPattern);
  const isAnchored = pattern.endsWith('$');
  const segments = (isAnchored ? pattern.slice(0, -1) : pattern).split('*');
  return { rule: { allow, pattern }, length: pattern.length, allow, segments, isAnchored };
}

/** Whether `r` matches `path`, given that its head is already known to be a prefix of `path`. */
function matchesAfterHead(r: CompiledRule, path: string): boolean {
  const segs = r.segments;
  const last = segs.length - 1;
  let pos = (segs[0] as string).length;
  if (last === 0) return !r.isAnchored || path.length === pos;
  // The leftmost place for each middle segment leaves the most room for the rest, so no
  // backtracking is ever needed.
  for (let k = 1; k < last; k++) {
    const s = segs[k] as string;
    if (s.length === 0) continue;
    const at = path.indexOf(s, pos);
    if (at < 0) return false;
    pos = at + s.length;
  }
  const tail = segs[last] as string;
  if (r.isAnchored) return path.length - tail.length >= pos && path.endsWith(tail);
  return tail.length === 0 || path.indexOf(tail, pos) >= 0;
}

/** True if `a` decides instead of `b`: longer pattern, or the same length and `a` allows. */
function beats(a: CompiledRule, b: CompiledRule): boolean {
  return a.length > b.length || (a.length === b.length && a.allow && !b.allow);
}

/**
 * The rules that apply to one crawler on one host, and its crawl delay. Immutable; build it once
 * per robots.txt and call {@link RobotsRules.isAllowed} for every URL of the host.
 */
export class RobotsRules {
  /** No rules: everything is allowed (no robots.txt, a 4xx, or no group for the crawler). */
  static readonly allowAll = new RobotsRules([]);
  /** Everything but `/robots.txt` is disallowed (robots.txt unreachable: RFC 9309 §2.3.1.4). */
  static readonly disallowAll = new RobotsRules([{ allow: false, pattern: '/' }]);

  /** The rules in file order, patterns normalized. */
  readonly rules: readonly RobotsRule[];
  /**
   * The group's Crawl-delay in milliseconds (a non-standard line, seconds in the file), or null when
   * the group has none. The frontier takes the maximum of this and its own delays.
   */
  readonly crawlDelayMs: number | null;
  /** Distinct literal heads of the patterns, sorted. */
  private readonly heads: readonly string[];
  /** Index of the longest other head that is a prefix of heads[i], or -1. */
  private readonly parent: Int32Array;
  /** Rules by head index, best first (longest, then allow before disallow). */
  private readonly byHead: readonly (readonly CompiledRule[])[];
  /**
   * About how many bytes of memory these rules take (0 for none): {@link BYTES_PER_SET}, plus
   * {@link BYTES_PER_RULE} per rule and two per character of its pattern, as `npm run bench:robots`
   * measures them on Node 20; for caches that hold many hosts' rules.
   */
  readonly approxBytes: number;

  /**
   * @param rules Allow/Disallow rules in file order. Patterns may be written as in a robots.txt
   *   (they are normalized here); empty patterns match nothing and are dropped.
   * @param crawlDelayMs Crawl delay in milliseconds, or null (the default) for none.
   */
  constructor(rules: readonly RobotsRule[], crawlDelayMs: number | null = null) {
    const compiled = rules.filter((r) => r.pattern !== '').map((r) => compile(r.allow, r.pattern));
    this.rules = compiled.map((c) => c.rule);
    this.crawlDelayMs = crawlDelayMs;
    let bytes = this.rules.length === 0 ? 0 : BYTES_PER_SET;
    for (const r of this.rules) bytes += BYTES_PER_RULE + 2 * r.pattern.length;
    this.approxBytes = bytes;
    const groups = new Map<string, CompiledRule[]>();
    for (const c of compiled) {
      const head = c.segments[0] as string;
      const list = groups.get(head);
      if (list === undefined) groups.set(head, [c]);
      else list.push(c);
    }
    // Plain comparison, not localeCompare: the lookup's binary search uses the same `<=`.
    const heads = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    this.heads = heads;
    this.byHead = heads.map((h) => (groups.get(h) as CompiledRule[]).sort((a, b) => (beats(a, b) ? -1 : beats(b, a) ? 1 : 0)));
    // In sorted order, every head that is a prefix of heads[i] comes before it and is a prefix of
    // heads[i - 1] too, so a stack of the previous head's prefix chain finds each parent.
    this.parent = new Int32Array(heads.length);
    const stack: number[] = [];
    heads.forEach((h, i) => {
      while (stack.length > 0 && !h.startsWith(heads[stack[stack.length - 1] as number] as string)) stack.pop();
      this.parent[i] = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
      stack.push(i);
    });
  }

  /**
   * Whether the crawler may fetch `pathAndQuery` (the URL's path plus `?query`, no fragment; escaped
   * or not). `/robots.txt` itself is always allowed.
   */
  isAllowed(pathAndQuery: string): boolean {
    if (this.heads.length === 0) return true;
    const path = normalizeRobotsPath(pathAndQuery);
    if (path === '/robots.txt') return true;
    const best = this.decide(path);
    return best === null || best.allow;
  }

  /**
   * The rule that decides `pathAndQuery`, or null when none matches (then it is allowed). For crawl
   * logs that say which line denied a URL; ignores the `/robots.txt` exemption.
   */
  decidingRule(pathAndQuery: string): RobotsRule | null {
    return this.heads.length === 0 ? null : (this.decide(normalizeRobotsPath(pathAndQuery))?.rule ?? null);
  }

  private decide(path: string): CompiledRule | null {
    const heads = this.heads;
    // The last head <= path: every head that is a prefix of the path is a prefix of this one.
    let lo = 0;
    let hi = heads.length - 1;
    let i = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((heads[mid] as string) <= path) {
        i = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    while (i >= 0 && !path.startsWith(heads[i] as string)) i = this.parent[i] as number;
    let best: CompiledRule | null = null;
    for (; i >= 0; i = this.parent[i] as number) {
      for (const r of this.byHead[i] as readonly CompiledRule[]) {
        // Sorted best first: once a rule cannot beat the current best, no later one can.
        if (best !== null && !beats(r, best)) break;
        if (matchesAfterHead(r, path)) {
          best = r;
          break;
        }
      }
    }
    return best;
  }
}
