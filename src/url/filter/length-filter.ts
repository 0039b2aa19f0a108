/**
 * Length filter (SPEC §2.3): URLs longer than a limit are rejected. Very long URLs are almost always
 * generated (state serialized into the query, paths that grow with every link) and many servers
 * refuse them anyway (414). The default, 2,048 characters, is the sitemaps protocol's limit for a
 * `<loc>` and just under the old 2,083 of Internet Explorer that most sites still respect.
 *
 * Length is counted in characters of the normalized URL, which is ASCII (non-ASCII is
 * percent-encoded, hosts are punycode), so characters are also bytes.
 */
import { ConfigError } from '../../core/errors.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/** Default {@link LengthFilterOptions.maxLength}: 2,048 characters. */
export const DEFAULT_MAX_URL_LENGTH = 2048;

/** Options of {@link LengthFilter}. */
export interface LengthFilterOptions {
  /** Longest URL accepted, in characters of the normalized URL (default 2,048; a positive integer). */
  readonly maxLength?: number;
}

/** Rejects, with reason `too-long`, URLs longer than `maxLength`. */
export class LengthFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly maxLength: number;

  constructor(options: LengthFilterOptions = {}) {
    const maxLength = options.maxLength ?? DEFAULT_MAX_URL_LENGTH;
    if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
      throw new ConfigError([{ path: 'maxLength', message: `must be a positive integer, got ${maxLength}` }]);
    }
    this.maxLength = maxLength;
    this.spec = Object.freeze({ id: 'length', params: Object.freeze({ maxLength }) });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    return candidate.url.length > this.maxLength ? rejected(RejectReason.tooLong) : ACCEPTED;
  }
}
