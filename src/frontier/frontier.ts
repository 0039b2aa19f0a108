/**
 * The frontier: the URLs a node has discovered and not yet fetched, handed out in priority order
 * while keeping every host (and every IP address) at a polite distance. SPEC §2 item 5.
 *
 * ## Contract
 *
 * - **What goes in.** `add` takes a URL that has already passed the URL-seen test, with the priority
 *   the ordering policy gave it (see `order/policy.ts`). Higher priorities leave first; equal
 *   priorities leave in the order they were added (FIFO). A URL the frontier already holds (queued
 *   or in flight) is refused with `false` and changes nothing.
 * - **What comes out.** `next(nowMs)` answers with a lease only for a host whose next-contact time is
 *   at or before `nowMs`, that has fewer than `maxConnectionsPerHost` leases out, and whose IP address,
 *   when the frontier knows it, has fewer than `maxConnectionsPerIp` leases out across all hosts on
 *   it. Among the hosts that may be contacted it picks the best URL (highest priority, then oldest);
 *   with X4's activity cap on (`activity-cap.ts`), among those of them under their share of recent
 *   leases first, and among all of them when none is (the cap never makes `next` wait).
 *   Otherwise it answers `wait` with the exact earliest time a host becomes contactable, or
 *   `untilMs: Infinity` when only the completion of a lease in flight can unblock anything; and
 *   `empty` if and only if nothing is queued and nothing is in flight. A lease whose fetch was ended
 *   with `endFetch` is still in flight but no longer counts against the connection limits.
 * - **Politeness.** `complete(lease, report, nowMs)`, or `endFetch` with the same arguments, sets
 *   the host's next-contact time to {@link nextContactMs}: `nowMs + max(minDelayMs, min(delayFactor ×
 *   fetchDurationMs, maxDelayMs), crawlDelayMs)`, pushed later still by Retry-After or by the
 *   exponential back-off when the report asks for it.
 * - **Leases.** Every lease is completed exactly once. A lease handed out and not completed is *in
 *   flight*; `inFlight()` lists them. A persistent frontier records leases so that after a crash it can
 *   put every in-flight URL back: a page may then be fetched twice, never lost (SPEC §8), and the
 *   duplicates are bounded by the in-flight window. A report with `shouldRetry` puts the URL back in
 *   its host queue, keeping its place, with `attempt` one higher; how many attempts to allow is the
 *   caller's decision. A report with `isRequeue` puts it back the same way with `attempt` unchanged
 *   (no request for the URL was made: its lease fetched the host's robots.txt, or waited for DNS).
 * - **Time and purity.** Time comes in as `nowMs` (milliseconds, non-decreasing from call to call,
 *   from the node's injected clock). A frontier never reads a clock, sets no timer and, for the memory
 *   version, does no I/O, so the simulator runs the same code on a virtual clock.
 * - **Determinism.** The same sequence of calls with the same arguments gives the same answers.
 * - **Failure.** Completing a lease that is not in flight is a bug and throws; non-finite priorities,
 *   negative durations and other impossible numbers throw `RangeError`. Nothing else throws.
 *
 * ## Sources
 *
 * Seed 001 (Mercator frontier: priority front queues, one back queue per server, a priority queue of
 * back queues keyed by the time the server may be used again, the gap of 5 × the last download time);
 * SPEC §2 item 5 (Crawl-delay, connections per host and per IP); seed 004 §5.1 (WebBase allowed one
 * connection per server at a time). Heritrix3's `DispositionProcessor` for the cap on the delayFactor ×
 * duration term (`maxDelayMs`, 30 s): without it one slow response (a server dripping a byte a
 * second until the fetcher's total limit) idles its host for delayFactor times that limit.
 */

/** A URL entering the frontier. Immutable. */
export interface FrontierEntry {
  /** Normalized absolute URL; the frontier's identity for the entry. */
  readonly url: string;
  /** Politeness key: the URL's host (with port when not the default), lowercase. */
  readonly host: string;
  /** Links followed from a seed (seeds are 0). Carried for the caller; the frontier ignores it. */
  readonly depth: number;
  /** From the ordering policy: higher leaves first; a finite number. */
  readonly priority: number;
  /** The host's IP address when already resolved (DNS cache hit); enables the per-IP limit early. */
  readonly ip?: string;
  /** The page (or robots.txt, or sitemap) the URL was found on. Carried for the caller, kept by a persistent frontier; the frontier ignores it. */
  readonly fromUrl?: string | null;
  /** Whether the URL names a sitemap (its URLs become seeds) rather than a page. Carried like `fromUrl`. */
  readonly isSitemap?: boolean;
}

