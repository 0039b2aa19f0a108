/**
 * Dynamic-path filter (SPEC §2.3): rejects `/cgi-bin/`-style URLs, the scripts early crawlers
 * avoided because each answer is generated and one script can stand for endless URLs.
 *
 * Off by default: today most of the Web is generated and a script path says little about whether
 * a page is worth having, so a crawl adds this filter to its chain only when its configuration asks
 * for it. Patterns are matched against the path and query (`/cgi-bin/search?q=1`), never the host,
 * so `.pl` in a pattern cannot catch a Polish domain.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { compilePatterns } from './regex-filter.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/**
 * Default patterns, case-insensitive: a `cgi-bin` directory, and scripts ending in `.cgi` or `.pl`
 * (Perl) as a path segment of their own, with or without path info or a query after them.
 */
export const DEFAULT_DYNAMIC_PATTERNS: readonly RegExp[] = Object.freeze([/\/cgi-bin\//i, /\.(?:cgi|pl)(?:[/?;]|$)/i]);

/** Options of {@link DynamicPathFilter}. */
export interface DynamicPathFilterOptions {
  /**
   * Patterns tested against the path and query of the normalized URL (from the first `/` after the
   * host). Strings are compiled as case-sensitive regular expressions. Default
   * {@link DEFAULT_DYNAMIC_PATTERNS}.
   */
  readonly patterns?: readonly (string | RegExp)[];
}

/** Rejects, with reason `dynamic-path`, URLs whose path and query match a pattern. */
export class DynamicPathFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly patterns: readonly RegExp[];

  constructor(options: DynamicPathFilterOptions = {}) {
    const issues: ConfigIssue[] = [];
    this.patterns = compilePatterns(options.patterns ?? DEFAULT_DYNAMIC_PATTERNS, 'patterns', issues);
    if (issues.length > 0) throw new ConfigError(issues);
    this.spec = Object.freeze({ id: 'dynamic-path', params: Object.freeze({ patterns: Object.freeze(this.patterns.map(String)) }) });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    if (this.patterns.length === 0) return ACCEPTED;
    const url = candidate.url;
    const authority = url.indexOf('//');
    const slash = url.indexOf('/', authority < 0 ? 0 : authority + 2);
    const target = slash < 0 ? '/' : url.slice(slash);
    for (const p of this.patterns) if (p.test(target)) return rejected(RejectReason.dynamicPath);
    return ACCEPTED;
  }
}
