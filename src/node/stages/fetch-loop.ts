/**
 * The fetch slots: N async loops (N = `limits.concurrency`) that each take a lease from the frontier,
 * wait exactly until the frontier says a host may be contacted (a shared timer, see waker.ts), make
 * sure the host's robots.txt is known and allows the URL, fetch it, pass the outcome to the page
 * processor, and hand the lease back with what politeness needs (the fetch duration, Retry-After,
 * back-off, Crawl-delay, retry) before taking the next lease. A slot is busy from lease to the end
 * of processing, so at most N pages are in the pipeline (backpressure by construction). The host and
 * its IP are free sooner: a page's fetch is ended in the frontier (`endFetch`, politeness) when its
 * response is in, and its lease completed (durability) once its records are written.
 *
 * The lease of a host's first URL also covers its robots.txt request: the URL then goes back to its
 * place in the host's queue (`isRequeue`: not an attempt), and comes out again once the politeness gap after the
 * robots.txt request has passed, so the server never sees two requests closer than the gap.
 *
 * Before robots.txt, a slot asks what is known of the host's name (name-check.ts). A name with no
 * answer within `dnsWaitMs` sends the URL back to its queue for {@link DNS_RETRY_MS} while the lookup
 * goes on: otherwise hosts whose names answer slowly or not at all (dead links, a local resolver
 * that drops queries) would hold every slot, and the hosts that do answer would wait with them. A
 * name known not to resolve (NXDOMAIN, no address record) ends the URL as `dns-error` at once,
 * without robots.txt (a host that cannot be reached serves none), a request or a politeness gap;
 * the resolver keeps that answer for its negative TTL, so a dead host costs one lookup a minute
 * however many of its URLs are queued or found later.
 *
 * A URL that ends without a request (a dead name, robots.txt, a budget, a given-up host) frees its
 * host's connection at once (`endFetch`), before its crawl-log line is written and its lease
 * completed: the host's next URL may go in the same turn of the event loop, in another slot.
 *
 * The crawl is over when the frontier is empty, no slot is busy (a busy slot may still add URLs) and
 * nobody holds the run open ({@link FetchLoop.hold}: the node while it queues a seeds file),
 * when `maxPages` page fetches have started, or when the signal aborts. Leases taken but not fetched
 * when a run stops stay in flight: a persistent frontier puts them back on resume.
 */
import { setMaxListeners } from 'node:events';
import { fromUrlOf, type NodeEntry } from './admission.js';
import type { Clock } from '../../core/clock.js';
import type { CompletionGate } from '../durability/checkpoint.js';
import type { CrawlStats } from '../crawl-stats.js';
import { StopReason } from '../../obs/events.js';
import type { PageProcessor } from './page-processor.js';
import type { CrawlOutcomeKind } from '../../store/records.js';
import type { RobotsCache } from './robots-cache.js';
import { hostnameOfKey, urlParts } from '../../url/url-parts.js';
import type { Waker } from './waker.js';
import { connectionFailureOf, type HostReachability } from './host-reachability.js';
import { isRetryable, type FetchOutcome, type Fetcher } from '../../fetch/fetcher.js';
import type { CompletionReport, Frontier, Lease } from '../../frontier/frontier.js';
import { DEFAULT_DNS_WAIT_MS, type Resolver } from '../../dns/resolver.js';
import { NameCheck } from './name-check.js';
import type { ScopeCounters } from '../../url/scope.js';

/** Collaborators and limits of {@link FetchLoop}. */
export interface FetchLoopOptions {
  readonly frontier: Frontier;
  readonly robots: RobotsCache;
  readonly fetcher: Fetcher;
  readonly processor: PageProcessor;
  readonly clock: Clock;
  readonly waker: Waker;
  readonly stats: CrawlStats;
  /** Attempts per URL for failures that may pass. */
  readonly maxAttempts: number;
  readonly maxRetryAfterMs: number;
  /** Page fetches started at most; null for no limit. */
  readonly maxPages: number | null;
  /**
   * Page fetches started by every node of a crawl in this process, when they share `maxPages`
   * (an embedded collaborative crawl); absent: this loop's own count.
   */
  readonly sharedPages?: PageCounter;
  /** URLs fetched in earlier runs of this crawl (`limits.maxPages` holds across runs), read when the run starts. */
  readonly pagesBefore?: () => number;
  /** Whether requests go through a proxy (its address is then not the host's). */
  readonly isProxied: boolean;
  /** Where completions wait while a checkpoint flushes the stores; null without checkpoints. */
  readonly gate: CompletionGate | null;
  /** The counted budgets (pages per host, bytes); null without any. */
  readonly budget: ScopeCounters | null;
  /** The resolver the fetcher asks, to see whether a host's name is answered yet; null: never checked (a proxy resolves names). */
  readonly resolver?: Resolver | null;
  /** How long a slot waits for a host's name before the URL goes back to its queue, ms. Default {@link DEFAULT_DNS_WAIT_MS}. */
  readonly dnsWaitMs?: number;
  /** Hosts that do not answer, counted and given up (host-reachability.ts); absent: not tracked. */
  readonly reachability?: HostReachability | null;
  /** The validators of the copy held (a re-crawl's revisits: conditional GET); absent: none sent. */
  readonly validatorsOf?: ((url: string) => { readonly etag?: string; readonly lastModified?: string }) | null;
}