/** Permission to fetch one URL now; hand it back to `complete` exactly once. */
export interface Lease {
  /** Unique among the leases of one frontier. */
  readonly id: number;
  readonly entry: FrontierEntry;
  /** 1 for the first try, 2 after one retry, ... */
  readonly attempt: number;
  /** `nowMs` of the `next` call that issued it. */
  readonly leasedAtMs: number;
  /** The IP address whose connection limit this lease counts against; undefined when not yet known. */
  readonly ip?: string;
}

/** A lease as the frontiers hand it out: `ip` only when the host's address is known. */
export function leaseOf(id: number, entry: FrontierEntry, attempt: number, leasedAtMs: number, ip: string | undefined): Lease {
  return ip === undefined ? { id, entry, attempt, leasedAtMs } : { id, entry, attempt, leasedAtMs, ip };
}

/** What `next` answers. */
export type NextResult =
  | { readonly kind: 'url'; readonly lease: Lease }
  /** Nothing may be fetched before `untilMs`; Infinity: not before a lease in flight completes. */
  | { readonly kind: 'wait'; readonly untilMs: number }
  | { readonly kind: 'empty' };

/** How a leased fetch went, as far as politeness and retrying are concerned. */
export interface CompletionReport {
  /** Time the fetch took (connect to last byte, or to failure), ms; drives the delayFactor × duration gap. */
  readonly fetchDurationMs: number;
  /** True on a transient failure of this URL: it goes back to its host queue, keeping its place, with `attempt` one higher. */
  readonly shouldRetry?: boolean;
  /**
   * True when the URL goes back to its host queue, keeping its place and its `attempt`, because no
   * request for it was made yet (it waited for its host's robots.txt, which this lease fetched, or for
   * its host's name). Not a retry: not counted as one. Cannot be combined with `shouldRetry`.
   */
  readonly isRequeue?: boolean;
  /**
   * True when the server showed it is struggling (429, 503, other 5xx, timeout, reset): the host
   * backs off exponentially. Implied by `retryAfterMs`.
   */
  readonly shouldBackOff?: boolean;
  /** Retry-After of a 429/503, ms: the host waits at least this long, even beyond the back-off cap. */
  readonly retryAfterMs?: number;
  /** robots.txt Crawl-delay for our user agent, ms. */
  readonly crawlDelayMs?: number;
  /** The address the host resolved to; from then on the host shares its IP's connection limit. */
  readonly ip?: string;
  /**
   * True when no request was sent under the lease (robots.txt or a budget decided against the URL):
   * the host's next-contact time and failure count stay as they were, so its next URL may go at once.
   * Cannot be combined with `shouldBackOff` or `retryAfterMs`.
   */
  readonly isWithoutRequest?: boolean;
}

/** Counters and gauges for metrics and the dashboard. */
export interface FrontierStats {
  /** URLs waiting to be leased (front and back queues). */
  readonly queued: number;
  /** Leases handed out and not completed. */
  readonly inFlight: number;
  /** URLs waiting in the front queue (not yet given to a host's back queue). */
  readonly frontQueued: number;
  /** Hosts holding a back queue (at most the configured number of back queues). */
  readonly activeHosts: number;
  /** Active hosts whose next-contact time has come and that have room for a lease. */
  readonly readyHosts: number;
  /** Active hosts waiting for their next-contact time. */
  readonly waitingHosts: number;
  /** Hosts without a back queue whose next-contact time is still remembered. */
  readonly dormantHosts: number;
  /** Leases issued since construction. */
  readonly leases: number;
  /** Completions that put their URL back for another attempt. */
  readonly retries: number;
  /** Completions that backed their host off (Retry-After or exponential back-off). */
  readonly backoffs: number;
  /** Leases that went to another host because the best URL's host was over its activity share; absent when the cap is off. */
  readonly heldBack?: number;
  /** Of `queued`, the URLs held on disk only (`PersistentFrontier`'s parking); absent when none can be. */
  readonly parked?: number;
}

/**
 * The frontier extension point (see the file comment for the Contract).
 * Implementations: `MemoryFrontier` (`memory-frontier.ts`); `PersistentFrontier`
 * (`src/frontier-store/persistent-frontier.ts`), the same scheduling with the URLs in a log on disk.
 */
