/**
 * What a robots.txt fetch means for the host (RFC 9309 §2.3.1, §2.4), pure: the fetcher reports
 * how the fetch of `/robots.txt` ended, this module says which rules apply and for how long.
 *
 * | fetch result                          | kind                 | rules            | valid for      |
 * |---------------------------------------|----------------------|------------------|----------------|
 * | 2xx with a body                       | `parsed`             | the body's       | `maxAgeMs`     |
 * | 4xx (404, 410, also 401 and 403)      | `client-error`       | allow all        | `maxAgeMs`     |
 * | more than 5 redirects                 | `too-many-redirects` | allow all        | `maxAgeMs`     |
 * | 429                                   | `rate-limited`       | disallow all     | retry delay    |
 * | 5xx                                   | `server-error`       | disallow all     | retry delay    |
 * | network error, timeout, DNS failure   | `unreachable`        | disallow all     | retry delay    |
 * | any other status (1xx, unfollowed 3xx)| `unexpected-status`  | disallow all     | retry delay    |
 *
 * - 401 and 403 are client errors like any other 4xx: RFC 9309 §2.3.1.3 counts the whole 400–499
 *   range as "unavailable", which lets the crawler access everything. (Older crawlers read them as
 *   "disallow all"; the RFC does not.)
 * - 429 is the one departure: it is the server asking for less traffic, so shoal treats it like a
 *   server error (disallow, retry later) instead of reading it as permission to crawl everything.
 * - Redirects are followed by the fetcher (RFC 9309 §2.3.1.2 asks for at least five); the body it
 *   finally gets arrives here as `ok` and its rules apply to the host first asked. Past the limit
 *   the file counts as unavailable (§2.3.1.2 allows that), so: allow all.
 * - Disallow-all still allows `/robots.txt`, so the retry is never blocked by its own outcome.
 * - The retry delay is the server's `Retry-After` when the fetcher passes one, else `retryMs`, never
 *   more than `maxAgeMs`. This module keeps no history: the caller schedules the retry and keeps the
 *   last good copy it had. RFC 9309 §2.3.1.4 says an unreachable file means complete disallow, and
 *   only after a long outage (its example: 30 days) may a crawler fall back to a cached copy or to
 *   allow-all; that choice belongs to the caller, which knows how long the outage has lasted.
 * - §2.4: a cached copy should not be used for more than 24 hours, hence the default `maxAgeMs`.
 */
import { RobotsRules } from './rules.js';
import { parseRobotsTxt, type RobotsTxt } from './robots-txt.js';

/** Default time a fetched robots.txt stays valid: 24 hours (RFC 9309 §2.4), in milliseconds. */
export const DEFAULT_ROBOTS_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/** Default delay before fetching an unreachable robots.txt again: 15 minutes, in milliseconds. */
export const DEFAULT_ROBOTS_RETRY_MS = 15 * 60 * 1000;

/** How the fetch of `/robots.txt` ended, as the fetcher reports it. */
export type RobotsFetchResult =
  /** A response with a body, after following redirects. `status` is 2xx. */
  | { readonly kind: 'ok'; readonly status: number; readonly body: string | Uint8Array }
  /** A response with an error status; `retryAfterMs` from a `Retry-After` header, when present. */
  | { readonly kind: 'http-error'; readonly status: number; readonly retryAfterMs?: number }
  /** No response: connection refused or reset, timeout, DNS failure. */
  | { readonly kind: 'unreachable' }
  /** The redirect chain went past the fetcher's limit (5). */
  | { readonly kind: 'too-many-redirects' };

/** Which case of RFC 9309 §2.3.1 applied (a crawl-log label). */
export const RobotsPolicyKind = {
  parsed: 'parsed',
  clientError: 'client-error',
  tooManyRedirects: 'too-many-redirects',
  rateLimited: 'rate-limited',
  serverError: 'server-error',
  unreachable: 'unreachable',
  unexpectedStatus: 'unexpected-status',
} as const;
export type RobotsPolicyKind = (typeof RobotsPolicyKind)[keyof typeof RobotsPolicyKind];

