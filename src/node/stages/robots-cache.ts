/**
 * robots.txt per origin (SPEC §2 item 7): fetched once through the crawl's own fetcher, under the
 * frontier lease of the first URL of the host (so the request counts against the host's and the IP's
 * connection limits like any other), parsed by `robots/`, and kept with its expiry in a bounded map.
 *
 * What the fetch loop asks for a URL's origin ({@link RobotsCache.verdict}):
 * - `fetch`: nothing (or nothing fresh) is known: fetch it now, under the lease in hand;
 * - `fetching`: another slot is fetching it: wait for that;
 * - `rules`: the rules for our product token and the Crawl-delay;
 * - `wait`: the last fetch failed (5xx, 429, unreachable): RFC 9309 §2.3.1.4 disallows the whole host
 *   until a retry succeeds, which may be tried at `untilMs`;
 * - `given-up`: `maxAttempts` fetches in a row failed, or the host cannot be reached at all (its
 *   name does not resolve, its address is refused): URLs of the host are dropped with that reason
 *   until `maxAgeMs` has passed, as long as a file that was read would be kept.
 *
 * Redirects of robots.txt are followed here (up to `maxRedirects`), waiting the politeness gap
 * between hops, since the fetcher never follows redirects itself.
 */
import type { Clock } from '../../core/clock.js';
import type { CrawlConfig } from '../../config/crawl-config.js';
import { connectionFailureOf, describeFailure, type ConnectionFailure } from './host-reachability.js';
import type { CrawlOutcomeKind } from '../../store/records.js';
import { isRetryable, type FetchOutcome, type Fetcher } from '../../fetch/fetcher.js';
import { robotsFromFetch, RobotsPolicyKind, type RobotsFetchResult } from '../../robots/fetch-policy.js';
import { productToken } from '../../robots/robots-txt.js';
import type { RobotsRules } from '../../robots/rules.js';
import { normalizeUrl } from '../../url/normalize.js';

/** What to do about robots.txt before fetching a URL of an origin. */
export type RobotsVerdict =
  | { readonly kind: 'fetch' }
  | { readonly kind: 'fetching'; readonly done: Promise<void> }
  | { readonly kind: 'rules'; readonly rules: RobotsRules; readonly crawlDelayMs: number }
  | { readonly kind: 'wait'; readonly untilMs: number }
  | { readonly kind: 'given-up'; readonly reason: CrawlOutcomeKind; readonly detail: string | null };

/** How a robots.txt fetch went, for the lease it was made under. */
export interface RobotsFetchReport {
  readonly isAborted: boolean;
  /** Duration of the last request, ms (the frontier's delayFactor × duration gap). */
  readonly durationMs: number;
  readonly ip: string | null;
  /** How the last request failed before any answer (host-reachability.ts); null when the server answered or the fetch was aborted. */
  readonly connectionFailure: ConnectionFailure | null;
  /** Whether the last request was never sent: the host's name gave no address, or an address the crawl may not contact. */
  readonly isWithoutRequest: boolean;
}

/** Options of {@link RobotsCache}. */
export interface RobotsCacheOptions {
  readonly config: CrawlConfig['robots'];
  /** The full User-Agent; its product token selects the robots.txt group. */
  readonly userAgent: string;
  readonly maxCrawlDelayMs: number;
  readonly maxRetryAfterMs: number;
  readonly fetcher: Fetcher;
  readonly clock: Clock;
  /** Politeness gap to wait after a request that took `durationMs`, before the next hop of a redirect. */
  readonly hopGapMs: (durationMs: number) => number;
  /**
   * Wait before fetching again a robots.txt whose host did not answer at all (refused, unreachable,
   * connect timeout), after `failures` such fetches in a row, ms: the politeness back-off, so that a
   * host that refuses connections is given up within a minute rather than after `config.retryMs`
   * (meant for servers that answer 5xx) times `maxAttempts`. Default: `config.retryMs`.
   */
  readonly unreachableRetryMs?: (failures: number) => number;
  /** Called with the outcome of every robots.txt request (WARC records, counters). */
  readonly onRequest: (url: string, outcome: FetchOutcome, startedWallMs: number) => Promise<void>;
  /** Called with what each robots.txt fetch (after its redirects, unless aborted) led to (counters). */
  readonly onResult?: (kind: RobotsPolicyKind) => void;
  /** Called after each failed robots.txt fetch (an error answer, or no answer). */
  readonly onFailure?: (failure: RobotsFailure) => void;
  /** Called with the `Sitemap:` URLs of each robots.txt read (again at each refresh), when it announces any. */
  readonly onSitemaps?: (robotsUrl: string, sitemaps: readonly string[]) => void;
}

