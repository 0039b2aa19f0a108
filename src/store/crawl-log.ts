/**
 * The crawl log (SPEC §2 item 11): one JSON line per fetch, in the order fetches ended, in
 * `<crawl dir>/crawl-log.jsonl`. It is data, not diagnostics (CONVENTIONS §7): `eval`, `report` and
 * the user's `jq` read it, so every field is always present (null when it does not apply) and
 * documented here and in `src/store/README.md`.
 *
 * Heritrix's crawl.log is the model (one line per URI with status, size, duration, discovery path,
 * digest); shoal's is JSON so that fields are named, can be added, and hold any URL.
 *
 * Writes go through an {@link AppendFile}: buffered, `flush()` fsyncs, a torn last line is cut on
 * `start()`. When the entry points into a WARC file, append it after the WARC writer's `write` has
 * resolved, and flush the WARC writer before the log, so that after a crash every `warc` pointer
 * names a record that exists.
 */
import { ShoalError } from '../core/errors.js';
import type { FetchOutcomeKind } from '../fetch/fetcher.js';
import type { AppendRepairReport } from './append-file.js';
import {
  Checks,
  JsonLinesWriter,
  addedLater,
  nullable,
  object,
  oneOf,
  probabilityCheck,
  problemOf,
  readJsonLines,
  type FieldCheck,
  type JsonLinesFileOptions,
  type RecordShape,
} from './json-lines.js';
import { readLines } from './read-lines.js';

/** Default file name of the crawl log in the crawl directory. */
export const CRAWL_LOG_FILE = 'crawl-log.jsonl';

/**
 * Every `outcome` a line may have: the fetcher's outcome kinds (`src/fetch/fetcher.ts`), checked by
 * the compiler to be all of them, and the crawler's own decisions not to fetch (robots).
 */
export const CrawlOutcome = {
  ok: 'ok',
  notModified: 'not-modified',
  redirect: 'redirect',
  httpError: 'http-error',
  dnsError: 'dns-error',
  addressDenied: 'address-denied',
  connectError: 'connect-error',
  timeout: 'timeout',
  reset: 'reset',
  tooLarge: 'too-large',
  /** The body arrived slower than the fetcher's lowest transfer rate and was cut. */
  tooSlow: 'too-slow',
  unsupportedEncoding: 'unsupported-encoding',
  protocolError: 'protocol-error',
  aborted: 'aborted',
  /** robots.txt disallows the URL: nothing was sent. */
  robotsDenied: 'robots-denied',
  /** The host's robots.txt could not be fetched, which means disallow all (RFC 9309 §2.3.1.4): nothing was sent. */
  robotsUnavailable: 'robots-unavailable',
  /** A crawl budget (pages per host, bytes) was spent before the URL's turn: nothing was sent. */
  overBudget: 'over-budget',
} as const;
export type CrawlOutcome = (typeof CrawlOutcome)[keyof typeof CrawlOutcome];

/**
 * Identity on the fetcher's outcome kinds, typed so that a kind the log does not list fails to
 * compile here rather than failing the reader of a log later.
 */
const FROM_FETCH: { readonly [K in FetchOutcomeKind]: K extends CrawlOutcome ? K : never } = {
  ok: 'ok',
  'not-modified': 'not-modified',
  redirect: 'redirect',
  'http-error': 'http-error',
  'dns-error': 'dns-error',
  'address-denied': 'address-denied',
  'connect-error': 'connect-error',
  timeout: 'timeout',
  reset: 'reset',
  'too-large': 'too-large',
  'too-slow': 'too-slow',
  'unsupported-encoding': 'unsupported-encoding',
  'protocol-error': 'protocol-error',
  aborted: 'aborted',
};

/** The crawl-log outcome of a fetch outcome kind (the same label). */
export function crawlOutcomeOf(kind: FetchOutcomeKind): CrawlOutcome {
  return FROM_FETCH[kind];
}

/** Where the response record of a fetch went. */
export interface WarcPointer {
  /** WARC file name, relative to the WARC directory. */
  readonly file: string;
  /** Offset of the record's gzip member in that file, bytes. */
  readonly offset: number;
}

