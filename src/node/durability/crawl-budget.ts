/**
 * The counted budgets of a crawl, kept across runs: page fetches (`limits.maxPages`), pages per host
 * (`scope.maxPagesPerHost`) and body bytes (`limits.maxBytes`).
 *
 * Two tallies of the same counts:
 * - the **live** counters ({@link ScopeCounters}) move as soon as a response is in: the fetch loop
 *   checks them right before each fetch and admission drops the links of a host whose budget is
 *   spent, so that with one connection per host a per-host budget is exact;
 * - the **recorded** tally moves when the URL's crawl-log record is written
 *   ({@link CrawlBudget.record}). A checkpoint captures it together with the crawl log's length
 *   (`snapshot`), so that the counts on disk are exactly those of the records before that length.
 *
 * Each checkpoint writes the snapshot captured at the *previous* checkpoint, once the frontier is
 * durable, to `state/budget.json` (temporary file, fsync, rename). Every record before its
 * `crawlLogFrom` belongs to a URL whose completion that frontier flush made durable: a record is
 * written before its lease is completed, and a lease whose record came before one checkpoint began is
 * completed before the next begins. On resume, the counts are the snapshot's plus those of the crawl
 * log's records after `crawlLogFrom` (crash recovery, `tail-recovery.ts`, reads them), so a crash
 * neither loses nor repeats a count. Without a crawl log the latest counts are written instead, and a
 * page fetched again after a crash counts twice: budgets then err on the side of fetching less.
 */
import { readStateFile, writeStateFile } from '../../store/state-file.js';
import { hostnameOfKey } from '../../url/url-parts.js';
import { ScopeCounters, type ScopeCountersSnapshot } from '../../url/scope.js';

/** The budgets of a crawl; null limits are off. */
export interface BudgetLimits {
  readonly maxPagesPerHost: number | null;
  readonly maxBytes: number | null;
}

/** What `state/budget.json` holds. */
export interface BudgetSnapshot extends ScopeCountersSnapshot {
  /** URLs this node made at least one request for (what `limits.maxPages` counts), in every run so far. */
  readonly pagesFetched: number;
  /** Offset in the crawl log before which every record is counted here; null without a crawl log. */
  readonly crawlLogFrom: number | null;
}

/** The fields of a crawl-log record the budget counts. */
export interface BudgetRecord {
  /** Politeness key of the URL (host, with the port when not the default). */
  readonly host: string;
  /** HTTP status, or null when no response came. */
  readonly status: number | null;
  /** Body bytes as received. */
  readonly bytes: number;
  /** Requests made for the URL (0 when none was). */
  readonly attempts: number;
}

/** The counters with their file; see the file comment. */
export class CrawlBudget {
  /** The live counters, as a URL filter and for the fetch loop; null when no per-host or byte limit is set. */
  readonly counters: ScopeCounters | null;
  private readonly recorded: ScopeCounters;
  private fetched: number;
  private readonly initial: BudgetSnapshot;

  private constructor(
    private readonly path: string,
    limits: BudgetLimits,
    restored: BudgetSnapshot | null,
    readonly crawlLogFrom: number | null,
  ) {
    const scope = {
      ...(limits.maxPagesPerHost === null ? {} : { maxPagesPerHost: limits.maxPagesPerHost }),
      ...(limits.maxBytes === null ? {} : { maxBytes: limits.maxBytes }),
    };
    const counts = restored ?? undefined;
    this.counters = limits.maxPagesPerHost === null && limits.maxBytes === null ? null : new ScopeCounters(scope, counts);
    this.recorded = new ScopeCounters(scope, counts);
    this.fetched = restored?.pagesFetched ?? 0;
    this.initial = restored ?? { pages: 0, bytes: 0, hostPages: {}, pagesFetched: 0, crawlLogFrom };
  }

  /**
   * The budget of a crawl directory, with the counts of earlier runs when `path` holds them. A crawl
   * without the file starts from zero at `crawlLogBytes` (the crawl log's length now, null without a
   * crawl log), and the file is written at once, so that a crash before the first checkpoint is
   * recovered from there.
   * @throws ShoalError `IO` when the file exists but cannot be read or parsed, or cannot be written.
   */
  static open(path: string, limits: BudgetLimits, crawlLogBytes: number | null): CrawlBudget {
    const restored = readSnapshot(path);
    const budget = new CrawlBudget(path, limits, restored, restored === null ? crawlLogBytes : restored.crawlLogFrom);
    if (restored === null) budget.persistNow(budget.restored);
    return budget;
  }

  /** The counts as the last run left them (zero for a new crawl), with the offset they were counted to. */
  get restored(): BudgetSnapshot {
    return this.initial;
  }

  /** URLs fetched (at least one request) in every run so far, recovered ones included. */
  get pagesFetched(): number {
    return this.fetched;
  }

  /** Counts a record of this node's (the crawl log's line for one URL) in the recorded tally. */
  record(r: BudgetRecord): void {
    if (r.attempts > 0) this.fetched++;
    if (r.status !== null) this.recorded.recordPage(hostnameOfKey(r.host), r.bytes);
  }

  /**
   * Counts records written before a crash and after the last snapshot on disk (crash recovery), in
   * both tallies: the live counters were restored from that snapshot.
   */
  recover(records: readonly BudgetRecord[]): void {
    for (const r of records) {
      this.record(r);
      if (r.status !== null) this.counters?.recordPage(hostnameOfKey(r.host), r.bytes);
    }
  }

  /** The recorded counts now, with the crawl log's length now (null without a crawl log); see the file comment. */
  snapshot(crawlLogBytes: number | null): BudgetSnapshot {
    return { ...this.recorded.snapshot(), pagesFetched: this.fetched, crawlLogFrom: crawlLogBytes };
  }

  /** Writes `snapshot` durably (temporary file, fsync, rename). */
  persist(snapshot: BudgetSnapshot): Promise<void> {
    try {
      this.persistNow(snapshot);
    } catch (err) {
      return Promise.reject(err);
    }
    return Promise.resolve();
  }

  private persistNow(snapshot: BudgetSnapshot): void {
    writeStateFile(this.path, snapshot, 'the crawl budget');
  }
}

function readSnapshot(path: string): BudgetSnapshot | null {
  return readStateFile(path, 'the crawl budget', (value) => {
    const v = value as Partial<BudgetSnapshot>;
    if (typeof v.pages !== 'number' || typeof v.bytes !== 'number' || typeof v.hostPages !== 'object' || v.hostPages === null)
      throw new Error('missing fields');
    return {
      pages: v.pages,
      bytes: v.bytes,
      hostPages: v.hostPages,
      // Written before page fetches were kept: the responses counted are the closest figure.
      pagesFetched: typeof v.pagesFetched === 'number' ? v.pagesFetched : v.pages,
      crawlLogFrom: typeof v.crawlLogFrom === 'number' ? v.crawlLogFrom : null,
    };
  });
}
