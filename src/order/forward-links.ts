/**
 * Forward-link ordering, after the IF(P) metric of seed 004 §2 item 4 (SPEC §3 "IF-based"):
 * IF(P) is the number of links out of P, high for directories and other index pages.
 *
 *     O(u) = max { IF(P) : P fetched, P links to u }        (0 while no fetched page links to u)
 *     IF(P) = number of distinct URLs P links to, P itself left out
 *
 * Departure, by necessity: IF(u) is known only once u is fetched, too late to order u. Index pages
 * tend to link to other index pages, so a URL is ranked by the largest out-degree among the fetched
 * pages that link to it: a link from a directory promises another directory. The value of a queued
 * URL rises as better in-linking pages are fetched, and each rise is returned as a priority change.
 * A page linking twice to a URL counts it once in its out-degree; a re-fetched page keeps the
 * out-degree of its first fetch.
 *
 * {@link ImportanceEstimator}: IF(P) itself for a fetched page (known exactly, as the paper notes),
 * the ordering value above for a page not fetched yet.
 *
 * ## Pages other nodes fetched
 *
 * In a collaborative crawl the pages linking to u may have been fetched by other nodes, which
 * alone know their out-degrees. Each node tells the owners of the URLs its pages link to, in its
 * link summaries, the largest IF among its pages linking to each URL ({@link OutDegreeEstimator},
 * `outDegrees` of `LinkSummaryMessage`); the owner takes it into O(u) like a local link
 * ({@link RemoteLinkObserver}). O(u) is a maximum, so summaries merge by max, a repeated summary
 * changes nothing, and the order of summaries and local fetches does not matter: once every node
 * has sent its summaries, the owner's O(u) is the one a single node that fetched all the pages
 * would give. In-link counts and rank shares of the same summaries are not read.
 *
 * Cost: O(links) per fetched page, O(entries) per summary; 8 bytes per URL linked to (the best
 * value, local and remote together), 8 per fetched page (its out-degree).
 */
import { DistinctLinks } from './distinct-links.js';
import { IdFlags, IdNumbers, isUrlId } from './id-arrays.js';
import { QueuedChanges } from './queued-changes.js';
import {
  NEEDS_LINKS_ONLY,
  type DiscoveredUrl,
  type FetchedPage,
  type ImportanceEstimator,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type OutDegreeEstimator,
  type PolicyNeeds,
  type PriorityChanges,
  type RemoteLinkObserver,
} from './policy.js';

/** Forward-link ordering: the best out-degree among in-linking fetched pages; see the file comment. */
export class ForwardLinksPolicy implements OrderingPolicy, RemoteLinkObserver, OutDegreeEstimator, ImportanceEstimator {
  /** `{ id: 'forward-links', params: {} }`. */
  readonly spec: OrderingPolicySpec = Object.freeze({ id: 'forward-links', params: Object.freeze({}) });
  /** Ids and links only. */
  readonly needs: PolicyNeeds = NEEDS_LINKS_ONLY;
  /** Largest out-degree of a fetched page linking to the id, this node's or another's. */
  private readonly best = new IdNumbers();
  /** Out-degree of a fetched page (valid when `fetched` has the id). */
  private readonly degrees = new IdNumbers();
  private readonly fetched = new IdFlags();
  private readonly links = new DistinctLinks();
  private readonly changes = new QueuedChanges();

  /** The largest out-degree among the fetched pages known to link to the URL. */
  prioritize(url: DiscoveredUrl): number {
    this.changes.queue(url.id);
    return this.best.get(url.id);
  }

  /** Raises the value of the page's targets to its out-degree; returns the queued ones that rose. */
  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.begin(page.id);
    if (this.fetched.has(page.id)) return changes;
    const degree = this.links.of(page.outIds, page.id);
    if (isUrlId(page.id)) {
      this.fetched.set(page.id, true);
      this.degrees.set(page.id, degree);
    }
    const targets = this.links.targets;
    for (let i = 0; i < degree; i++) {
      const t = targets[i] as number;
      if (degree <= this.best.get(t)) continue;
      this.best.set(t, degree);
      changes.setIfQueued(t, degree);
    }
    return changes;
  }

  /**
   * Takes in the largest out-degree of other nodes' pages linking to each URL (`outDegrees[i]` for
   * `ids[i]`); returns the queued URLs whose value rose. Counts and shares are not read; a summary
   * without out-degrees changes nothing, and a value that is not a finite number ≥ 0 is skipped.
   */
  observeRemoteLinks(
    ids: ArrayLike<number>,
    _counts: ArrayLike<number>,
    _shares?: ArrayLike<number>,
    outDegrees?: ArrayLike<number>,
  ): PriorityChanges {
    const changes = this.changes.reset();
    if (outDegrees === undefined) return changes;
    const n = Math.min(ids.length, outDegrees.length);
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      const degree = outDegrees[i] as number;
      if (!isUrlId(id) || !Number.isFinite(degree) || degree <= this.best.get(id)) continue;
      this.best.set(id, degree);
      changes.setIfQueued(id, degree);
    }
    return changes;
  }

  /** IF(id) of a page this node fetched; 0 for any other id. */
  outDegree(id: number): number {
    return this.fetched.has(id) ? this.degrees.get(id) : 0;
  }

  /** IF(id) for a fetched page, else the best in-linking out-degree; 0 for an id never met. */
  estimate(id: number): number {
    return this.fetched.has(id) ? this.degrees.get(id) : this.best.get(id);
  }
}
