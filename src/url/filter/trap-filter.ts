/**
 * Crawler-trap heuristics (SPEC §2.3): URL spaces that are infinite by construction, where every page
 * links to one more page that no crawl will ever finish. A pure filter sees one URL at a time, so
 * each rule bounds a property that grows along a trap's links and stays small on ordinary sites:
 *
 * | rule | rejects | default | why that default |
 * |---|---|---|---|
 * | query parameters | more than `maxQueryParams` parameters | 10 | real forms send a handful; a query that gains one per link passes 10 in 10 hops |
 * | path depth | more than `maxPathDepth` non-empty segments | 16 | deep sites rarely pass 8–10 levels; 16 leaves room |
 * | repeated segment | one segment more than `maxSegmentRepeats` times anywhere in the path | 3 | `/archive/archive/archive/archive/`: a relative link resolved against itself |
 * | repeated sequence | a run of 2 or more segments repeated consecutively more than `maxSequenceRepeats` times | 2 | `/a/b/a/b/a/b/`: the same loop over two directories |
 * | session id | a session token in the path (see below) | markers below | every visit mints a new id, so one page has endless URLs |
 * | calendar | a date (see below) whose year lies outside the window | 2 years back, 1 ahead | an endless "next month" link walks out of the window within 48 hops |
 *
 * - Session id: after a marker segment (`/s/5c6422be/`, `/sid/…`), as `sid=…`, or ASP.NET's cookieless
 *   `/(S(…))/`; markers `s`, `sid`, `sess`, `session`, `sessionid`, `session_id`, `session-id`.
 * - Calendar: a date-only path (`…/Y/M/`, `…/Y/M/D/`, `…/YYYY-MM-DD`) or a date in the query
 *   (`?date=YYYY-MM-DD`, `?year=Y&month=M`); the window is
 *   `[currentYear − calendarPastYears, currentYear + calendarFutureYears]`.
 *
 * A limit is the most allowed (a URL is rejected only past it); `Infinity` turns a numeric rule off, `sessionMarkers: []`
 * turns the session rule off. Rules run in the order of the table and the first that fires names
 * the reason.
 *
 * Judgement calls, so that no ordinary page is rejected:
 * - A session token is all hex with at least 6 digits, or at least 16 URL-safe base64 characters
 *   mixing letters and digits; a marker followed by a word (`/s/about/`) is a page. Hex of 5 digits
 *   or fewer (a hash that happens to start with zeros) gets through once and is caught on the next
 *   hop, whose fresh token is long again with probability 1 − 2⁻¹².
 * - The calendar rule only looks at paths that *end* in a date: `/2019/05/14/my-post/` names a
 *   document and is always accepted, `/2019/05/` is a listing that an endless calendar can
 *   generate. Numeric ids look like dates too (`/go/2005/1` on the test web: page 2005, redirect hop
 *   1), so `…/Y/M[/D]` counts as a date only with a trailing slash or a zero-padded month or day,
 *   and years only between 1900 and 2199; a walk into the past or future crosses the window's edge,
 *   inside that band, before it could leave it. The price of a narrow window: month and day archive
 *   pages of blogs older than two years are rejected (their posts are not); widen the window for
 *   archival crawls.
 * - The year comes in as an argument: filters never read the clock (CONVENTIONS §2), and a replayed
 *   or simulated crawl must judge URLs as the original crawl did.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  urlParts,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/** Defaults of {@link TrapFilterOptions}. */
export const TRAP_DEFAULTS = Object.freeze({
  maxQueryParams: 10,
  maxPathDepth: 16,
  maxSegmentRepeats: 3,
  maxSequenceRepeats: 2,
  calendarPastYears: 2,
  calendarFutureYears: 1,
  sessionMarkers: Object.freeze(['s', 'sid', 'sess', 'session', 'sessionid', 'session_id', 'session-id']) as readonly string[],
});

