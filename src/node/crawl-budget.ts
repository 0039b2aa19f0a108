/**
 * The counted budgets of a crawl (`scope.maxPagesPerHost`, `limits.maxBytes`): the pages fetched per
 * host and the body bytes downloaded in all, counted by {@link ScopeCounters} and kept across runs.
 *
 * Where they act: admission drops new links of a host whose budget is spent (the counters are one of
 * the URL filters), and the fetch loop asks again right before each fetch, since links queued before
 * the budget ran out are still in the frontier; such a URL ends as `over-budget` without a request.
 * With several fetches in flight a budget can be passed by at most the fetches already under way.
 *
 * The counts are written to `state/budget.json` at every checkpoint (after the frontier is durable;
 * a write to a temporary file, fsynced, then renamed) and read back on resume. After a crash, pages
 * fetched again in the refetch window are counted twice: budgets err on the side of fetching less.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { ShoalError } from '../core/errors.js';
import { ScopeCounters, type ScopeCountersSnapshot } from '../url/scope.js';

/** The budgets of a crawl; null limits are off. */
export interface BudgetLimits {
  readonly maxPagesPerHost: number | null;
  readonly maxBytes: number | null;
}

/** The counters with their file; see the file comment. */
export class CrawlBudget {
  readonly counters: ScopeCounters;

  private constructor(private readonly path: string, counters: ScopeCounters) {
    this.counters = counters;
  }

  /**
   * The budget of a crawl directory, with the counts of earlier runs when `path` holds them; null
   * when no budget is set.
   * @throws ShoalError `IO` when the file exists but cannot be read or parsed.
   */
  static open(path: string, limits: BudgetLimits): CrawlBudget | null {
    if (limits.maxPagesPerHost === null && limits.maxBytes === null) return null;
    const restored = readSnapshot(path);
    const scope = {
      ...(limits.maxPagesPerHost === null ? {} : { maxPagesPerHost: limits.maxPagesPerHost }),
      ...(limits.maxBytes === null ? {} : { maxBytes: limits.maxBytes }),
    };
    return new CrawlBudget(path, new ScopeCounters(scope, restored ?? undefined));
  }

  /** Writes the counts durably (temporary file, fsync, rename). */
  persist(): Promise<void> {
    const tmp = `${this.path}.tmp`;
    try {
      const fd = openSync(tmp, 'w');
      try {
        writeSync(fd, `${JSON.stringify(this.counters.snapshot())}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
    } catch (err) {
      return Promise.reject(new ShoalError('IO', `cannot write the crawl budget to ${this.path}`, { cause: err }));
    }
    return Promise.resolve();
  }
}

function readSnapshot(path: string): ScopeCountersSnapshot | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ShoalError('IO', `cannot read the crawl budget ${path}`, { cause: err });
  }
  try {
    const v = JSON.parse(text) as Partial<ScopeCountersSnapshot>;
    if (typeof v.pages !== 'number' || typeof v.bytes !== 'number' || typeof v.hostPages !== 'object' || v.hostPages === null) throw new Error('missing fields');
    return { pages: v.pages, bytes: v.bytes, hostPages: v.hostPages };
  } catch (err) {
    throw new ShoalError('IO', `the crawl budget ${path} is corrupt (${(err as Error).message}); remove it to count from zero`, { cause: err });
  }
}
