/**
 * Regular-expression filter (SPEC §2 item 1: "regex include/exclude"): the user's own rules over
 * the whole normalized URL. Excludes win: a URL that matches any exclude pattern is rejected
 * (`regex-excluded`); then, when include patterns are given, a URL must match at least one of them
 * (`not-included`). An empty include list includes everything.
 *
 * Patterns run against the normalized URL, so write them for that form: lower-case scheme and
 * host, no default port, no fragment, escapes of unreserved characters decoded.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/** Options of {@link RegexFilter}; strings are compiled as case-sensitive regular expressions. */
export interface RegexFilterOptions {
  /** A URL must match one of these, unless the list is empty (default `[]`: everything). */
  readonly include?: readonly (string | RegExp)[];
  /** A URL matching any of these is rejected, whatever `include` says (default `[]`). */
  readonly exclude?: readonly (string | RegExp)[];
}

/** Include/exclude regular expressions over the normalized URL. */
export class RegexFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly include: readonly RegExp[];
  private readonly exclude: readonly RegExp[];

  constructor(options: RegexFilterOptions = {}) {
    const issues: ConfigIssue[] = [];
    this.include = compilePatterns(options.include ?? [], 'include', issues);
    this.exclude = compilePatterns(options.exclude ?? [], 'exclude', issues);
    if (issues.length > 0) throw new ConfigError(issues);
    this.spec = Object.freeze({
      id: 'regex',
      params: Object.freeze({ include: Object.freeze(this.include.map(String)), exclude: Object.freeze(this.exclude.map(String)) }),
    });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    const url = candidate.url;
    for (const re of this.exclude) if (re.test(url)) return rejected(RejectReason.regexExcluded);
    if (this.include.length === 0) return ACCEPTED;
    for (const re of this.include) if (re.test(url)) return ACCEPTED;
    return rejected(RejectReason.notIncluded);
  }
}

/**
 * Compiles patterns once, for this filter and the dynamic-path filter. A `g` or `y` flag is
 * dropped: it makes `test` remember `lastIndex` between calls, so one URL's verdict would depend on
 * the URL checked before it. Bad sources become configuration issues under `path[i]`.
 */
export function compilePatterns(patterns: readonly (string | RegExp)[], path: string, issues: ConfigIssue[]): RegExp[] {
  const out: RegExp[] = [];
  patterns.forEach((p, i) => {
    try {
      const re = typeof p === 'string' ? new RegExp(p) : p;
      out.push(re.global || re.sticky ? new RegExp(re.source, re.flags.replace(/[gy]/g, '')) : re);
    } catch (err) {
      issues.push({ path: `${path}[${i}]`, message: `not a regular expression: ${(err as Error).message}` });
    }
  });
  return out;
}