/** The rules a host's robots.txt fetch leads to, why, and for how long. */
export interface RobotsPolicy extends RobotsTxt {
  readonly kind: RobotsPolicyKind;
  /**
   * How long to use this answer before fetching robots.txt again, in milliseconds: `maxAgeMs` for
   * a file that was read or is unavailable, the retry delay when it was unreachable.
   */
  readonly expiresInMs: number;
}

/** Options of {@link robotsFromFetch}. */
export interface RobotsPolicyOptions {
  /** Validity of a fetched or unavailable robots.txt (default {@link DEFAULT_ROBOTS_MAX_AGE_MS}, ms). */
  readonly maxAgeMs?: number;
  /** Delay before retrying an unreachable robots.txt (default {@link DEFAULT_ROBOTS_RETRY_MS}, ms). */
  readonly retryMs?: number;
  /** Parse limit passed to {@link parseRobotsTxt} (default 512,000 bytes). */
  readonly maxBytes?: number;
}

const NO_SITEMAPS: readonly string[] = Object.freeze([]);

function fixed(rules: RobotsRules, kind: RobotsPolicyKind, expiresInMs: number): RobotsPolicy {
  return { kind, expiresInMs, sitemaps: NO_SITEMAPS, forAgent: () => rules };
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value >= 0)) throw new RangeError(`robots ${name} must be >= 0 ms, got ${String(value)}`);
  return value;
}

/** The kind an error status leads to. */
function statusKind(status: number): RobotsPolicyKind {
  if (status === 429) return RobotsPolicyKind.rateLimited;
  if (status >= 400 && status <= 499) return RobotsPolicyKind.clientError;
  if (status >= 500 && status <= 599) return RobotsPolicyKind.serverError;
  return RobotsPolicyKind.unexpectedStatus;
}

/**
 * The robots policy for a host from the result of fetching its `/robots.txt` (see the module
 * comment for the table).
 *
 * @throws RangeError when an option is negative or not a number (a caller bug).
 */
export function robotsFromFetch(result: RobotsFetchResult, options: RobotsPolicyOptions = {}): RobotsPolicy {
  const maxAgeMs = nonNegative('maxAgeMs', options.maxAgeMs, DEFAULT_ROBOTS_MAX_AGE_MS);
  const retryMs = Math.min(maxAgeMs, nonNegative('retryMs', options.retryMs, DEFAULT_ROBOTS_RETRY_MS));
  let kind: RobotsPolicyKind;
  let retryAfterMs: number | undefined;
  switch (result.kind) {
    case 'ok':
      if (result.status >= 200 && result.status <= 299) {
        const robots = parseRobotsTxt(result.body, options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes });
        return { kind: RobotsPolicyKind.parsed, expiresInMs: maxAgeMs, sitemaps: robots.sitemaps, forAgent: (t) => robots.forAgent(t) };
      }
      // A body under a non-2xx status is still that status.
      kind = statusKind(result.status);
      break;
    case 'http-error':
      kind = statusKind(result.status);
      retryAfterMs = result.retryAfterMs;
      break;
    case 'unreachable':
      kind = RobotsPolicyKind.unreachable;
      break;
    case 'too-many-redirects':
      kind = RobotsPolicyKind.tooManyRedirects;
      break;
  }
  if (kind === RobotsPolicyKind.clientError || kind === RobotsPolicyKind.tooManyRedirects) {
    return fixed(RobotsRules.allowAll, kind, maxAgeMs);
  }
  const wait = retryAfterMs !== undefined && retryAfterMs >= 0 ? Math.min(maxAgeMs, retryAfterMs) : retryMs;
  return fixed(RobotsRules.disallowAll, kind, wait);
}
