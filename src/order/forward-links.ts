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
 * Cost: O(links) per fetched page; 8 bytes per URL linked to (the best value), 8 per fetched page
 * (its out-degree).
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
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';

/** Forward-link ordering: the best out-degree among in-linking fetched pages; see the file comment. */
export class ForwardLinksPolicy implements OrderingPolicy, ImportanceEstimator {
  /** `{ id: 'forward-links', params: {} }`. */
  readonly spec: OrderingPolicySpec = Object.freeze({ id: 'forward-links', params: Object.freeze({}) });
  /** Ids and links only. */
  readonly needs: PolicyNeeds = NEEDS_LINKS_ONLY;
  /** Largest out-degree of a fetched page linking to the id. */
  private readonly best = new IdNumbers();
  /** Out-degree of a fetched page (valid when `fetched` has the id). */
  private readonly outDegree = new IdNumbers();
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
      this.outDegree.set(page.id, degree);
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

  /** IF(id) for a fetched page, else the best in-linking out-degree; 0 for an id never met. */
  estimate(id: number): number {
    return this.fetched.has(id) ? this.outDegree.get(id) : this.best.get(id);
  }
}
