/**
 * One local crawler's lifecycle, once `build-node.ts` has locked the crawl directory and built the
 * parts: open the stores (a persistent frontier recovers what a crashed run left, and the work done
 * after its last checkpoint is recovered from the crawl log: tail-recovery.ts), queue the seeds, run
 * the fetch slots, publish progress, take checkpoints, and on the way out (done, limit, Ctrl-C or
 * failure) close the fetcher, take a last checkpoint and close every store, in that order, before the
 * lock is released. This class only sequences the parts (CONVENTIONS §5: no god object).
 */
import { specLabel } from '../core/strings.js';
import type { Admission } from './stages/admission.js';
import type { Checkpointer } from './durability/checkpoint.js';
import type { Clock } from '../core/clock.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import type { CrawlBudget } from './durability/crawl-budget.js';
import type { CrawlDirLayout, CrawlDirLock } from '../store/crawl-dir.js';
import type { PageProcessor } from './stages/page-processor.js';
import { budgetRecordOf, readRecoveredTail, type RecoveredTail, type TailRecoveryOptions } from './durability/tail-recovery.js';
import type { FrontierOpenOptions } from '../frontier-store/persistent-frontier.js';
import type { NumberedSpaces } from '../url/numbered-spaces.js';
import { describeFailure, type HostReachability } from './stages/host-reachability.js';
import type { RobotsCache } from './stages/robots-cache.js';
import type { CrawlStats, CrawlSummary } from './crawl-stats.js';
import { StopReason, type CrawlEvents, type CrawlProgress } from '../obs/events.js';
import { addExchangeTotals } from './collaboration/exchange-totals.js';
import type { FetchLoop } from './stages/fetch-loop.js';
import type { Inbox } from './collaboration/inbox.js';
import type { PartitionRouter } from './collaboration/partition-router.js';
import type { Log } from '../obs/log.js';
import type { PageAnalyzer } from './analysis/page-analyzer.js';
import type { CrawlSinks } from '../store/records.js';
import { readSeedsFile, type Seed, type Seeds } from './stages/seeds.js';
import type { Waker } from './stages/waker.js';
import type { Resolver } from '../dns/resolver.js';
import type { Exchange } from '../exchange/exchange.js';
import type { PartitionId } from '../partition/partitioner.js';
import type { Fetcher } from '../fetch/fetcher.js';
import type { Frontier, FrontierStats } from '../frontier/frontier.js';
import type { OrderingPolicy } from '../order/policy.js';
import type { SeenSet } from '../seen/seen-set.js';
import type { WarcWriter } from '../store/warc/warc-writer.js';
import type { RevisitScheduler } from './stages/revisits.js';

/** The crash-safe part of a node: a frontier on disk and the checkpoints that keep it in step. */
export interface Durability {
  /** Opens (and recovers) the frontier's store, and the duplicate index; `isCompleted`: see `PersistentFrontier.open`. */
  open(options?: FrontierOpenOptions): Promise<void>;
  /** Flushes and closes it. */
  close(): Promise<void>;
  readonly checkpointer: Checkpointer;
  readonly intervalMs: number;
}

/** A node's part in a collaborative crawl: its exchange endpoint, and what sends and receives through it. */
export interface NodeCollaboration {
  readonly exchange: Exchange;
  /** The partitions this node owns. */
  readonly partitions: readonly PartitionId[];
  readonly router: PartitionRouter;
  readonly inbox: Inbox;
  /** How often partial URL batches are sent, ms. */
  readonly batchDelayMs: number;
  /** How often link summaries are sent, ms; 0 = never. */
  readonly linkSummaryIntervalMs: number;
  /** Called once the fetch slots have stopped, before the exchange closes (a distributed node tells the others why it stopped). */
  readonly beforeClose?: (stopReason: StopReason | null) => Promise<void>;
}

