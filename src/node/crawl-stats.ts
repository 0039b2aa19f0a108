/**
 * The node's counters: what progress events and the final summary report. Outcome kinds are the
 * labels (CONVENTIONS §6). Plain numbers, updated synchronously by the stages.
 */
import type { OrderingPolicySpec } from '../order/policy.js';
import type { CutSpace } from '../url/numbered-spaces.js';
import type { UnreachableHost } from './stages/host-reachability.js';
import type { ExchangeStats } from '../exchange/exchange.js';
import type { FrontierStats } from '../frontier/frontier.js';
import type { CrawlProgress, StopReason } from '../obs/events.js';
import type { RobotsPolicyKind } from '../robots/fetch-policy.js';
import type { CrawlOutcomeKind } from '../store/records.js';

/** What happened to discovered links on their way to the frontier. */
export interface LinkCounts {
  /** Links and redirect targets read from pages, plus seeds. */
  readonly found: number;
  /** Not an http(s) URL, or not a URL at all. */
  readonly invalid: number;
  /** Not followed: rel=nofollow, or on a meta-robots-nofollow page, or on an exact duplicate. */
  readonly notFollowed: number;
  /** Refused by the URL filter, by reason. */
  readonly filtered: Readonly<Record<string, number>>;
  /** Already seen (queued or fetched before). */
  readonly seenBefore: number;
  /** Disallowed by a robots.txt already known when they were found (never queued). */
  readonly robotsDenied: number;
  /** Added to the frontier. */
  readonly queued: number;
  /** In a collaborative crawl: placed on another node and handed to the exchange for it (or not sent again: sent lately). */
  readonly routed: number;
  /**
   * In a collaborative crawl: URLs other nodes sent here. Every link is counted once:
   * found + received = invalid + notFollowed + Σ filtered + routed + seenBefore + robotsDenied + queued.
   */
  readonly received: number;
}

/** The result of `Crawl.run()`. */
export interface CrawlSummary {
  readonly node: string;
  readonly outDir: string;
  /** The ordering policy that chose which URL went first (id and parameters). */
  readonly order: OrderingPolicySpec;
  readonly stopReason: StopReason;
  readonly elapsedMs: number;
  /** URLs whose crawl ended, whatever the outcome. */
  readonly urls: number;
  /** URLs that got an HTTP response (any status). */
  readonly pages: number;
  readonly pagesPerSecond: number;
  /** Body bytes received (compressed), robots.txt included. */
  readonly bytes: number;
  readonly bytesPerSecond: number;
  /** URLs by how their crawl ended. */
  readonly outcomes: Readonly<Partial<Record<CrawlOutcomeKind, number>>>;
  /** HTTP requests made: pages, retries and robots.txt. */
  readonly requests: number;
  /** Of which robots.txt (redirect hops included). */
  readonly robotsRequests: number;
  /** Attempts that failed in a way that may pass and were queued again. */
  readonly retries: number;
  /** Pages whose content repeated an earlier page exactly (links not followed). */
  readonly duplicates: number;
  /** Of which written as WARC revisit records (identical payload as received). */
  readonly revisits: number;
  /** HTML pages marked as near-duplicates of an earlier page (`dedup.near`), whatever the action. */
  readonly nearDuplicates: number;
  /** What the re-crawl did in this run; absent when `recrawl.enabled` is off. */
  readonly recrawl?: RecrawlCounts;
  /** HTML pages whose analysis failed (kept in the WARC files without parse results or links; see logs/node.jsonl). */
  readonly analysisFailures: number;
  readonly links: LinkCounts;
  /** Sitemap documents read (ok or not), the page URLs they listed, the child sitemaps they named, and the documents that were no sitemap. */
  readonly sitemaps: { readonly documents: number; readonly urls: number; readonly children: number; readonly problems: number };
  /** Hosts contacted. */
  readonly hosts: number;
  /** What the frontier still held when the crawl stopped; `parked`: of `queued`, the URLs on disk only (0 unless the frontier parks). */
  readonly frontierLeft: { readonly queued: number; readonly inFlight: number; readonly parked: number };
  /** URLs in the URL-seen set (this run and earlier runs on the same directory). */
  readonly seenUrls: number;
  /** WARC files written to by this run. */
  readonly warcFiles: readonly string[];
  /**
   * What this run recovered of the work an earlier run did after its last checkpoint before it was
   * killed (tail-recovery.ts): URLs found done in the crawl log, pages whose links were queued again,
   * and URLs left to be fetched again; absent when there was nothing to recover.
   */
  readonly recovered?: RecoveredCounts;
  /** Hosts given up for not answering (refused, unreachable, connect timeouts), and those still failing when the crawl stopped (at most 10). */
  readonly unreachableHosts: readonly UnreachableHost[];
  /** Endless numbered spaces whose URLs reached their bound (`filter.traps.maxNumberedUrls`), most cut first (at most 10). */
  readonly cutSpaces: readonly CutSpace[];
  /** In a collaborative crawl: what this node sent and received (absent for a node on its own). */
  readonly exchange?: NodeExchangeSummary;
  /** The summary of a collaborative crawl as a whole: its strategy and every node's own summary. */
  readonly cluster?: {
    readonly partitioner: { readonly id: string; readonly params: Readonly<Record<string, unknown>> };
    readonly nodes: readonly CrawlSummary[];
  };
}

/** A run's revisits (`recrawl`, docs/recrawl.md). */
export interface RecrawlCounts {
  /** Pages scheduled for a first revisit. */
  readonly scheduled: number;
  /** Revisits handed to the frontier. */
  readonly queued: number;
  /** Revisits answered 304 Not Modified. */
  readonly notModified: number;
  /** Revisits answered 2xx with the content seen last time. */
  readonly unchanged: number;
  /** Revisits answered 2xx with new content: changes caught. */
  readonly changed: number;
}

