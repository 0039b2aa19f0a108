/**
 * The URL-filter extension point (SPEC §2 items 1 and 3): after normalization and before the
 * URL-seen test, every discovered link meets a chain of filters that each accept it or name why
 * not. The reason is data, never an exception: it is the label of the node's rejection counter and
 * of the crawl log, so it comes from one closed union, {@link RejectReason}.
 *
 * ## Contract
 *
 * - **Given.** `check` receives a {@link CandidateUrl}: `url` is the output of `normalizeUrl`
 *   (src/url/normalize.ts) and `host` the host it returned, so a filter never re-normalizes; it
 *   may compare lower-case ASCII (hosts are punycode, scheme and host lower-case, no fragment).
 * - **Returned.** A {@link FilterVerdict}: accepted, or rejected with exactly one reason. Verdicts
 *   are frozen and shared ({@link ACCEPTED}, {@link rejected}): a filter allocates nothing to say
 *   yes or no, and callers must not mutate them.
 * - **Pure and deterministic.** The verdict depends only on the candidate and on what the filter was
 *   built with (and, for `ScopeCounters` in src/url/scope.ts, on the counts the node recorded in
 *   it). No I/O, no clock (a filter that needs the date, such as the calendar heuristic, takes it
 *   at construction), no randomness. The same code then runs in the crawl and in the simulator.
 * - **Fast.** Filters run for every extracted link, many thousand per second per node: linear in
 *   the URL's length, no regular-expression backtracking on crawler-controlled input beyond what a
 *   user configured, no parsing with `new URL` (the optional `parsed` field exists for filters that
 *   truly need components; the built-in ones split the normalized string).
 * - **Failure.** `check` never throws on Web data (a URL is only ever accepted or rejected). Bad
 *   options are a configuration problem: constructors throw `ConfigError` listing every issue.
 * - **Composition.** {@link composeFilters} asks filters in order and returns the first rejection,
 *   so exactly one reason is counted per URL: put cheap and selective filters first.
 * - **Identity.** `spec` names the filter (its file name in src/url/filter/) and every parameter's
 *   effective value; it is logged with the crawl's metrics.
 *
 * ## Sources
 *
 * Seed 001, "The Pieces 2" (the Mercator URL filter: blacklisted sites, file extensions); SPEC §2.3
 * for the trap heuristics; the decide rules of production crawlers (Heritrix's too-many-hops, too
 * many path segments and pathological-path rules) for what users expect to configure.
 */

/** Why a URL was rejected: the closed set of labels of the rejection counters. */
export const RejectReason = {
  /** A scheme other than the allowed ones (http and https by default). */
  scheme: 'scheme',
  /** The host, or a domain it belongs to, is blocked. */
  hostBlocked: 'host-blocked',
  /** The last path segment ends in an extension that never names an HTML page. */
  extension: 'extension',
  /** The URL is longer than the limit. */
  tooLong: 'too-long',
  /** A path segment, or a run of segments, repeats (relative-link loops such as `/a/a/a/a/`). */
  trapRepeatedSegments: 'trap-repeated-segments',
  /** A date-only path or query far from the current year (an endless calendar). */
  trapCalendar: 'trap-calendar',
  /** More query parameters than the limit (a query that grows with every link). */
  trapQueryParams: 'trap-query-params',
  /** More path segments than the trap limit. */
  trapPathDepth: 'trap-path-depth',
  /** A session id written into the path (`/s/5c6422be/`, `/(S(x1y2...))/`). */
  trapSession: 'trap-session',
  /**
   * One more URL of an endless numbered space (`/q?p=41` found on `/q?p=40`): its host and form had
   * admitted their bound of numbered siblings (src/url/numbered-spaces.ts, applied by admission).
   */
  trapNumbered: 'trap-numbered',
  /** A `/cgi-bin/`-style dynamic path (when that filter is enabled). */
  dynamicPath: 'dynamic-path',
  /** The host is outside the crawl scope (hosts, domains, suffixes, seeds). */
  outOfScope: 'out-of-scope',
  /** More links from a seed than the scope's `maxDepth`. */
  depth: 'depth',
  /** More path levels than the scope's `maxPathDepth`. */
  pathDepth: 'path-depth',
  /** The host already has the scope's `maxPagesPerHost` pages. */
  hostPageLimit: 'host-page-limit',
  /** The crawl already has the scope's `maxPages` pages. */
  pageLimit: 'page-limit',
  /** The crawl already downloaded the scope's `maxBytes`. */
  byteLimit: 'byte-limit',
  /** An exclude regular expression matched. */
  regexExcluded: 'regex-excluded',
  /** Include regular expressions are configured and none matched. */
  notIncluded: 'not-included',
} as const;
export type RejectReason = (typeof RejectReason)[keyof typeof RejectReason];

