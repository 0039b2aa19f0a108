/**
 * Scheme filter (SPEC §2.3): only http and https are fetched. `normalizeUrl` already refuses other
 * schemes, but candidates also come from seed files, sitemaps and other nodes; this filter keeps
 * the rule in the chain, where its rejections are counted, and lets a crawl narrow it to https.
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

/** The schemes shoal can fetch, and the default of {@link SchemeFilterOptions.schemes}. */
export const FETCHABLE_SCHEMES: readonly string[] = Object.freeze(['http', 'https']);

/** Options of {@link SchemeFilter}. */
export interface SchemeFilterOptions {
  /**
   * Schemes accepted, without `:`, matched ASCII case-insensitively: a non-empty subset of
   * {@link FETCHABLE_SCHEMES}. Default both (`['https']` crawls only TLS sites).
   */
  readonly schemes?: readonly string[];
}

/** Rejects, with reason `scheme`, every URL whose scheme is not in the accepted list. */
export class SchemeFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly schemes: ReadonlySet<string>;

  constructor(options: SchemeFilterOptions = {}) {
    const schemes = (options.schemes ?? FETCHABLE_SCHEMES).map((s) => s.toLowerCase().replace(/:$/, ''));
    const issues: ConfigIssue[] = [];
    if (schemes.length === 0) issues.push({ path: 'schemes', message: 'at least one scheme is needed' });
    schemes.forEach((s, i) => {
      if (!FETCHABLE_SCHEMES.includes(s))
        issues.push({ path: `schemes[${i}]`, message: `'${s}' cannot be fetched; use ${FETCHABLE_SCHEMES.join(' or ')}` });
    });
    if (issues.length > 0) throw new ConfigError(issues);
    this.schemes = new Set(schemes);
    this.spec = Object.freeze({ id: 'scheme', params: Object.freeze({ schemes: Object.freeze([...this.schemes]) }) });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    const url = candidate.url;
    const colon = url.indexOf(':');
    if (colon > 0 && url.startsWith('//', colon + 1)) {
      const scheme = url.slice(0, colon);
      // Normalized URLs have a lower-case scheme; lower-casing again keeps other input honest.
      if (this.schemes.has(scheme) || this.schemes.has(scheme.toLowerCase())) return ACCEPTED;
    }
    return rejected(RejectReason.scheme);
  }
}