export interface Frontier {
  /** Queues a URL that passed the URL-seen test; false (and no change) if the URL is already held. */
  add(entry: FrontierEntry, nowMs: number): boolean;
  /** A lease on the best URL that may be fetched at `nowMs`, or how long to wait, or `empty`. */
  next(nowMs: number): NextResult;
  /** Returns a lease with how its fetch went; sets the host's next-contact time (unless `endFetch` did). */
  complete(lease: Lease, report: CompletionReport, nowMs: number): void;
  /**
   * Ends the fetch of a lease that will not be retried (`shouldRetry` is refused) while the lease
   * stays in flight: the politeness of `complete` happens now (next-contact time, back-off, the
   * connection no longer counted against the host and its IP), and the later `complete` only makes
   * the URL done. A node ends the fetch when the response is in and completes the lease once the
   * page's records are written, so the server's connection is not held while the page is processed.
   */
  endFetch(lease: Lease, report: CompletionReport, nowMs: number): void;
  /** The leases in flight (a copy), oldest first: what a persistent frontier re-queues on resume. */
  inFlight(): readonly Lease[];
  /** Current counters. */
  stats(): FrontierStats;
}

/**
 * Optional ability: change the priority of a URL the frontier holds, for ordering policies whose
 * scores move as links are counted (backlinks, PageRank estimate). A frontier that spills to disk may
 * not be able to afford it; the node checks with {@link canReprioritize}.
 */
export interface Reprioritizable {
  /**
   * Gives the held URL `url` a new priority; its place among equal priorities (its add order) is kept.
   * A URL in flight keeps the new priority if it is retried.
   * @returns false if the frontier does not hold the URL (already fetched, or never added).
   * @throws RangeError on a non-finite priority.
   */
  reprioritize(url: string, priority: number): boolean;
  /** {@link reprioritize} for the URL whose 64-bit fingerprint (`url/fingerprint.ts`) is (hi, lo). */
  reprioritizeFingerprint(hi: number, lo: number, priority: number): boolean;
  /**
   * {@link reprioritizeFingerprint} for `count` URLs at once (URL i is (his[i], los[i])), cheaper
   * when the batch is a large part of the frontier. @returns how many were held.
   */
  reprioritizeFingerprints(count: number, his: ArrayLike<number>, los: ArrayLike<number>, priorities: ArrayLike<number>): number;
}

/** Whether `frontier` can change the priority of URLs it holds. */
export function canReprioritize(frontier: Frontier): frontier is Frontier & Reprioritizable {
  return typeof (frontier as Partial<Reprioritizable>).reprioritize === 'function';
}

/** The politeness knobs every frontier implements. Each is optional; see {@link DEFAULT_POLITENESS}. */
export interface PolitenessOptions {
  /** Smallest gap between the end of one fetch and the next contact of the same host, ms. Default 1000. */
  readonly minDelayMs?: number;
  /** The gap is at least delayFactor × the last fetch's duration (up to `maxDelayMs`). Default 5 (seed 001). */
  readonly delayFactor?: number;
  /**
   * Cap on the delayFactor × duration term of the gap, ms. Default 30,000 (Heritrix's `maxDelayMs`). It caps
   * that term only: `minDelayMs` stays the floor (below `minDelayMs` the cap leaves the gap at
   * exactly `minDelayMs`), and Crawl-delay, Retry-After and the back-off keep their own caps.
   */
  readonly maxDelayMs?: number;
  /** Leases in flight per host at most. Default 1. */
  readonly maxConnectionsPerHost?: number;
  /** Leases in flight per IP address at most, over all hosts on it. Default 1. */
  readonly maxConnectionsPerIp?: number;
  /** First back-off of a struggling server that sent no Retry-After, ms. Default 10,000. */
  readonly backoffBaseMs?: number;
  /** Longest exponential back-off, ms (Retry-After is honoured beyond it). Default 600,000. */
  readonly backoffMaxMs?: number;
}

/**
 * Default politeness. k = 5 is the factor of seed 001 and SPEC §2 item 5 (it favours servers that
 * answer fast). One connection per host and per IP is Mercator's and WebBase's rule (seed 004 §5.1).
 * The 1 s floor keeps even instant answers to at most one request per second per host. The back-off
 * doubles from 10 s to a 10 min cap (10, 20, 40, 80, 160, 320, then 600 s): long enough for an
 * overloaded server to recover, short enough that a host that had a bad minute is not lost for the
 * crawl; a server that names its own time with Retry-After gets exactly that time, uncapped. The
 * delayFactor × duration term stops at 30 s, Heritrix's `maxDelayMs`: a fetch that took 6 s already earns
 * the whole 30 s, and one that took two minutes (a body dripping until the total time limit) would
 * otherwise keep the host's other URLs waiting ten.
 */
export const DEFAULT_POLITENESS = {
  minDelayMs: 1000,
  delayFactor: 5,
  maxDelayMs: 30_000,
  maxConnectionsPerHost: 1,
  maxConnectionsPerIp: 1,
  backoffBaseMs: 10_000,
  backoffMaxMs: 600_000,
} as const satisfies Required<PolitenessOptions>;