/** What a run recovered from the crawl log of a run killed between two checkpoints. */
export interface RecoveredCounts {
  readonly urls: number;
  readonly followedPages: number;
  readonly refetched: number;
}

/** A collaborative node's traffic: the exchange endpoint's counters, the router's and the inbox's. */
export interface NodeExchangeSummary {
  /** The partitions the node owns. */
  readonly partitions: readonly number[];
  readonly endpoint: ExchangeStats;
  /** URLs placed on this node and kept, handed to the exchange, or not sent again thanks to the sent cache. */
  readonly router: { readonly kept: number; readonly sent: number; readonly cached: number };
  /** What the inbox processed. */
  readonly inbox: {
    readonly urlBatches: number;
    readonly urls: number;
    readonly pages: number;
    readonly linkSummaries: number;
    /** In-links named by the link summaries the ordering policy took (Σ of their counts; 0 when it takes none). */
    readonly remoteLinks: number;
    /** Queued URLs whose priority the link summaries changed (in-link counts, shares, out-degrees). */
    readonly reprioritized: number;
    readonly simhashBatches: number;
    /** Fingerprints of other nodes' pages received, and of them those new to the near-duplicate index. */
    readonly simhashes: number;
    readonly simhashesTaken: number;
    readonly controls: number;
    readonly failed: number;
  };
}

/** Mutable counters of one run. */
export class CrawlStats {
  urls = 0;
  pages = 0;
  bytes = 0;
  /** Boundary pages this node fetched and sent to their owners (collaborative crawls). */
  forwardedPages = 0;
  /** Pages other nodes fetched and sent here (not counted in `pages`). */
  receivedPages = 0;
  /** Boundary pages kept here because they were too big for the transport. */
  oversizedBoundaryPages = 0;
  /** Pages kept here that belong to other nodes, whose links were placed where the page belongs (`cluster.forward: urls` of a topic or geo crawl). */
  boundaryLinkPages = 0;
  requests = 0;
  robotsRequests = 0;
  /** Body bytes of robots.txt responses (counted in `bytes` too). */
  robotsBytes = 0;
  /** robots.txt fetches by what they led to. */
  readonly robotsResults = new Map<RobotsPolicyKind, number>();
  retries = 0;
  duplicates = 0;
  revisits = 0;
  nearDuplicates = 0;
  analysisFailures = 0;
  /** Set when the run began by recovering an earlier run's tail. */
  recovered: RecoveredCounts | null = null;
  readonly sitemaps = { documents: 0, urls: 0, children: 0, problems: 0 };
  readonly outcomes = new Map<CrawlOutcomeKind, number>();
  readonly links = { found: 0, invalid: 0, notFollowed: 0, seenBefore: 0, robotsDenied: 0, queued: 0, routed: 0, received: 0 };
  readonly filtered = new Map<string, number>();
  private readonly hostSet = new Set<string>();
  private lastPages = 0;
  private lastMs = 0;

  /** A request went out to `host`. */
  request(host: string, isRobots: boolean): void {
    this.requests++;
    if (isRobots) this.robotsRequests++;
    this.hostSet.add(host);
  }

  /** A URL's crawl ended. */
  outcome(kind: CrawlOutcomeKind, hasResponse: boolean): void {
    this.urls++;
    if (hasResponse) this.pages++;
    this.outcomes.set(kind, (this.outcomes.get(kind) ?? 0) + 1);
  }

  /** A robots.txt fetch ended (after its redirects) as `kind`. */
  robotsResult(kind: RobotsPolicyKind): void {
    this.robotsResults.set(kind, (this.robotsResults.get(kind) ?? 0) + 1);
  }

  filteredBy(reason: string): void {
    this.filtered.set(reason, (this.filtered.get(reason) ?? 0) + 1);
  }

  get hosts(): number {
    return this.hostSet.size;
  }

  /** Outcomes other than `ok`. */
  errors(): Partial<Record<CrawlOutcomeKind, number>> {
    const out: Partial<Record<CrawlOutcomeKind, number>> = {};
    for (const [k, n] of this.outcomes) if (k !== 'ok') out[k] = n;
    return out;
  }

  /** A progress event; `recentPagesPerSecond` covers the time since the previous call. */
  progress(node: string, elapsedMs: number, frontier: FrontierStats, stopReason: StopReason | null): CrawlProgress {
    const seconds = elapsedMs / 1000;
    const span = (elapsedMs - this.lastMs) / 1000;
    const recent = span > 0 ? (this.pages - this.lastPages) / span : 0;
    this.lastPages = this.pages;
    this.lastMs = elapsedMs;
    return {
      node,
      elapsedMs,
      urls: this.urls,
      pages: this.pages,
      pagesPerSecond: seconds > 0 ? this.pages / seconds : 0,
      recentPagesPerSecond: recent,
      bytes: this.bytes,
      bytesPerSecond: seconds > 0 ? this.bytes / seconds : 0,
      frontier: {
        queued: frontier.queued,
        inFlight: frontier.inFlight,
        activeHosts: frontier.activeHosts,
        parked: frontier.parked ?? 0,
        readyHosts: frontier.readyHosts,
        waitingHosts: frontier.waitingHosts,
        backoffs: frontier.backoffs,
        heldBack: frontier.heldBack ?? 0,
      },
      hosts: this.hostSet.size,
      errors: this.errors(),
      stopReason,
      robots: { requests: this.robotsRequests, bytes: this.robotsBytes, results: Object.fromEntries(this.robotsResults) },
    };
  }

  linkCounts(): LinkCounts {
    return { ...this.links, filtered: Object.fromEntries(this.filtered) };
  }
}