/** What {@link CrawlNode} runs; `build-node.ts` makes them. */
export interface CrawlNodeParts {
  readonly config: CrawlConfig;
  readonly layout: CrawlDirLayout;
  readonly seeds: Seeds;
  readonly clock: Clock;
  readonly log: Log;
  readonly events: CrawlEvents;
  readonly frontier: Frontier;
  readonly seen: SeenSet;
  readonly fetcher: Fetcher;
  /** Where pages are analysed; closed once no slot runs. */
  readonly analyzer: PageAnalyzer;
  readonly resolver: Resolver;
  readonly warc: WarcWriter | null;
  /** WARC files this run wrote to. */
  readonly warcFiles: ReadonlySet<string>;
  readonly admission: Admission;
  readonly loop: FetchLoop;
  readonly stats: CrawlStats;
  readonly waker: Waker;
  readonly sinks: CrawlSinks;
  /** null with a memory frontier. */
  readonly durability: Durability | null;
  /** The crawl directory's lock, taken before anything was built; released once everything is closed. */
  readonly lock: CrawlDirLock;
  /** The counted budgets, kept across runs. */
  readonly budget: CrawlBudget;
  /** The bound on endless numbered spaces; null when off. */
  readonly numbered: NumberedSpaces | null;
  /** Hosts that do not answer. */
  readonly reachability: HostReachability;
  /** The robots.txt of each origin met; the progress events tell which wait for a failing one. */
  readonly robots: RobotsCache;
  /**
   * How to read back the work of a run killed after its last checkpoint (tail-recovery.ts); null when
   * the crawl cannot (a memory frontier, no crawl log or no WARC files).
   */
  readonly recovery: Omit<TailRecoveryOptions, 'from'> | null;
  readonly processor: PageProcessor;
  /** Resources the node created and must release last (its own log file). */
  readonly onClosed: () => Promise<void>;
  /** The exchange, in a collaborative crawl; null for a node on its own. */
  readonly collab: NodeCollaboration | null;
  /** The ordering policy (its spec is logged and summarized). */
  readonly policy: OrderingPolicy;
  /** The re-crawl's schedule; null when `recrawl.enabled` is off. */
  readonly revisits?: RevisitScheduler | null;
}

/** Seeds of a seeds file queued at a time. */
const SEED_BATCH = 1000;

/** A built node; `run` may be called once. */
export class CrawlNode {
  private hasRun = false;
  /** In a collaborative crawl: keeps the run open on an empty frontier until the crawl as a whole is done. */
  private releaseCollab: (() => void) | null = null;
  /** From the stores opened to the start of closing: while the node may be asked whether it is idle. */
  private isCrawling = false;
  /** While the seeds are being queued (a seeds file is read in batches). */
  private isSeeding = false;

  constructor(private readonly parts: CrawlNodeParts) {}

  /** Crawls until the frontier is empty, `maxPages` is reached or `signal` aborts; then closes everything. */
  async run(signal: AbortSignal): Promise<CrawlSummary> {
    if (this.hasRun) throw new Error('CrawlNode.run() may be called once');
    this.hasRun = true;
    const p = this.parts;
    const startMs = p.clock.nowMs();
    const background = new AbortController();
    // The fetch slots stop for the caller's signal, or for a failed checkpoint.
    const stop = new AbortController();
    const onAbort = (): void => stop.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    let failure: unknown = null;
    let reason: StopReason = StopReason.interrupted;
    let left: FrontierStats | null = null;
    let endMs = startMs;
    try {
      await this.open();
      this.isCrawling = true;
      void this.every(p.config.progressIntervalMs, startMs, background.signal, () => {
        p.events.progress(this.withLiveFigures(p.stats.progress(p.config.nodeId, p.clock.nowMs() - startMs, p.frontier.stats(), null)));
      });
      const d = p.durability;
      if (d !== null) {
        void this.every(d.intervalMs, startMs, background.signal, () =>
          d.checkpointer.checkpoint().catch((err: unknown) => {
            failure ??= err;
            stop.abort(err);
          }),
        );
      }
      // Revisits fall due while the slots crawl; a configured re-crawl duration holds the run open.
      p.revisits?.run(background.signal).catch((err: unknown) => {
        failure ??= err;
        stop.abort(err);
      });
      const collab = p.collab;
      if (collab !== null) {
        // Other nodes may send URLs at any time: the run ends when the crawl as a whole is done (finish()).
        this.releaseCollab = p.loop.hold();
        void this.every(collab.batchDelayMs, startMs, background.signal, () => collab.router.flush());
        void this.every(collab.linkSummaryIntervalMs, startMs, background.signal, () => collab.router.sendLinkSummaries());
      }
      // The seeds file is queued while the slots already crawl (and progress and checkpoints run).
      const release = p.loop.hold();
      this.isSeeding = true;
      const seeding = (stop.signal.aborted ? Promise.resolve() : this.queueSeeds(stop.signal))
        .finally(() => {
          this.isSeeding = false;
          release();
        })
        .catch((err: unknown) => {
          failure ??= err;
          stop.abort(err);
        });
      reason = await p.loop.run(p.config.limits.concurrency, stop.signal);
      await seeding;
      // Read before the frontier closes; the closing is not crawling time.
      left = p.frontier.stats();
      endMs = p.clock.nowMs();
    } catch (err) {
      failure ??= err;
    } finally {
      this.isCrawling = false;
      signal.removeEventListener('abort', onAbort);
      background.abort();
      const closeFailure = await this.close();
      failure ??= closeFailure;
      p.lock.release();
    }
    if (failure !== null || left === null) {
      failure ??= new Error('the crawl ended without a result');
      p.log.error('crawl-failed', { message: failure instanceof Error ? failure.message : String(failure) });
      await p.onClosed().catch(() => {
        // The run's own failure is the one to report.
      });
      throw failure;
    }
    const elapsedMs = endMs - startMs;
    p.events.progress(this.withLiveFigures(p.stats.progress(p.config.nodeId, elapsedMs, left, reason)));
    const summary = this.summary(reason, elapsedMs, left);
    p.log.info('crawl-finished', {
      stopReason: reason,
      pages: summary.pages,
      urls: summary.urls,
      elapsedMs: Math.round(elapsedMs),
      frontierQueued: summary.frontierLeft.queued,
    });
    await p.onClosed();
    return summary;
  }