/** Politeness with every default filled in and checked. */
export type PolitenessRules = Required<PolitenessOptions>;

/**
 * Fills in the defaults and checks the ranges.
 * @throws RangeError naming the first bad field.
 */
export function politenessRules(options: PolitenessOptions = {}): PolitenessRules {
  const rules = { ...DEFAULT_POLITENESS, ...stripUndefined(options) };
  for (const key of ['minDelayMs', 'delayFactor', 'maxDelayMs', 'backoffBaseMs', 'backoffMaxMs'] as const) {
    if (!(Number.isFinite(rules[key]) && rules[key] >= 0))
      throw new RangeError(`frontier: ${key} must be a finite number >= 0, got ${rules[key]}`);
  }
  for (const key of ['maxConnectionsPerHost', 'maxConnectionsPerIp'] as const) {
    if (!(Number.isInteger(rules[key]) && rules[key] >= 1))
      throw new RangeError(`frontier: ${key} must be an integer >= 1, got ${rules[key]}`);
  }
  return rules;
}

/**
 * The politeness gap a fetch of `fetchDurationMs` earns its host, before Crawl-delay and back-off:
 * `max(minDelayMs, min(delayFactor × fetchDurationMs, maxDelayMs))`. Also the gap between the redirect hops
 * of a robots.txt request.
 */
export function fetchGapMs(fetchDurationMs: number, rules: PolitenessRules): number {
  return Math.max(rules.minDelayMs, Math.min(rules.delayFactor * fetchDurationMs, rules.maxDelayMs));
}

/**
 * The earliest time a host may be contacted again after a fetch that completed at `completedAtMs`:
 *
 *     next = completedAtMs + max(minDelayMs, min(delayFactor × fetchDurationMs, maxDelayMs), crawlDelayMs)
 *
 * and, when the report asks for back-off, at least `completedAtMs + retryAfterMs` if the server gave
 * one, else `completedAtMs + min(backoffMaxMs, backoffBaseMs × 2^(failures − 1))`. `maxDelayMs`
 * caps the delayFactor × duration term alone: Crawl-delay and Retry-After arrive already capped by the caller
 * (the crawl's `maxCrawlDelayMs`, `maxRetryAfterMs`), the back-off by `backoffMaxMs`.
 *
 * @param failures consecutive back-off completions of this host, this one included (0 when the
 *   report does not ask for back-off).
 */
export function nextContactMs(completedAtMs: number, report: CompletionReport, failures: number, rules: PolitenessRules): number {
  const gap = Math.max(fetchGapMs(report.fetchDurationMs, rules), report.crawlDelayMs ?? 0);
  let next = completedAtMs + gap;
  if (failures > 0) {
    const backoff = report.retryAfterMs ?? Math.min(rules.backoffMaxMs, rules.backoffBaseMs * 2 ** (failures - 1));
    next = Math.max(next, completedAtMs + backoff);
  }
  return next;
}

/** Whether a report asks its host to back off. */
export function asksForBackoff(report: CompletionReport): boolean {
  return report.shouldBackOff === true || report.retryAfterMs !== undefined;
}

/**
 * Checks the numbers of a report.
 * @throws RangeError on a negative or non-finite duration, Retry-After or Crawl-delay.
 */
export function checkReport(report: CompletionReport): void {
  for (const key of ['fetchDurationMs', 'retryAfterMs', 'crawlDelayMs'] as const) {
    const value = report[key];
    if (value === undefined && key !== 'fetchDurationMs') continue;
    if (!(Number.isFinite(value) && (value as number) >= 0))
      throw new RangeError(`frontier: ${key} must be a finite number >= 0, got ${value}`);
  }
  if (report.isWithoutRequest === true && asksForBackoff(report))
    throw new RangeError('frontier: a completion without a request cannot back its host off');
  if (report.isRequeue === true && report.shouldRetry === true) throw new RangeError('frontier: a URL is requeued or retried, not both');
}

function stripUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Back queues per fetch slot: Mercator's rule of thumb of about three back queues for every
 * downloading thread, so that a free slot rarely finds every held host still in its delay (as
 * reported in Manning, Raghavan & Schütze, Introduction to Information Retrieval, §20.2.3; the seed
 * slides give Mercator's ~3k threads but not the ratio).
 */
export const BACK_QUEUES_PER_FETCH_SLOT = 3;

/** The back-queue count for a node running `fetchSlots` fetches at once. */
export function backQueueCountFor(fetchSlots: number): number {
  return BACK_QUEUES_PER_FETCH_SLOT * Math.max(1, Math.floor(fetchSlots));
}

/** Default number of back queues: 300, as for 100 fetch slots. */
export const DEFAULT_BACK_QUEUE_COUNT = backQueueCountFor(100);
