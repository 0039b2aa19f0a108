/**
 * What the node hands to the stores it does not own, which keep what the crawl learned (crawl log,
 * link graph, page metadata): the records, as immutable values typed field by field (CONVENTIONS §5),
 * and the small sink shapes the page processor writes to. `store-sinks.ts` adapts the stores of
 * `src/store/` to these shapes, so the fetch loop and the processor know only the shapes. (The URL
 * filter is the `UrlFilter` extension point of `src/url/filter/`, used as it is.)
 */
import type { FetchOutcomeKind } from '../fetch/fetcher.js';
import type { GraphLink } from '../parse/page-analysis.js';
import type { TopicLabel } from '../classify/topic-labeler.js';

/**
 * How a URL's crawl ended, the label of the outcome counters: a fetch outcome kind, or one of the
 * node's own decisions that made no request for the URL.
 */
export type CrawlOutcomeKind =
  | Exclude<FetchOutcomeKind, 'aborted'>
  /** robots.txt disallows the URL for our user agent. */
  | 'robots-denied'
  /** The host's robots.txt could not be fetched after `robots.maxAttempts` tries (RFC 9309: disallow). */
  | 'robots-unavailable'
  /** A budget (`scope.maxPagesPerHost`, `limits.maxBytes`) was spent before the URL's turn: nothing was sent. */
  | 'over-budget';

/**
 * The outcomes of a URL that got an HTTP response: what counts as a page fetched (`pages` of the
 * progress events and the summary). Other outcomes may carry a status (a timeout after the head), but
 * the response did not come whole.
 */
export const PAGE_OUTCOMES: ReadonlySet<CrawlOutcomeKind> = new Set<CrawlOutcomeKind>([
  'ok',
  'redirect',
  'http-error',
  'not-modified',
  'unsupported-encoding',
  'too-large',
]);

/** The final result of one URL: one crawl-log line (SPEC §2 item 11). */
export interface CrawlLogRecord {
  /** Wall-clock time the (last) request started, ms since the epoch. */
  readonly timeMs: number;
  readonly url: string;
  /** Politeness key: host, with the port when not the default. */
  readonly host: string;
  /** Links followed from a seed (seeds are 0). */
  readonly depth: number;
  /** The page the URL was discovered on (or the redirect that led to it); null for seeds. */
  readonly fromUrl: string | null;
  readonly kind: CrawlOutcomeKind;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** Media type of the response, lowercase, without parameters; null when none. */
  readonly contentType: string | null;
  /** Body bytes as received (compressed). */
  readonly bytes: number;
  /** Duration of the last attempt, ms (0 when no request was made). */
  readonly durationMs: number;
  /** Address of the server, when known. */
  readonly ip: string | null;
  /** Requests made for this URL (retries included; 0 when no request was made). */
  readonly attempts: number;
  /** Whether the content repeated a page fetched earlier in this crawl (exact digest): its links were not followed. */
  readonly isDuplicate: boolean;
  /** Redirect target, for 3xx. */
  readonly redirectTo: string | null;
  /** The node that fetched it. */
  readonly node: string;
  /** Where the response (or revisit) record went; null when nothing was archived. */
  readonly warc: { readonly file: string; readonly offset: number } | null;
  /** `WARC-Payload-Digest` of the body as received; null without a body. */
  readonly digest: string | null;
  /** SimHash of the visible text, 16 hex digits; null when not parsed. */
  readonly simhash: string | null;
  /** Detected language; null when not parsed or unknown. */
  readonly lang: string | null;
  /** Why it failed: resolver or socket code, timeout phase, size limit; null for a plain success. */
  readonly reason: string | null;
  /** The page's topic, when it was classified; absent or null otherwise. */
  readonly topic?: TopicLabel | null;
  /**
   * In a geo crawl: the target cities (gazetteer indices) whose street addresses the page holds, for
   * the live geo coverage and focus; absent or null outside a geo crawl or for a page not analysed.
   */
  readonly geoCities?: readonly number[] | null;
  /**
   * Set on the record a node writes for a page another node fetched and forwarded to it (`node` is
   * the node that fetched it, which wrote a record of its own): the page counts where it was fetched.
   */
  readonly isReceived?: boolean;
  /** The earlier page whose SimHash is within `dedup.near.maxDistance` bits of this one's; absent or null when none. */
  readonly nearDuplicateOf?: string | null;
  /** Hamming distance to `nearDuplicateOf`, bits; absent or null when none. */
  readonly nearDuplicateDistance?: number | null;
}

/** One link of a fetched page, as the parser found it and the link graph keeps it (defined in parse/). */
export type { GraphLink };

/** What the node learned about one fetched page (page metadata, SPEC §2 item 11). */
export interface PageRecord {
  readonly url: string;
  readonly timeMs: number;
  readonly status: number;
  readonly contentType: string | null;
  /** `WARC-Payload-Digest` of the body as received (`sha1:BASE32`). */
  readonly payloadDigest: string;
  /** SHA-1 of the decoded body (`sha1:BASE32`): the exact-duplicate key. */
  readonly contentDigest: string;
  /** The URL of the earlier page with the same content digest, or null. */
  readonly duplicateOf: string | null;
  /** Charset the body was decoded with, or null when it was not parsed as HTML. */
  readonly charset: string | null;
  /** ISO 639-1 code, '' when unknown; null when not parsed. */
  readonly language: string | null;
  readonly title: string | null;
  /** SHA-256 of the normalized visible text (`sha256:hex`), or null. */
  readonly textDigest: string | null;
  /** 64-bit SimHash of the visible text, 16 hex digits, or null. */
  readonly simhash: string | null;
  readonly isNoindex: boolean;
  readonly isNofollow: boolean;
  /** `<link rel=canonical>` resolved and normalized, or null. */
  readonly canonical: string | null;
  /** The page's topic, or null when it was not classified. */
  readonly topic: TopicLabel | null;
  /** In a geo crawl whose strategy reads pages: the page's city (`"Name, ST"`) as the strategy sees it; else absent or null. */
  readonly geo?: string | null;
  /** Links extracted (duplicates counted), distinct targets, rel=nofollow ones, to the page's own host. */
  readonly linkCounts: { readonly total: number; readonly unique: number; readonly nofollow: number; readonly sameHost: number };
  /** The earlier page this one is a near-duplicate of (SimHash); absent or null when none. */
  readonly nearDuplicateOf?: string | null;
  /** Hamming distance to `nearDuplicateOf`, bits; absent or null when none. */
  readonly nearDuplicateDistance?: number | null;
}

/** An append-only store of records of one kind. `start()` opens (and repairs); `close()` flushes and is idempotent. */
export interface RecordSink<T> {
  start(): Promise<void>;
  append(record: T): void;
  /** Makes what was appended so far durable. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * Resolves once every record appended so far has reached the kernel: it then survives the process
   * being killed (not a power loss). Absent: nothing to wait for.
   */
  written?(): Promise<void>;
  /** Bytes appended so far, the offset of the next record, for a sink that is a file; absent otherwise. */
  readonly size?: number;
}

/** The link graph receives a page's links in one piece. */
export interface LinkGraphSink {
  start(): Promise<void>;
  /** `fingerprints`, when the caller has them, holds link i's URL fingerprint at words 2i and 2i + 1. */
  append(fromUrl: string, links: readonly GraphLink[], fingerprints?: Uint32Array): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The node's optional stores; each may be absent (then that record is not kept). */
export interface CrawlSinks {
  readonly crawlLog?: RecordSink<CrawlLogRecord>;
  readonly linkGraph?: LinkGraphSink;
  readonly pageMetadata?: RecordSink<PageRecord>;
}