/** Options of {@link TrapFilter}; every limit is a non-negative integer or `Infinity` (rule off). */
export interface TrapFilterOptions {
  /** The year the crawl runs in (the calendar window's centre). Required: filters never read the clock. */
  readonly currentYear: number;
  /** Most query parameters accepted (default 10). */
  readonly maxQueryParams?: number;
  /** Most non-empty path segments accepted (default 16). */
  readonly maxPathDepth?: number;
  /** Most times one segment may occur in a path (default 3). */
  readonly maxSegmentRepeats?: number;
  /** Most consecutive occurrences of a run of two or more segments (default 2). */
  readonly maxSequenceRepeats?: number;
  /** Years before `currentYear` a date-only URL may name (default 2). */
  readonly calendarPastYears?: number;
  /** Years after `currentYear` a date-only URL may name (default 1). */
  readonly calendarFutureYears?: number;
  /**
   * Segment names after which a session token marks a session path, matched ASCII
   * case-insensitively (default {@link TRAP_DEFAULTS}.sessionMarkers; `[]` turns the session rule
   * off, ASP.NET's `(S(…))` form included).
   */
  readonly sessionMarkers?: readonly string[];
}

/** Rejects URLs that look like the inside of a crawler trap; see the file comment for the rules. */
export class TrapFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly maxQueryParams: number;
  private readonly maxPathDepth: number;
  private readonly maxSegmentRepeats: number;
  private readonly maxSequenceRepeats: number;
  private readonly minYear: number;
  private readonly maxYear: number;
  private readonly markers: ReadonlySet<string>;

  constructor(options: TrapFilterOptions) {
    const o = { ...TRAP_DEFAULTS, ...definedOnly(options) };
    const issues: ConfigIssue[] = [];
    if (!Number.isSafeInteger(o.currentYear) || o.currentYear < 1900 || o.currentYear > 2199) {
      issues.push({ path: 'currentYear', message: `must be a year between 1900 and 2199, got ${String(o.currentYear)}` });
    }
    for (const key of [
      'maxQueryParams',
      'maxPathDepth',
      'maxSegmentRepeats',
      'maxSequenceRepeats',
      'calendarPastYears',
      'calendarFutureYears',
    ] as const) {
      const v = o[key];
      if (v !== Infinity && !(Number.isSafeInteger(v) && v >= 0))
        issues.push({ path: key, message: `must be a non-negative integer or Infinity, got ${String(v)}` });
    }
    if (o.maxSegmentRepeats < 1) issues.push({ path: 'maxSegmentRepeats', message: 'must be at least 1 (every segment occurs once)' });
    if (o.maxSequenceRepeats < 1) issues.push({ path: 'maxSequenceRepeats', message: 'must be at least 1 (every run occurs once)' });
    o.sessionMarkers.forEach((m, i) => {
      if (m === '' || m.includes('/')) issues.push({ path: `sessionMarkers[${i}]`, message: 'must be a non-empty path segment' });
    });
    if (issues.length > 0) throw new ConfigError(issues);
    this.maxQueryParams = o.maxQueryParams;
    this.maxPathDepth = o.maxPathDepth;
    this.maxSegmentRepeats = o.maxSegmentRepeats;
    this.maxSequenceRepeats = o.maxSequenceRepeats;
    this.minYear = o.currentYear - o.calendarPastYears;
    this.maxYear = o.currentYear + o.calendarFutureYears;
    this.markers = new Set(o.sessionMarkers.map((m) => m.toLowerCase()));
    this.spec = Object.freeze({
      id: 'trap',
      params: Object.freeze({
        currentYear: o.currentYear,
        maxQueryParams: o.maxQueryParams,
        maxPathDepth: o.maxPathDepth,
        maxSegmentRepeats: o.maxSegmentRepeats,
        maxSequenceRepeats: o.maxSequenceRepeats,
        calendarPastYears: o.calendarPastYears,
        calendarFutureYears: o.calendarFutureYears,
        sessionMarkers: Object.freeze([...this.markers]),
      }),
    });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    const { path, query } = urlParts(candidate.url);
    let hasFarQueryDate = false;
    if (query !== '') {
      const q = scanQuery(query, this.minYear, this.maxYear);
      if (q.params > this.maxQueryParams) return rejected(RejectReason.trapQueryParams);
      hasFarQueryDate = q.hasFarDate;
    }
    const segs = segmentsOf(path);
    const n = segs.length;
    if (n > this.maxPathDepth) return rejected(RejectReason.trapPathDepth);
    if (n > this.maxSegmentRepeats && hasSegmentRepeatedMoreThan(segs, this.maxSegmentRepeats)) {
      return rejected(RejectReason.trapRepeatedSegments);
    }
    if (n >= 2 * (this.maxSequenceRepeats + 1) && hasRunRepeatedMoreThan(segs, this.maxSequenceRepeats)) {
      return rejected(RejectReason.trapRepeatedSegments);
    }
    if (this.markers.size > 0 && this.hasSessionSegment(segs)) return rejected(RejectReason.trapSession);
    if (hasFarQueryDate || this.isOutsideWindow(pathDateYear(segs, path))) return rejected(RejectReason.trapCalendar);
    return ACCEPTED;
  }

  private isOutsideWindow(year: number): boolean {
    return year !== NO_YEAR && (year < this.minYear || year > this.maxYear);
  }

  private hasSessionSegment(segs: readonly string[]): boolean {
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i] as string;
      if (s.charCodeAt(0) === 40 /* ( */ && ASP_NET_COOKIELESS.test(s)) return true;
      const eq = s.indexOf('=');
      if (eq > 0) {
        if (this.isMarker(s.slice(0, eq)) && isSessionToken(s.slice(eq + 1))) return true;
      } else if (i + 1 < segs.length && this.isMarker(s) && isSessionToken(segs[i + 1] as string)) {
        return true;
      }
    }
    return false;
  }

  private isMarker(s: string): boolean {
    return s.length <= MAX_MARKER_LENGTH && this.markers.has(s.toLowerCase());
  }
}