/** Page fetches started, counted by every node of a crawl in this process (an atomic counter across threads). */
export interface PageCounter {
  readonly started: number;
  add(pages: number): void;
}

/** The completion of a URL for which nothing was sent: its host's next contact stays as it was. */
const WITHOUT_REQUEST: CompletionReport = { fetchDurationMs: 0, isWithoutRequest: true };

/** How long a URL whose host's name is not answered yet waits before it is tried again, ms. */
export const DNS_RETRY_MS = 1000;

/**
 * Whether an outcome shows the server struggling: the host backs off (frontier `shouldBackOff`).
 * A body cut as `too-slow` does not: the delayFactor × fetch-time gap, up to `politeness.maxDelayMs`, already
 * spaces its host, and a trickle is as often one URL's (a tarpit, a stream) as the server's.
 */
function isStruggling(o: FetchOutcome): boolean {
  if (o.kind === 'http-error') return o.response.status === 429 || o.response.status >= 500;
  return o.kind === 'timeout' || o.kind === 'reset' || o.kind === 'connect-error';
}

/** The fetch slots of one run; see the file comment. */
export class FetchLoop {
  private busy = 0;
  private startedPages = 0;
  private reason: StopReason | null = null;
  /** What is known of the leased hosts' names (name-check.ts). */
  private readonly names: NameCheck;
  /** Aborts fetches in flight: the caller's signal, or a slot failing. */
  private readonly controller = new AbortController();
  private readonly signal = this.controller.signal;
  private isRunning = false;
  /** Holds on exhaustion: while any is taken, an empty frontier means "more is coming" (seeds being queued). */
  private holds = 0;

  constructor(private readonly options: FetchLoopOptions) {
    this.names = new NameCheck(options.resolver ?? null, options.clock, options.dnsWaitMs ?? DEFAULT_DNS_WAIT_MS);
  }