  /**
   * Whether the node has nothing to do until another node sends it something: its frontier holds
   * nothing, no fetch, admission or delivery is under way, and no URL waits in a batch to be sent.
   */
  get isIdle(): boolean {
    const p = this.parts;
    if (!this.isCrawling || this.isSeeding) return false;
    const f = p.frontier.stats();
    return (
      f.queued === 0 &&
      f.inFlight === 0 &&
      p.loop.activeSlots === 0 &&
      p.admission.isIdle &&
      (p.collab === null || (p.collab.inbox.isIdle && p.collab.router.batched === 0))
    );
  }

  /** Pages fetched so far (URLs that got a response). */
  get pagesFetched(): number {
    return this.parts.stats.pages;
  }

  /** Why the node's run stopped, once it has (null while it runs). */
  get stopReason(): StopReason | null {
    return this.parts.loop.stopReason;
  }

  /**
   * Releases what a node that will never run holds (its fetcher, analyzer, resolver, log and the
   * directory's lock): for a crawl that fails while building its other nodes.
   */
  async discard(): Promise<void> {
    if (this.hasRun) return;
    this.hasRun = true;
    const p = this.parts;
    p.waker.close();
    await Promise.allSettled([p.fetcher.close(), p.analyzer.close(), p.resolver.close()]);
    p.lock.release();
    await p.onClosed().catch(() => {});
  }

  /** Ends a collaborative node's run once its frontier is empty (the crawl as a whole is done). */
  finish(): void {
    this.releaseCollab?.();
  }

  /** Stops the run for `reason` (another node reached a limit): no new fetches. */
  stop(reason: StopReason): void {
    this.parts.loop.stop(reason);
    this.releaseCollab?.();
  }