/** One line of the crawl log. Fields are written in this order. */
export interface CrawlLogEntry {
  /** When the fetch ended: ISO 8601 UTC with milliseconds (`Date.prototype.toISOString`). */
  readonly ts: string;
  /** The URL fetched (normalized, SPEC §2 item 2). */
  readonly url: string;
  /** HTTP status of the response; 0 when none arrived (DNS error, timeout before the head, robots-denied, ...). */
  readonly status: number;
  /** How the fetch ended: a {@link CrawlOutcome}. The label of the crawl's counters. */
  readonly outcome: CrawlOutcome;
  /** Body bytes as received (still content-encoded); 0 without a body. */
  readonly bytes: number;
  /** Media type from `Content-Type`, lowercase, without parameters; null when absent. */
  readonly contentType: string | null;
  /** From the start of the fetch to its outcome, ms. */
  readonly durationMs: number;
  /** Address connected to (or refused); null when none is known. */
  readonly ip: string | null;
  /** The URL of the page whose link (or redirect) led here; null for seeds. */
  readonly discoveredFrom: string | null;
  /** Links followed from a seed to reach this URL; 0 for seeds. */
  readonly depth: number;
  /** Id of the node that fetched, in a collaborative crawl; null otherwise. */
  readonly node: string | null;
  /** The partition the URL was assigned to (a number for hash partitions, a name for topic/geo ones); null when not partitioned. */
  readonly partition: string | number | null;
  /** Which request for this URL the line reports: 1 for the first, 2 for the first retry, ...; 0 when none was made (robots). */
  readonly attempt: number;
  /** Where the response (or revisit) record went; null when nothing was archived. */
  readonly warc: WarcPointer | null;
  /** WARC payload digest of the body (`sha1:` + 32 base32 characters); null without a body. */
  readonly digest: string | null;
  /** Whether the page repeats one already fetched, so its links were not followed: same content digest, or a near-duplicate whose action does not follow links. */
  readonly isDuplicate: boolean;
  /** 64-bit SimHash of the visible text, 16 lowercase hex digits (see `simhashHex`); null when not parsed. */
  readonly simhash: string | null;
  /** Language code of the page as detected; null when not parsed or unknown. */
  readonly lang: string | null;
  /** Why the fetch failed or the page was rejected (resolver code, timeout phase, filter reason, ...); null for a plain success. */
  readonly reason: string | null;
  /** The page's topic (SPEC §4.2); null when the page was not classified, or was unclassifiable with no default category. */
  readonly category: string | null;
  /** The classifier's probability for `category`; null when a rule (language, too few terms) decided or none ran. */
  readonly categoryProbability: number | null;
  /** Why the page has its category: `classifier`, `language` or `unclassifiable`; null when not classified. */
  readonly categoryReason: string | null;
  /** URL of the earlier page whose SimHash is within `dedup.near.maxDistance` bits of this page's (a near-duplicate); null otherwise. */
  readonly nearDuplicateOf: string | null;
  /** Hamming distance to `nearDuplicateOf`, bits; null when not a near-duplicate. */
  readonly nearDuplicateDistance: number | null;
}

/** Fields {@link CrawlLog.append} may leave out, with the default it writes. */
type Defaulted =
  | 'bytes'
  | 'contentType'
  | 'ip'
  | 'node'
  | 'partition'
  | 'attempt'
  | 'warc'
  | 'digest'
  | 'isDuplicate'
  | 'simhash'
  | 'lang'
  | 'reason'
  | 'category'
  | 'categoryProbability'
  | 'categoryReason'
  | 'nearDuplicateOf'
  | 'nearDuplicateDistance';

/**
 * What {@link CrawlLog.append} takes: a {@link CrawlLogEntry} whose optional fields default to
 * null, except `bytes` (0), `attempt` (1) and `isDuplicate` (false).
 */
export type CrawlLogInput = Omit<CrawlLogEntry, Defaulted> & { readonly [K in Defaulted]?: CrawlLogEntry[K] };

const partitionCheck: FieldCheck = {
  test: (v) => v === null || (typeof v === 'string' && v.length > 0) || (Number.isSafeInteger(v) && (v as number) >= 0),
  expects: 'a non-empty string, a non-negative integer or null',
};