/** Marker names longer than this are not looked up (keeps `toLowerCase` off long segments). */
const MAX_MARKER_LENGTH = 32;

/** ASP.NET cookieless state: `(S(sessionid))`, `(X(1)S(sessionid))`, `(A(…)F(…))`. */
const ASP_NET_COOKIELESS = /^\((?:[A-Za-z]\([^()/]*\))+\)$/;

/** "No date here". */
const NO_YEAR = -1;

/** Options with `undefined` fields removed, so spreading them keeps the defaults. */
function definedOnly(options: TrapFilterOptions): TrapFilterOptions {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) if (v !== undefined) out[k] = v;
  return out as unknown as TrapFilterOptions;
}

/** The non-empty segments of a path. */
function segmentsOf(path: string): string[] {
  const out: string[] = [];
  let start = 1;
  for (let i = 1; i <= path.length; i++) {
    if (i === path.length || path.charCodeAt(i) === 47 /* / */) {
      if (i > start) out.push(path.slice(start, i));
      start = i + 1;
    }
  }
  return out;
}

/**
 * Whether a segment occurs more than `max` times. Paths are short (the path-depth rule caps them):
 * comparing each segment with those after it costs less than a map per URL, which every link of
 * every page pays.
 */
function hasSegmentRepeatedMoreThan(segs: readonly string[], max: number): boolean {
  const n = segs.length;
  if (n <= 32) {
    for (let i = 0; i + max < n; i++) {
      const s = segs[i] as string;
      let count = 1;
      for (let j = i + 1; j < n; j++) if (segs[j] === s && ++count > max) return true;
    }
    return false;
  }
  const counts = new Map<string, number>();
  for (const s of segs) {
    const c = (counts.get(s) ?? 0) + 1;
    if (c > max) return true;
    counts.set(s, c);
  }
  return false;
}

/**
 * Whether a run of L ≥ 2 segments occurs more than `max` times back to back. For each L, a stretch
 * where `segs[i] === segs[i + L]` holds k times in a row is the run repeated ⌊k / L⌋ + 1 times.
 * Quadratic in the segment count, which the path-depth rule keeps small.
 */
function hasRunRepeatedMoreThan(segs: readonly string[], max: number): boolean {
  const n = segs.length;
  for (let len = 2; len * (max + 1) <= n; len++) {
    let run = 0;
    for (let i = 0; i + len < n; i++) {
      run = segs[i] === segs[i + len] ? run + 1 : 0;
      if (run >= len * max) return true;
    }
  }
  return false;
}

/** Hex of at least 6 digits, or 16+ URL-safe base64 characters mixing letters and digits. */
function isSessionToken(s: string): boolean {
  if (s.length < 6) return false;
  let isHex = true;
  let hasDigit = false;
  let hasLetter = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const l = c | 32;
    if (c >= 48 && c <= 57) {
      hasDigit = true;
    } else if (l >= 97 && l <= 122) {
      hasLetter = true;
      if (l > 102) isHex = false;
    } else if (c === 45 || c === 95) {
      isHex = false;
    } else {
      return false;
    }
  }
  return isHex || (s.length >= 16 && hasDigit && hasLetter);
}