  /**
   * Queues the seeds: the listed ones, then the seeds file in batches (each batch one URL-seen
   * test), yielding to the event loop between batches. Seeds already seen (a resumed crawl, a repeat)
   * are dropped there.
   */
  private async queueSeeds(signal: AbortSignal): Promise<void> {
    const p = this.parts;
    let index = 0;
    const router = p.collab?.router ?? null;
    const admit = async (seeds: readonly Seed[]): Promise<void> => {
      let candidates = seeds.map((s) => ({
        url: s.url,
        hostname: s.hostname,
        depth: 0,
        fromUrl: null,
        ...(s.isSitemap === true ? { isSitemap: true } : {}),
      }));
      if (router !== null) {
        // Every node reads the same seeds and keeps the ones placed on it.
        if (router.needsIp) await p.admission.resolveHosts(candidates);
        candidates = candidates.filter((c) => router.keepsSeed(c, index++, p.admission.ipOf));
      }
      p.stats.links.found += candidates.length;
      await p.admission.admit(candidates, { isPlaced: true });
    };
    await admit(p.seeds.listed);
    if (p.seeds.file === null) return;
    for await (const batch of readSeedsFile(p.seeds.file.path, SEED_BATCH, p.config.normalize)) {
      if (signal.aborted || p.loop.stopReason !== null) return; // stopped (a limit, Ctrl-C): the rest is not needed
      await admit(batch);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private async open(): Promise<void> {
    const p = this.parts;
    await p.seen.start();
    // Read before the frontier opens: it completes the URLs the crawl log says were done.
    const from = p.budget.crawlLogFrom;
    const tail = p.durability === null || p.recovery === null || from === null ? null : await readRecoveredTail({ ...p.recovery, from });
    await p.durability?.open(tail === null ? {} : { isCompleted: tail.isCompleted });
    // The link graph first: the page metadata names its URL ids.
    await p.sinks.linkGraph?.start();
    await p.sinks.crawlLog?.start();
    await p.sinks.pageMetadata?.start();
    if (p.warc !== null) {
      const r = await p.warc.start();
      if (r.lastFile !== null) {
        p.log.info('warc-resumed', {
          lastFile: r.lastFile,
          keptBytes: r.keptBytes,
          droppedBytes: r.droppedBytes,
          droppedIndexLines: r.droppedIndexLines,
          reindexed: r.reindexed,
        });
      }
    }
    if (p.collab !== null) await p.collab.exchange.start(p.collab.partitions, p.collab.inbox.deliver);
    if (tail !== null) await this.applyRecovered(tail);
    const f = p.frontier.stats();
    p.events.started?.({
      node: p.config.nodeId,
      outDir: p.layout.root,
      concurrency: p.config.limits.concurrency,
      seeds: p.seeds.count,
      seenBefore: p.seen.size,
      frontierQueued: f.queued,
    });
    p.log.info('crawl-started', {
      outDir: p.layout.root,
      seeds: p.seeds.count,
      seenBefore: p.seen.size,
      frontierQueued: f.queued,
      concurrency: p.config.limits.concurrency,
      order: specLabel(p.policy.spec),
      // The node flags of this process: the shoal command's memory settings are among them (src/node/process-settings.ts).
      nodeFlags: process.execArgv,
    });
  }

  /**
   * Applies what the crawl log said was done after the last checkpoint (tail-recovery.ts): the URLs
   * are seen again, counted in the budget, and the links of the pages (and redirect targets) go to
   * admission again. Everything it admits is made durable by the next checkpoint.
   */
  private async applyRecovered(tail: RecoveredTail): Promise<void> {
    const p = this.parts;
    const done = tail.done;
    const refetched = Object.values(tail.refetched).reduce((a, b) => a + b, 0);
    if (done.length === 0 && refetched === 0) return;
    await p.admission.markSeen(done.map((e) => e.url));
    p.budget.recover(done.filter((e) => e.node === p.config.nodeId).map(budgetRecordOf));
    const followed = tail.followed;
    for (const page of followed) await p.processor.followRecovered(page, page.analysis);
    const redirects = tail.redirects;
    p.stats.links.found += redirects.length;
    if (redirects.length > 0) await p.admission.admit(redirects);
    p.stats.recovered = { urls: done.length, followedPages: followed.length + redirects.length, refetched };
    p.log.info('crash-recovered', {
      from: p.budget.crawlLogFrom,
      urls: done.length,
      followedPages: followed.length,
      redirects: redirects.length,
      ...Object.fromEntries(Object.entries(tail.refetched).map(([why, n]) => [`refetched-${why}`, n])),
    });
  }

  /** Closes everything, in order; returns the first failure (or null), having tried every step. */
  private async close(): Promise<unknown> {
    const p = this.parts;
    let first: unknown = null;
    const step = async (what: string, fn: () => Promise<unknown> | void): Promise<void> => {
      try {
        await fn();
      } catch (err) {
        first ??= err;
        p.log.error('close-failed', { what, message: err instanceof Error ? err.message : String(err) });
      }
    };
    p.waker.close();
    await step('fetcher', () => p.fetcher.close());
    // The slots have stopped: a last checkpoint makes everything so far durable together.
    await step('checkpoint', () => p.durability?.checkpointer.final());
    // No delivery after this: the frontier closes below. Deliveries not acknowledged come again next run.
    await step('exchange', async () => {
      const collab = p.collab;
      if (collab === null) return;
      await collab.beforeClose?.(p.loop.stopReason);
      // Admissions still under way (a memory frontier has no last checkpoint to wait for them) may route URLs.
      await p.admission.settle();
      collab.router.flush();
      await collab.exchange.close();
      await collab.inbox.drain();
      addExchangeTotals(p.layout.root, collab.exchange.stats());
    });
    await step('warc', () => p.warc?.close());
    // After the WARC store: records still being compressed by the workers finish first.
    await step('analyzer', () => p.analyzer.close());
    // The order of the store README: WARC, then the logs whose lines point into it, the link graph last
    // (the page metadata's lines depend on its URL dictionary, which must still be open to be fsynced).
    await step('crawl-log', () => p.sinks.crawlLog?.close());
    await step('page-metadata', () => p.sinks.pageMetadata?.close());
    await step('link-graph', () => p.sinks.linkGraph?.close());
    await step('frontier', () => p.durability?.close());
    await step('seen', () => p.seen.close());
    await step('resolver', () => p.resolver.close());
    return first;
  }

  /** Calls `fn` every `intervalMs` on the clock until `signal` aborts (never when the interval is 0). */
  private async every(intervalMs: number, startMs: number, signal: AbortSignal, fn: () => unknown): Promise<void> {
    if (intervalMs <= 0) return;
    const clock = this.parts.clock;
    let next = startMs + intervalMs;
    while (!signal.aborted) {
      await clock.sleepUntil(next, signal);
      if (signal.aborted) return;
      await fn();
      next = Math.max(next + intervalMs, clock.nowMs());
    }
  }

  private summary(reason: StopReason, elapsedMs: number, f: FrontierStats): CrawlSummary {
    const { stats, config, layout } = this.parts;
    const seconds = elapsedMs / 1000;
    return {
      node: config.nodeId,
      outDir: layout.root,
      order: this.parts.policy.spec,
      stopReason: reason,
      elapsedMs,
      urls: stats.urls,
      pages: stats.pages,
      pagesPerSecond: seconds > 0 ? stats.pages / seconds : 0,
      bytes: stats.bytes,
      bytesPerSecond: seconds > 0 ? stats.bytes / seconds : 0,
      outcomes: Object.fromEntries(stats.outcomes),
      requests: stats.requests,
      robotsRequests: stats.robotsRequests,
      retries: stats.retries,
      duplicates: stats.duplicates,
      revisits: stats.revisits,
      nearDuplicates: stats.nearDuplicates,
      ...(this.parts.revisits == null ? {} : { recrawl: { ...this.parts.revisits.counts } }),
      analysisFailures: stats.analysisFailures,
      links: stats.linkCounts(),
      sitemaps: { ...stats.sitemaps },
      hosts: stats.hosts,
      frontierLeft: { queued: f.queued, inFlight: f.inFlight, parked: f.parked ?? 0 },
      seenUrls: this.parts.seen.size,
      warcFiles: [...this.parts.warcFiles].sort(),
      ...(stats.recovered === null ? {} : { recovered: stats.recovered }),
      cutSpaces: this.parts.numbered?.cutSpaces() ?? [],
      unreachableHosts: this.parts.reachability.unreachable(),
      ...(this.parts.collab === null ? {} : { exchange: this.exchangeSummary(this.parts.collab) }),
    };
  }

  /**
   * A progress event with the hosts that do not answer, those that wait on a robots.txt answered with
   * an error, and, in a collaborative crawl, the node's traffic so far.
   */
  private withLiveFigures(event: CrawlProgress): CrawlProgress {
    const { failing, givenUp } = this.parts.reachability.counts();
    const progress =
      failing + givenUp === 0
        ? event
        : {
            ...event,
            unreachable: { failing, givenUp, hosts: this.parts.reachability.unreachable(3).map((h) => `${h.host}: ${describeFailure(h)}`) },
          };
    const now = this.parts.clock.nowMs();
    const waiting = this.parts.robots.waiting(now);
    const withRobots =
      waiting === null
        ? progress
        : {
            ...progress,
            robotsWaiting: { hosts: waiting.hosts, nextTryInMs: Math.max(0, waiting.nextTryAtMs - now), first: waiting.first },
          };
    const budget = this.budgetUse(event);
    const withBudget = budget === null ? withRobots : { ...withRobots, budget };
    const c = this.parts.collab;
    if (c === null) return withBudget;
    const { sent, received, unconfirmed } = c.exchange.stats();
    return {
      ...withBudget,
      exchange: {
        urlsSent: sent.urls,
        urlsReceived: received.urls,
        pagesSent: sent.pages,
        pagesReceived: received.pages,
        bytesSent: sent.bytes,
        bytesReceived: received.bytes,
        unconfirmed,
        batchedUrls: c.router.batched,
        partitions: [...c.partitions],
      },
    };
  }

  /** How much of `limits.maxPages` and `limits.maxBytes` is spent; null when neither is set. */
  private budgetUse(event: CrawlProgress): CrawlProgress['budget'] | null {
    const { config, loop, budget } = this.parts;
    const { maxPages, maxBytes } = config.limits;
    if (maxPages === null && maxBytes === null) return null;
    return {
      pages: maxPages === null ? null : { used: loop.limitCount, limit: maxPages, perSecond: event.pagesPerSecond },
      bytes: maxBytes === null ? null : { used: budget.counters?.bytes ?? 0, limit: maxBytes, perSecond: event.bytesPerSecond },
    };
  }

  private exchangeSummary(c: NodeCollaboration): NonNullable<CrawlSummary['exchange']> {
    return { partitions: [...c.partitions], endpoint: c.exchange.stats(), router: { ...c.router.counts }, inbox: { ...c.inbox.counts } };
  }
}