/** The checks of every field, in the order they are written. */
export const CRAWL_LOG_SHAPE: RecordShape<CrawlLogEntry> = {
  ts: Checks.isoTime,
  url: Checks.nonEmptyString,
  status: { test: (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 999, expects: 'an HTTP status (0..999)' },
  outcome: oneOf(Object.values(CrawlOutcome)),
  bytes: Checks.count,
  contentType: nullable(Checks.string),
  durationMs: Checks.ms,
  ip: nullable(Checks.nonEmptyString),
  discoveredFrom: nullable(Checks.nonEmptyString),
  depth: Checks.count,
  node: nullable(Checks.nonEmptyString),
  partition: partitionCheck,
  attempt: Checks.count,
  warc: nullable(object<WarcPointer>({ file: Checks.nonEmptyString, offset: Checks.count })),
  digest: nullable(Checks.nonEmptyString),
  isDuplicate: Checks.boolean,
  simhash: nullable(Checks.hex16),
  lang: nullable(Checks.nonEmptyString),
  reason: nullable(Checks.string),
  category: nullable(Checks.nonEmptyString),
  categoryProbability: nullable(probabilityCheck),
  categoryReason: nullable(oneOf(['classifier', 'language', 'unclassifiable'])),
  nearDuplicateOf: addedLater(nullable(Checks.nonEmptyString)),
  nearDuplicateDistance: addedLater(nullable(Checks.count)),
};

/** Options of {@link CrawlLog}. */
export interface CrawlLogOptions extends JsonLinesFileOptions {
  /** The log file, usually `<crawl dir>/crawl-log.jsonl` ({@link CRAWL_LOG_FILE}). */
  readonly path: string;
}

/**
 * The crawl log writer. Lifecycle: construct, `await start()` (creates the file or cuts a torn last
 * line), `append` one entry per fetch, `flush()` at checkpoints (fsync), `close()` (idempotent).
 */
export class CrawlLog {
  private readonly writer: JsonLinesWriter<CrawlLogEntry>;

  constructor(options: CrawlLogOptions) {
    const { path, ...fileOptions } = options;
    this.writer = new JsonLinesWriter(path, 'crawl log entry', CRAWL_LOG_SHAPE, fileOptions);
  }

  /** Creates the log, or repairs the one a crashed run left. */
  start(): Promise<AppendRepairReport> {
    return this.writer.start();
  }

  /**
   * Appends one entry (buffered; durable after {@link flush}).
   *
   * @throws RangeError when a field is invalid (see {@link CRAWL_LOG_SHAPE}); nothing is written.
   */
  append(entry: CrawlLogInput): void {
    this.writer.append({
      ts: entry.ts,
      url: entry.url,
      status: entry.status,
      outcome: entry.outcome,
      bytes: entry.bytes ?? 0,
      contentType: entry.contentType ?? null,
      durationMs: entry.durationMs,
      ip: entry.ip ?? null,
      discoveredFrom: entry.discoveredFrom,
      depth: entry.depth,
      node: entry.node ?? null,
      partition: entry.partition ?? null,
      attempt: entry.attempt ?? 1,
      warc: entry.warc ?? null,
      digest: entry.digest ?? null,
      isDuplicate: entry.isDuplicate ?? false,
      simhash: entry.simhash ?? null,
      lang: entry.lang ?? null,
      reason: entry.reason ?? null,
      category: entry.category ?? null,
      categoryProbability: entry.categoryProbability ?? null,
      categoryReason: entry.categoryReason ?? null,
      nearDuplicateOf: entry.nearDuplicateOf ?? null,
      nearDuplicateDistance: entry.nearDuplicateDistance ?? null,
    });
  }

  /**
   * Hands the entries appended so far to the kernel (and, first, what the stores it depends on hold),
   * without an fsync: they then survive the process being killed, though not a power loss.
   */
  writeOut(): void {
    this.writer.appendFile.writeOut();
  }

  /** Bytes appended so far: the offset the next entry will have. */
  get size(): number {
    return this.writer.appendFile.size;
  }

  /** Makes every entry appended so far durable (fsync). */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Flushes and closes; idempotent. */
  close(): Promise<void> {
    return this.writer.close();
  }
}

/**
 * The entries of a crawl log, in order, each validated. Unknown fields (from a later version) are
 * kept on the object but not checked; a trailing line without `\n` is skipped.
 *
 * @throws ShoalError `IO` naming the file and line of the first invalid entry.
 */
export function readCrawlLog(path: string): AsyncIterable<CrawlLogEntry> {
  return readJsonLines(path, 'crawl log entry', CRAWL_LOG_SHAPE);
}

/**
 * The entries of a crawl log from byte `from` (the start of a line) to the last whole line, for crash
 * recovery: reading stops, without an error, at the first line that is not a valid entry (what the
 * writer's repair would cut, or damage a crash left in a part never fsynced). A missing file has no
 * entries.
 */
export async function readCrawlLogTail(path: string, from: number): Promise<CrawlLogEntry[]> {
  const entries: CrawlLogEntry[] = [];
  try {
    for await (const line of readLines(path, from)) {
      let value: unknown;
      try {
        value = JSON.parse(line.text);
      } catch {
        break;
      }
      if (problemOf(value, CRAWL_LOG_SHAPE) !== null) break;
      entries.push(value as CrawlLogEntry);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return entries;
    throw new ShoalError('IO', `cannot read the crawl log ${path}: ${(err as Error).message}`, { cause: err });
  }
  return entries;
}