  /** Keeps the run from ending on an empty frontier until the returned function is called (once). */
  hold(): () => void {
    this.holds++;
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      this.holds--;
      this.options.waker.notify();
    };
  }

  /** Why the loop stopped, once it has. */
  get stopReason(): StopReason | null {
    return this.reason;
  }

  /** Slots handling a lease now. */
  get activeSlots(): number {
    return this.busy;
  }

  /**
   * Runs `slots` fetch slots until the crawl is over (once per loop); rejects on the first bug or
   * storage failure. Aborting `outer` stops the run and abandons the fetches in flight.
   */
  async run(slots: number, outer: AbortSignal): Promise<StopReason> {
    if (this.isRunning) throw new Error('FetchLoop.run() called twice');
    this.isRunning = true;
    this.startedPages = this.options.pagesBefore?.() ?? 0;
    this.options.sharedPages?.add(this.startedPages);
    // Every fetch in flight listens on the signal: one listener per slot is expected, not a leak.
    setMaxListeners(slots + 16, this.signal);
    const onAbort = (): void => {
      this.stop(StopReason.interrupted);
      this.controller.abort(outer.reason);
    };
    if (outer.aborted) onAbort();
    else outer.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.runSlots(slots);
    } finally {
      outer.removeEventListener('abort', onAbort);
    }
  }

  private async runSlots(slots: number): Promise<StopReason> {
    const loops = Array.from({ length: slots }, () => this.slot());
    const results = await Promise.allSettled(loops);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return this.reason ?? StopReason.exhausted;
  }

  /** Ends the run: slots take no new leases; fetches in flight finish (or abort with the signal). */
  stop(reason: StopReason): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.options.waker.notifyAll();
  }

  private async slot(): Promise<void> {
    const { frontier, clock, waker } = this.options;
    try {
      while (this.reason === null) {
        const next = frontier.next(clock.nowMs());
        if (next.kind === 'url') {
          waker.notify(); // there may be more: the next waiting slot looks (see waker.ts)
          await this.handle(next.lease);
        } else if (next.kind === 'empty' && this.busy === 0 && this.holds === 0) {
          this.stop(StopReason.exhausted);
        } else {
          await waker.wait(next.kind === 'wait' ? next.untilMs : Number.POSITIVE_INFINITY);
        }
      }
    } catch (err) {
      // One slot failing (storage, a bug) ends the run for all: fetches in flight are abandoned.
      this.stop(StopReason.interrupted);
      this.controller.abort(err);
      throw err;
    }
  }

  private async handle(lease: Lease): Promise<void> {
    this.busy++;
    try {
      await this.fetchLeased(lease);
    } finally {
      this.busy--;
      this.options.waker.notify();
    }
  }

  private async fetchLeased(lease: Lease): Promise<void> {
    const o = this.options;
    const entry = lease.entry as NodeEntry;
    const url = entry.url;
    const parts = urlParts(url);
    // Requests already made for the URL, in this run or (with a persistent frontier) an earlier one:
    // waiting for robots.txt or a name requeues a URL without counting an attempt.
    const priorAttempts = lease.attempt - 1;
    const isNew = priorAttempts === 0;
    if (isNew && this.isBudgetSpent()) return;
    const unreachable = o.reachability?.givenUp(entry.host) ?? null;
    if (unreachable !== null) {
      await this.endWithoutRequest(lease, unreachable.outcome, priorAttempts, unreachable.detail);
      return;
    }
    const name = await this.names.verdict(hostnameOfKey(entry.host));
    if (name.kind === 'pending') {
      await this.complete(lease, { fetchDurationMs: 0, isRequeue: true, retryAfterMs: DNS_RETRY_MS });
      return;
    }
    if (name.kind === 'unresolvable') {
      await this.endWithoutRequest(lease, 'dns-error', priorAttempts, name.code);
      return;
    }
    const robots = await this.robotsDecision(lease, parts);
    if (robots === null) return;

    const budget = o.budget?.check({ url, host: hostnameOfKey(entry.host), depth: entry.depth });
    if (budget !== undefined && !budget.isAccepted) {
      await this.endWithoutRequest(lease, 'over-budget', priorAttempts, budget.reason);
      return;
    }
    if (isNew) {
      if (this.isBudgetSpent()) return;
      this.startedPages++;
      this.options.sharedPages?.add(1);
      // The last page of the budget: no new lease after this one (retries waiting are dropped).
      if (this.options.maxPages !== null && this.limitCount >= this.options.maxPages) this.stop(StopReason.maxPages);
    }
    const startedWallMs = o.clock.wallMs();
    o.stats.request(parts.hostKey, false);
    const from = fromUrlOf(entry);
    const validators = o.validatorsOf?.(url) ?? {};
    const outcome = await o.fetcher.fetch(from === null ? { url, ...validators } : { url, referer: from, ...validators }, this.signal);
    if (outcome.kind === 'aborted') return;
    const failure = connectionFailureOf(outcome);
    if (failure !== null) o.reachability?.failed(entry.host, failure);
    else if ('response' in outcome && outcome.response !== null) o.reachability?.answered(entry.host);
    this.count(entry.host, outcome);
    const attempts = priorAttempts + 1;
    const shouldRetry = isRetryable(outcome) && attempts < o.maxAttempts;
    const retryAfterMs =
      outcome.kind === 'http-error' && outcome.retryAfterMs !== null ? Math.min(outcome.retryAfterMs, o.maxRetryAfterMs) : null;
    const report: CompletionReport = {
      fetchDurationMs: outcome.timings.totalMs,
      shouldRetry,
      shouldBackOff: isStruggling(outcome),
      crawlDelayMs: robots.crawlDelayMs,
      ...(retryAfterMs === null ? {} : { retryAfterMs }),
      ...(outcome.ip !== null && !o.isProxied ? { ip: outcome.ip } : {}),
    };
    if (shouldRetry) {
      o.stats.retries++;
      await this.complete(lease, report);
      return;
    }
    // The server's part is over: the host's gap starts now, and its connection (host and IP) is free
    // for the next URL while this page is analysed and written. The lease itself is completed once
    // the page's records are written: a checkpoint never makes final a fetch whose WARC record is not
    // in the file yet.
    o.frontier.endFetch(lease, report, o.clock.nowMs());
    o.waker.notify();
    await o.processor.process(entry, outcome, attempts, startedWallMs);
    await this.completeRecorded(lease, report);
  }

  /**
   * What robots.txt says about the leased URL: its host's Crawl-delay when the URL may be fetched;
   * null when the lease was dealt with here: the URL went back to its queue (this lease fetched the
   * host's robots.txt, or robots.txt is failing and will be tried again), or it ended without a
   * request (disallowed, or its host given up), or the run was aborted.
   */
  private async robotsDecision(
    lease: Lease,
    parts: { readonly origin: string; readonly pathAndQuery: string },
  ): Promise<{ readonly crawlDelayMs: number } | null> {
    const o = this.options;
    const host = lease.entry.host;
    for (;;) {
      const verdict = o.robots.verdict(parts.origin, o.clock.nowMs());
      switch (verdict.kind) {
        case 'fetching':
          await verdict.done;
          continue;
        case 'fetch': {
          const report = await o.robots.fetch(parts.origin, this.signal);
          if (report.isAborted) return null;
          if (report.connectionFailure !== null) o.reachability?.failed(host, report.connectionFailure);
          else if (!report.isWithoutRequest) o.reachability?.answered(host);
          const after = o.robots.verdict(parts.origin, o.clock.nowMs());
          const ip = report.ip !== null && !o.isProxied ? { ip: report.ip } : {};
          if (after.kind === 'given-up') {
            // No request will be made for the URL: it ends now, not after the gap. A robots.txt request
            // that was sent still spaces the host's next contact.
            const ended: CompletionReport = report.isWithoutRequest ? WITHOUT_REQUEST : { fetchDurationMs: report.durationMs, ...ip };
            await this.endWithoutRequest(lease, after.reason, 0, after.detail, ended);
            return null;
          }
          // The page itself comes one politeness gap after robots.txt, in its place in the host's queue.
          await this.complete(lease, {
            fetchDurationMs: report.durationMs,
            isRequeue: true,
            ...(after.kind === 'rules' ? { crawlDelayMs: after.crawlDelayMs } : {}),
            ...(after.kind === 'wait' ? { retryAfterMs: Math.max(0, after.untilMs - o.clock.nowMs()) } : {}),
            ...ip,
          });
          return null;
        }
        case 'wait':
          await this.complete(lease, { fetchDurationMs: 0, isRequeue: true, retryAfterMs: Math.max(0, verdict.untilMs - o.clock.nowMs()) });
          return null;
        case 'given-up':
          await this.endWithoutRequest(lease, verdict.reason, 0, verdict.detail);
          return null;
        case 'rules':
          if (verdict.rules.isAllowed(parts.pathAndQuery)) return { crawlDelayMs: verdict.crawlDelayMs };
          await this.endWithoutRequest(lease, 'robots-denied', 0, null);
          return null;
      }
    }
  }

  /**
   * Ends the leased URL's crawl with `kind`, without a request for it: its crawl-log record and the
   * end of its fetch (its host's connection is free now), then its lease once the record is written.
   * `report`: the politeness of a robots.txt request made under the lease, if there was one.
   */
  private async endWithoutRequest(
    lease: Lease,
    kind: CrawlOutcomeKind,
    attempts: number,
    reason: string | null,
    report: CompletionReport = WITHOUT_REQUEST,
  ): Promise<void> {
    const o = this.options;
    const entry = lease.entry as NodeEntry;
    o.processor.endWithoutRequest(entry, fromUrlOf(entry), kind, attempts, reason);
    o.frontier.endFetch(lease, report, o.clock.nowMs());
    o.waker.notify();
    await this.completeRecorded(lease, report);
  }

  /** Page fetches started that count against `maxPages` (every node's, when they share it), earlier runs included. */
  get limitCount(): number {
    return this.options.sharedPages?.started ?? this.startedPages;
  }

  /** Counts a response against the crawl budget; stops the run once its bytes are spent. */
  private count(host: string, outcome: FetchOutcome): void {
    const budget = this.options.budget;
    if (budget === null || !('response' in outcome) || outcome.response === null) return;
    budget.recordPage(hostnameOfKey(host), 'rawBody' in outcome ? outcome.rawBody.length : 0);
    if (budget.isExhausted) this.stop(StopReason.maxBytes);
  }

  /** Whether no new page may be started; ends the run when so. */
  private isBudgetSpent(): boolean {
    const max = this.options.maxPages;
    if (max === null || this.limitCount < max) return false;
    this.stop(StopReason.maxPages);
    return true;
  }

  /**
   * Completes the lease of a URL whose crawl-log record was just written, once that record has
   * reached the kernel: crash recovery finds every completion lost with the process in the crawl log
   * (tail-recovery.ts).
   */
  private async completeRecorded(lease: Lease, report: CompletionReport): Promise<void> {
    await this.options.processor.written();
    await this.complete(lease, report);
  }

  private async complete(lease: Lease, report: CompletionReport): Promise<void> {
    const wait = this.options.gate?.wait ?? null;
    if (wait !== null) await wait;
    this.options.frontier.complete(lease, report, this.options.clock.nowMs());
    this.options.waker.notify();
  }
}
