/**
 * The node's `node:diagnostics_channel` channels. The crawl publishes; the CLI's progress line, the
 * dashboard, metrics and tests subscribe. The node does not know who listens (CONVENTIONS §7), and a
 * channel without subscribers costs one boolean check.
 */
import { channel, type Channel } from 'node:diagnostics_channel';
import type { RobotsPolicyKind } from '../robots/fetch-policy.js';
import type { CrawlOutcomeKind, CrawlLogRecord } from '../store/records.js';

/** Channel names. */
export const CrawlChannel = {
  /** {@link CrawlProgress}, every `progressIntervalMs` and once at the end. */
  progress: 'shoal:crawl:progress',
  /** {@link CrawlLogRecord}, once per URL whose crawl ended (the crawl log's lines). */
  fetch: 'shoal:crawl:fetch',
  /**
   * {@link CrawlStarted}, once per run: the directory is locked, the configuration and seeds are
   * checked, the stores are open (a resumed crawl has recovered), and the seeds are about to be queued.
   */
  started: 'shoal:crawl:started',
} as const;
export type CrawlChannel = (typeof CrawlChannel)[keyof typeof CrawlChannel];

/** Why a crawl stopped. */
export const StopReason = {
  /** Nothing queued and nothing in flight. */
  exhausted: 'exhausted',
  /** `limits.maxPages` page fetches were started. */
  maxPages: 'max-pages',
  /** `limits.maxBytes` body bytes were downloaded. */
  maxBytes: 'max-bytes',
  /** The caller's AbortSignal (Ctrl-C). */
  interrupted: 'interrupted',
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/** Frontier figures in a progress event. */
export interface FrontierProgress {
  /** URLs waiting. */
  readonly queued: number;
  /** Fetches in flight. */
  readonly inFlight: number;
  /** Hosts holding a back queue. */
  readonly activeHosts: number;
  /** Of `queued`, the URLs parked on disk (the persistent frontier's parking); 0 when none are. */
  readonly parked: number;
  /** Of `activeHosts`, those whose next-contact time has come and that have room for a fetch. */
  readonly readyHosts: number;
  /** Of `activeHosts`, those waiting for their next-contact time (the politeness gap, Crawl-delay, Retry-After or a back-off). */
  readonly waitingHosts: number;
  /** Times a host was backed off (Retry-After, or exponential back-off of a struggling server) since the run began. */
  readonly backoffs: number;
  /** Fetch slots given to another host because the best URL's host was over its share (`politeness.maxHostShare`) since the run began; absent or 0 with the cap off. */
  readonly heldBack?: number;
}

/** robots.txt in a progress event: requests, bytes and how the fetches ended, since the run began. */
export interface RobotsProgress {
  /** robots.txt requests (redirect hops included). */
  readonly requests: number;
  /** Body bytes received for them (counted in the event's `bytes` too). */
  readonly bytes: number;
  /** robots.txt fetches by what they led to (RFC 9309: a file read, a 4xx, a 5xx, unreachable, ...). */
  readonly results: Readonly<Partial<Record<RobotsPolicyKind, number>>>;
}

/** How much of one limit of the run is spent, and how fast it is being spent. */
export interface BudgetUse {
  /** What the limit counts so far, earlier runs of the crawl included. */
  readonly used: number;
  readonly limit: number;
  /** How fast `used` grows: the run's average rate, per second. */
  readonly perSecond: number;
}

/** One progress event. */
export interface CrawlProgress {
  readonly node: string;
  /** Since `run()` started, ms. */
  readonly elapsedMs: number;
  /** URLs whose crawl ended (any outcome, robots decisions included). */
  readonly urls: number;
  /** Pages fetched: URLs that got an HTTP response. */
  readonly pages: number;
  /** Pages per second since the start. */
  readonly pagesPerSecond: number;
  /** Pages per second over the last interval. */
  readonly recentPagesPerSecond: number;
  /** Body bytes received (compressed), robots.txt included. */
  readonly bytes: number;
  readonly bytesPerSecond: number;
  readonly frontier: FrontierProgress;
  /** Hosts contacted at least once. */
  readonly hosts: number;
  /** URLs that ended in anything but `ok`, by outcome kind. */
  readonly errors: Readonly<Partial<Record<CrawlOutcomeKind, number>>>;
  /** Set on the last event of a run. */
  readonly stopReason: StopReason | null;
  readonly robots: RobotsProgress;
  /**
   * The limits that end the run, when any is set: `pages` the page fetches started against
   * `limits.maxPages` (in an embedded collaborative crawl, every node's), `bytes` the body bytes
   * against `limits.maxBytes`; what an ETA is computed from. Absent without either limit.
   */
  readonly budget?: { readonly pages: BudgetUse | null; readonly bytes: BudgetUse | null };
  /** In a collaborative crawl: the node's traffic so far (absent for a node on its own). */
  readonly exchange?: ExchangeProgress;
  /**
   * Hosts whose requests fail before any answer (host-reachability.ts): how many are failing and
   * given up, and the first few as `host: what failed`; absent when none is.
   */
  readonly unreachable?: { readonly failing: number; readonly givenUp: number; readonly hosts: readonly string[] };
  /**
   * Hosts whose URLs wait to fetch again a robots.txt their server answered with an error (5xx,
   * 429; RFC 9309 §2.3.1.4: complete disallow meanwhile): how many, the soonest next try in ms from
   * the event, and the first few as `origin: answer`; absent when none does.
   */
  readonly robotsWaiting?: { readonly hosts: number; readonly nextTryInMs: number; readonly first: readonly string[] };
  /**
   * On the crawl-wide events of an embedded collaborative crawl: the SPEC §5 metrics so far (overlap
   * (N − I)/N, diversity S/N, load balance max/mean pages, URLs exchanged per downloaded page).
   */
  readonly collab?: {
    readonly downloads: number;
    readonly uniquePages: number;
    readonly overlap: number;
    readonly diversity: number | null;
    readonly loadMaxOverMean: number | null;
    readonly urlsPerPage: number | null;
    /**
     * Topic locality of the discovery links so far: of the pages fetched with a category whose
     * discovering page had one too, the share with the same category; null before any such pair.
     */
    readonly topicLocality: number | null;
    /** In a geo crawl: pages holding a street address of a target city / pages analysed so far; null otherwise. */
    readonly geoCoverage: number | null;
    /** In a geo crawl: the mean over geo nodes of the share of their geo pages that hold an address of their own cities. */
    readonly geoFocus: number | null;
    /**
     * When the crawl names a truth whose pages carry communities (`cluster.truthDir`, the test web's
     * community model): the means over nodes of cohesion, precision and recall of the pages each has
     * fetched, exact as `shoal eval --truth` computes them; null otherwise.
     */
    readonly community: { readonly cohesion: number; readonly precision: number; readonly recall: number } | null;
  };
}

/** A run that has started: what it resumed from and how it crawls. */
export interface CrawlStarted {
  readonly node: string;
  /** The crawl directory. */
  readonly outDir: string;
  /** Fetch slots. */
  readonly concurrency: number;
  /** Seeds given (listed ones, and the seeds file's count once read). */
  readonly seeds: number;
  /** URLs an earlier run had already dealt with (0 for a new crawl). */
  readonly seenBefore: number;
  /** URLs waiting in the frontier when the run began (a resumed crawl's backlog). */
  readonly frontierQueued: number;
}

/** A collaborative node's traffic so far, live: the communication overhead as it grows. */
export interface ExchangeProgress {
  /** URLs sent to other nodes, and received from them. */
  readonly urlsSent: number;
  readonly urlsReceived: number;
  /** Boundary pages forwarded to other nodes, and received from them. */
  readonly pagesSent: number;
  readonly pagesReceived: number;
  /** Encoded bytes of every message sent, and received. */
  readonly bytesSent: number;
  readonly bytesReceived: number;
  /** Messages sent but not yet confirmed by the transport: the outbox's backlog. */
  readonly unconfirmed: number;
  /** URLs waiting in partly filled batches to be sent. */
  readonly batchedUrls: number;
  /** The partitions the node owns. */
  readonly partitions: readonly number[];
}

/** The channels, opened once. */
export const channels: { readonly progress: Channel; readonly fetch: Channel; readonly started: Channel } = {
  progress: channel(CrawlChannel.progress),
  fetch: channel(CrawlChannel.fetch),
  started: channel(CrawlChannel.started),
};

/** Publishes on the crawl's channels. */
export interface CrawlEvents {
  progress(event: CrawlProgress): void;
  fetch(record: CrawlLogRecord): void;
  /** Optional: a publisher without it is not told when runs start. */
  started?(event: CrawlStarted): void;
}

/** The diagnostics-channel publisher (the default). */
export const diagnosticsEvents: CrawlEvents = Object.freeze({
  progress(event: CrawlProgress): void {
    if (channels.progress.hasSubscribers) channels.progress.publish(event);
  },
  fetch(record: CrawlLogRecord): void {
    if (channels.fetch.hasSubscribers) channels.fetch.publish(record);
  },
  started(event: CrawlStarted): void {
    if (channels.started.hasSubscribers) channels.started.publish(event);
  },
});