/** Every reason, in declaration order (for counters that list zeros too). */
export const REJECT_REASONS: readonly RejectReason[] = Object.freeze(Object.values(RejectReason));

/** A URL about to be filtered. Immutable. */
export interface CandidateUrl {
  /** The normalized absolute URL (`normalizeUrl(...).url`). */
  readonly url: string;
  /** Its host (`normalizeUrl(...).host`): lower-case, punycode, no port; IPv6 in brackets. */
  readonly host: string;
  /** Links followed from a seed to reach it (seeds are 0). */
  readonly depth: number;
  /** `new URL(url)`, when the caller already has it; filters must not depend on it being present. */
  readonly parsed?: URL;
}

/** A filter's answer. */
export type FilterVerdict = { readonly isAccepted: true } | { readonly isAccepted: false; readonly reason: RejectReason };

/** The identity of a filter, logged with every metric (CONVENTIONS §3). */
export interface UrlFilterSpec {
  /** The filter's id, also its file name in src/url/filter/ (`trap`, `extension`, ...). */
  readonly id: string;
  /** Every parameter that changes verdicts, with its effective value. */
  readonly params: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** The URL-filter extension point; see the file comment for the Contract. */
export interface UrlFilter {
  /** What this filter is, exactly (id and parameters). */
  readonly spec: UrlFilterSpec;
  /** Accepts the candidate, or rejects it with one reason. Pure, fast, never throws. */
  check(url: CandidateUrl): FilterVerdict;
}

/** The shared verdict that accepts. */
export const ACCEPTED: FilterVerdict = Object.freeze({ isAccepted: true });

const REJECTIONS = new Map<RejectReason, FilterVerdict>(
  REJECT_REASONS.map((reason) => [reason, Object.freeze({ isAccepted: false, reason })]),
);

/** The shared verdict that rejects for `reason` (one frozen object per reason: no allocation). */
export function rejected(reason: RejectReason): FilterVerdict {
  return REJECTIONS.get(reason) as FilterVerdict;
}

/**
 * Asks `filters` in order and returns the first rejection, or {@link ACCEPTED} when every filter
 * accepts (an empty list accepts everything). The list is copied, so later changes to the array
 * do not change the chain.
 */
export function composeFilters(filters: readonly UrlFilter[]): UrlFilter {
  const chain = [...filters];
  const spec: UrlFilterSpec = Object.freeze({
    id: 'chain',
    params: Object.freeze({ filters: Object.freeze(chain.map((f) => f.spec.id)) }),
  });
  return {
    spec,
    check(url: CandidateUrl): FilterVerdict {
      for (const f of chain) {
        const v = f.check(url);
        if (!v.isAccepted) return v;
      }
      return ACCEPTED;
    },
  };
}

/** The path and the query (without its `?`) of a normalized URL. */
export interface UrlParts {
  /** From the `/` after the authority up to the query: never empty for a normalized URL. */
  readonly path: string;
  /** After the `?`, or `''` when there is none. */
  readonly query: string;
}

/**
 * Splits a normalized URL into path and query without parsing it. A normalized URL has no fragment
 * and its authority holds no `/` or `?` (the normalizer percent-encodes them in userinfo), so the
 * first `/` after `//` starts the path and the first `?` after it starts the query. A string with no
 * path (not normalized) gets `/`.
 */
export function urlParts(url: string): UrlParts {
  const authority = url.indexOf('//');
  const slash = url.indexOf('/', authority < 0 ? 0 : authority + 2);
  if (slash < 0) {
    const q = url.indexOf('?');
    return { path: '/', query: q < 0 ? '' : url.slice(q + 1) };
  }
  const q = url.indexOf('?', slash);
  return q < 0 ? { path: url.slice(slash), query: '' } : { path: url.slice(slash, q), query: url.slice(q + 1) };
}

/**
 * The number of path levels: non-empty segments, so `/` is 0, `/a/` is 1 and `/a/b.html` is 2. Empty
 * segments (`//`) do not count: they add no level on most servers.
 */
export function pathDepth(path: string): number {
  let n = 0;
  let isInSegment = false;
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) === 47 /* / */) {
      isInSegment = false;
    } else if (!isInSegment) {
      isInSegment = true;
      n++;
    }
  }
  return n;
}
