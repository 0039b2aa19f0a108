/**
 * Coverage of a test web against its truth as the crawl grows: the truth pages a polite crawler
 * reaches from the seeds (the export's `reach` column) and, of those, the ones downloaded so far,
 * plain and weighted by the truth's PageRank (SPEC §5 coverage |C ∩ T| / |T|, and its weighted form).
 */
import type { CrawlLogRecord } from '../../store/records.js';
import type { TruthView } from './snapshot.js';

/** What the dashboard needs of a truth; `src/cli/dashboard-truth.ts` builds it from an export. */
export interface DashboardTruth {
  /** Truth pages a polite crawler reaches from the seeds. */
  readonly reachable: number;
  /** Sum of their weights. */
  readonly reachableWeight: number;
  /** The reachable truth page `url` names, or −1 (not a truth page, or not reachable). */
  reachablePageOf(url: string): number;
  /** The weight (PageRank) of a page. */
  weightOf(page: number): number;
}

/** See the file comment. */
export class TruthCoverage {
  private readonly downloaded = new Set<number>();
  private weight = 0;

  constructor(private readonly truth: DashboardTruth) {}

  /** Counts a record; only downloads (a response arrived) count. */
  add(r: Pick<CrawlLogRecord, 'url' | 'status'>): void {
    if (r.status === null) return;
    const page = this.truth.reachablePageOf(r.url);
    if (page < 0 || this.downloaded.has(page)) return;
    this.downloaded.add(page);
    this.weight += this.truth.weightOf(page);
  }

  view(): TruthView {
    const { reachable, reachableWeight } = this.truth;
    return {
      reachable,
      downloaded: this.downloaded.size,
      coverage: reachable > 0 ? this.downloaded.size / reachable : null,
      weightedCoverage: reachableWeight > 0 ? this.weight / reachableWeight : null,
    };
  }
}