interface Entry {
  /** Rules of the last successful fetch, while it is fresh; null while failing. */
  rules: RobotsRules | null;
  /** What {@link rules} count for against `cacheBytes`. */
  bytes: number;
  crawlDelayMs: number;
  /** When the current answer ends: rules expire, a failed fetch may be retried, a given-up host is tried again. */
  expiresAtMs: number;
  /** Failed fetches in a row. */
  failures: number;
  givenUp: CrawlOutcomeKind | null;
  /** Why the host was given up, for the crawl log; null when it was not, or the outcome says it all. */
  givenUpDetail: string | null;
  /** The server's answer to the last fetch when it failed with one (`HTTP 503`); null otherwise. */
  lastAnswer: string | null;
  fetching: Promise<void> | null;
}

/** A failed robots.txt fetch, as {@link RobotsCacheOptions.onFailure} hears of it. */
export interface RobotsFailure {
  readonly origin: string;
  /** What failed: the server's answer (`HTTP 503`), or how the request did (`connect timed out (connect-timeout)`). */
  readonly what: string;
  /** Failed fetches in a row, this one included. */
  readonly failures: number;
  /** When the next fetch may go; the host's URLs wait until then (RFC 9309 §2.3.1.4: complete disallow). */
  readonly retryAtMs: number;
  /** Whether the host's queued URLs are given up now (`robots.maxAttempts` reached, or no retry can help). */
  readonly isGivenUp: boolean;
}

/** Origins whose URLs wait for a robots.txt that the server answered with an error; see {@link RobotsCache.waiting}. */
export interface RobotsWaiting {
  readonly hosts: number;
  /** The soonest next fetch among them. */
  readonly nextTryAtMs: number;
  /** The first few as `origin: answer`. */
  readonly first: readonly string[];
}

/** Failures that no retry will fix: the URLs are dropped with this very outcome. */
function hopelessKind(outcome: FetchOutcome): CrawlOutcomeKind | null {
  if (outcome.kind === 'address-denied') return 'address-denied';
  if (outcome.kind === 'connect-error' && !isRetryable(outcome)) return 'connect-error'; // a TLS certificate refused
  if (outcome.kind === 'dns-error' && !['ETIMEOUT', 'ESERVFAIL', 'EAI_AGAIN', 'ECONNREFUSED', 'ETIMEDOUT'].includes(outcome.code))
    return 'dns-error';
  return null;
}