/** The value of an all-digit string of 1 to `maxDigits` digits, else -1. */
function digitsValue(s: string, minDigits: number, maxDigits: number): number {
  if (s.length < minDigits || s.length > maxDigits) return -1;
  let v = 0;
  for (let i = 0; i < s.length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** A four-digit year read as a date: 1900–2199 (see the file comment), else -1. */
function yearValue(s: string): number {
  const y = digitsValue(s, 4, 4);
  return y >= 1900 && y <= 2199 ? y : NO_YEAR;
}

function isMonth(s: string): boolean {
  const m = digitsValue(s, 1, 2);
  return m >= 1 && m <= 12;
}

function isDay(s: string): boolean {
  const d = digitsValue(s, 1, 2);
  return d >= 1 && d <= 31;
}

/** `YYYY-MM` or `YYYY-MM-DD` (months and days of one or two digits): its year, else -1. */
function isoDateYear(s: string): number {
  if (s.length < 6 || s.length > 10 || s.charCodeAt(4) !== 45 /* - */) return NO_YEAR;
  const year = yearValue(s.slice(0, 4));
  if (year === NO_YEAR) return NO_YEAR;
  const dash = s.indexOf('-', 5);
  if (dash < 0) return isMonth(s.slice(5)) ? year : NO_YEAR;
  return isMonth(s.slice(5, dash)) && isDay(s.slice(dash + 1)) ? year : NO_YEAR;
}

/**
 * The year of a path that ends in a date, else -1: a last segment `YYYY-MM[-DD]`, or segments
 * `…/Y/M` or `…/Y/M/D` written the way dates are: with a trailing slash (a listing) or a
 * zero-padded month or day. Bare `…/2005/1` is how numeric ids look (`/go/2005/1`, a topic and a
 * post number), so it is not read as a date; a calendar written that way is still caught on the
 * first padded month of its walk.
 */
function pathDateYear(segs: readonly string[], path: string): number {
  const n = segs.length;
  if (n === 0) return NO_YEAR;
  const last = segs[n - 1] as string;
  if (last.length > 10) return NO_YEAR;
  // Cheap exit for the common case: ordinary page paths end in a word or a file name.
  const c = last.charCodeAt(0);
  if (c < 48 || c > 57) return NO_YEAR;
  const iso = isoDateYear(last);
  if (iso !== NO_YEAR) return iso;
  const hasSlash = path.charCodeAt(path.length - 1) === 47; /* / */
  if (n >= 3 && isDay(last) && isMonth(segs[n - 2] as string)) {
    const y = yearValue(segs[n - 3] as string);
    if (y !== NO_YEAR && (hasSlash || isZeroPadded(last) || isZeroPadded(segs[n - 2] as string))) return y;
  }
  if (n >= 2 && isMonth(last) && (hasSlash || isZeroPadded(last))) return yearValue(segs[n - 2] as string);
  return NO_YEAR;
}

function isZeroPadded(s: string): boolean {
  return s.length === 2 && s.charCodeAt(0) === 48; /* 0 */
}

/**
 * Counts the parameters of a query and tells whether it carries a date outside `[minYear, maxYear]`:
 * a value `YYYY-MM[-DD]`, or `year=YYYY` next to a `month` parameter.
 */
function scanQuery(query: string, minYear: number, maxYear: number): { params: number; hasFarDate: boolean } {
  const isFar = (y: number): boolean => y !== NO_YEAR && (y < minYear || y > maxYear);
  let params = 0;
  let hasFarDate = false;
  let yearParam = NO_YEAR;
  let hasMonthParam = false;
  let start = 0;
  while (start < query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    if (end > start) {
      params++;
      const eq = query.indexOf('=', start);
      if (eq > start && eq < end - 1) {
        const nameLength = eq - start;
        const valueLength = end - eq - 1;
        if (valueLength >= 6 && valueLength <= 10 && isFar(isoDateYear(query.slice(eq + 1, end)))) hasFarDate = true;
        if (nameLength === 4 && valueLength === 4 && query.slice(start, eq).toLowerCase() === 'year') {
          yearParam = yearValue(query.slice(eq + 1, end));
        } else if (nameLength === 5 && query.slice(start, eq).toLowerCase() === 'month') {
          hasMonthParam = true;
        }
      }
    }
    start = end + 1;
  }
  return { params, hasFarDate: hasFarDate || (hasMonthParam && isFar(yearParam)) };
}