/** The robots.txt of every origin the crawl meets; see the file comment. */
export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly token: string;
  /** The entries that hold rules, least recently used first (the ones `cacheBytes` drops). */
  private readonly withRules = new Map<string, Entry>();
  /** The rules' estimated bytes, summed over {@link withRules}. */
  private rulesBytes = 0;

  constructor(private readonly options: RobotsCacheOptions) {
    this.token = productToken(options.userAgent);
  }

  /** Origins whose robots.txt is held. */
  get size(): number {
    return this.entries.size;
  }

  /** Estimated bytes of the rules held (`RobotsRules.approxBytes`, summed). */
  get bytes(): number {
    return this.rulesBytes;
  }

  /** What to do before fetching a URL of `origin` at `nowMs`. */
  verdict(origin: string, nowMs: number): RobotsVerdict {
    const e = this.entries.get(origin);
    if (e === undefined) return { kind: 'fetch' };
    if (e.fetching !== null) return { kind: 'fetching', done: e.fetching };
    if (nowMs >= e.expiresAtMs) return { kind: 'fetch' };
    // Most recently used last, so that eviction drops the coldest origin.
    this.entries.delete(origin);
    this.entries.set(origin, e);
    if (e.bytes > 0) {
      this.withRules.delete(origin);
      this.withRules.set(origin, e);
    }
    if (e.givenUp !== null) return { kind: 'given-up', reason: e.givenUp, detail: e.givenUpDetail };
    if (e.rules !== null) return { kind: 'rules', rules: e.rules, crawlDelayMs: e.crawlDelayMs };
    return { kind: 'wait', untilMs: e.expiresAtMs };
  }

  /** The fresh rules of `origin`, if known (to drop disallowed links before they are queued). */
  peekRules(origin: string, nowMs: number): RobotsRules | null {
    const e = this.entries.get(origin);
    return e !== undefined && e.rules !== null && e.fetching === null && nowMs < e.expiresAtMs ? e.rules : null;
  }

  /**
   * The origins whose URLs wait, at `nowMs`, to fetch again a robots.txt that the server answered
   * with an error (5xx, 429), and when the soonest may; null when none does. Hosts that did not
   * answer at all are host-reachability's to report.
   */
  waiting(nowMs: number, limit = 3): RobotsWaiting | null {
    let hosts = 0;
    let nextTryAtMs = Infinity;
    const first: string[] = [];
    for (const [origin, e] of this.entries) {
      if (e.lastAnswer === null || e.givenUp !== null || e.fetching !== null || nowMs >= e.expiresAtMs) continue;
      hosts++;
      nextTryAtMs = Math.min(nextTryAtMs, e.expiresAtMs);
      if (first.length < limit) first.push(`${origin}: ${e.lastAnswer}`);
    }
    return hosts === 0 ? null : { hosts, nextTryAtMs, first };
  }

  /** Fetches the robots.txt of `origin` now (the caller holds a lease on the host). */
  async fetch(origin: string, signal: AbortSignal): Promise<RobotsFetchReport> {
    let entry = this.entries.get(origin);
    if (entry === undefined) {
      entry = {
        rules: null,
        bytes: 0,
        crawlDelayMs: 0,
        expiresAtMs: 0,
        failures: 0,
        givenUp: null,
        givenUpDetail: null,
        lastAnswer: null,
        fetching: null,
      };
      this.entries.set(origin, entry);
      this.shrink(origin);
    }
    const e = entry;
    if (e.givenUp !== null) {
      // A given-up host gets a fresh series of attempts once its time is over.
      e.givenUp = null;
      e.givenUpDetail = null;
      e.failures = 0;
    }
    let finish = (): void => {};
    e.fetching = new Promise((resolve) => {
      finish = resolve;
    });
    try {
      return await this.fetchInto(origin, e, signal);
    } finally {
      e.fetching = null;
      finish();
    }
  }

  private async fetchInto(origin: string, e: Entry, signal: AbortSignal): Promise<RobotsFetchReport> {
    const o = this.options;
    let url = `${origin}/robots.txt`;
    let outcome: FetchOutcome;
    let hops = 0;
    for (;;) {
      const startedWallMs = o.clock.wallMs();
      outcome = await o.fetcher.fetch({ url }, signal);
      if (outcome.kind === 'aborted')
        return { isAborted: true, durationMs: outcome.timings.totalMs, ip: outcome.ip, connectionFailure: null, isWithoutRequest: false };
      await o.onRequest(url, outcome, startedWallMs);
      if (outcome.kind !== 'redirect' || outcome.location === null || hops >= o.config.maxRedirects) break;
      const next = normalizeUrl(outcome.location);
      if (next.kind !== 'ok') break;
      hops++;
      url = next.url;
      await o.clock.sleepUntil(o.clock.nowMs() + o.hopGapMs(outcome.timings.totalMs), signal);
      if (signal.aborted)
        return { isAborted: true, durationMs: outcome.timings.totalMs, ip: outcome.ip, connectionFailure: null, isWithoutRequest: false };
    }
    this.settle(origin, e, outcome, hops);
    this.shrink(origin);
    return {
      isAborted: false,
      durationMs: outcome.timings.totalMs,
      ip: outcome.ip,
      connectionFailure: connectionFailureOf(outcome),
      isWithoutRequest: outcome.kind === 'dns-error' || outcome.kind === 'address-denied',
    };
  }

  /** Turns the last outcome into rules, a retry time or a given-up host. */
  private settle(origin: string, e: Entry, outcome: FetchOutcome, hops: number): void {
    const o = this.options;
    const now = o.clock.nowMs();
    const policy = robotsFromFetch(this.fetchResult(outcome, hops), {
      maxAgeMs: o.config.maxAgeMs,
      retryMs: o.config.retryMs,
      maxBytes: o.config.maxBytes,
    });
    o.onResult?.(policy.kind);
    const isUsable =
      policy.kind === RobotsPolicyKind.parsed ||
      policy.kind === RobotsPolicyKind.clientError ||
      policy.kind === RobotsPolicyKind.tooManyRedirects;
    if (isUsable) {
      if (policy.sitemaps.length > 0) o.onSitemaps?.(`${origin}/robots.txt`, policy.sitemaps);
      const rules = policy.forAgent(this.token);
      this.setRules(origin, e, rules);
      e.crawlDelayMs = Math.min(rules.crawlDelayMs ?? 0, o.maxCrawlDelayMs);
      e.failures = 0;
      e.lastAnswer = null;
      e.expiresAtMs = now + policy.expiresInMs;
      return;
    }
    this.setRules(origin, e, null);
    e.failures++;
    e.lastAnswer = outcome.kind === 'http-error' ? `HTTP ${outcome.response.status}` : null;
    const hopeless = hopelessKind(outcome);
    const unanswered = connectionFailureOf(outcome);
    const failure = unanswered === null ? null : `${describeFailure(unanswered)} (${unanswered.code})`;
    if (hopeless !== null || e.failures >= o.config.maxAttempts) {
      // Given up like a file that was read: the next series of attempts comes with the next refresh.
      // A host that never answered ends its URLs with how it failed, not as a robots.txt matter.
      e.givenUp = hopeless ?? unanswered?.kind ?? 'robots-unavailable';
      e.givenUpDetail = failure === null ? null : `robots.txt: ${failure}, ${e.failures} times in a row`;
      e.expiresAtMs = now + o.config.maxAgeMs;
    } else if (unanswered !== null && o.unreachableRetryMs !== undefined) {
      e.expiresAtMs = now + o.unreachableRetryMs(e.failures);
    } else {
      e.expiresAtMs = now + policy.expiresInMs;
    }
    o.onFailure?.({
      origin,
      what: e.lastAnswer ?? failure ?? outcome.kind,
      failures: e.failures,
      retryAtMs: e.expiresAtMs,
      isGivenUp: e.givenUp !== null,
    });
  }

  private fetchResult(outcome: FetchOutcome, hops: number): RobotsFetchResult {
    const o = this.options;
    switch (outcome.kind) {
      case 'ok':
        return { kind: 'ok', status: outcome.response.status, body: outcome.body };
      case 'http-error': {
        const after = outcome.retryAfterMs;
        return after === null
          ? { kind: 'http-error', status: outcome.response.status }
          : { kind: 'http-error', status: outcome.response.status, retryAfterMs: Math.min(after, o.maxRetryAfterMs) };
      }
      case 'redirect':
        return hops >= o.config.maxRedirects && outcome.location !== null
          ? { kind: 'too-many-redirects' }
          : { kind: 'http-error', status: outcome.response.status };
      default:
        return { kind: 'unreachable' };
    }
  }

  private setRules(origin: string, e: Entry, rules: RobotsRules | null): void {
    this.rulesBytes -= e.bytes;
    this.withRules.delete(origin);
    e.rules = rules;
    e.bytes = rules?.approxBytes ?? 0;
    if (e.bytes === 0) return;
    this.rulesBytes += e.bytes;
    this.withRules.set(origin, e);
  }

  /**
   * Drops the least recently used origins (never `keep`, nor one being fetched) while more than
   * `cacheEntries` are held, and the least recently used with rules while the rules take more than
   * `cacheBytes` (an origin without rules, failing or given up, costs little and keeps its count
   * of failures). Each scan skips at most the origins being fetched and `keep`.
   */
  private shrink(keep: string): void {
    const { cacheEntries, cacheBytes } = this.options.config;
    if (this.entries.size > cacheEntries) {
      for (const [key, e] of this.entries) {
        if (this.entries.size <= cacheEntries) break;
        if (e.fetching === null && key !== keep) this.drop(key, e);
      }
    }
    if (this.rulesBytes > cacheBytes) {
      for (const [key, e] of this.withRules) {
        if (this.rulesBytes <= cacheBytes) break;
        if (e.fetching === null && key !== keep) this.drop(key, e);
      }
    }
  }

  private drop(origin: string, e: Entry): void {
    this.entries.delete(origin);
    this.withRules.delete(origin);
    this.rulesBytes -= e.bytes;
  }
}
