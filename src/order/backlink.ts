/**
 * Backlink ordering IB′ (seed 004 §2 item 2 and Figure 2, policy (2); SPEC §3):
 *
 *     O(u) = IB′(u) = |{ fetched pages P : P links to u }| + links to u counted by other nodes
 *
 * the number of in-links of u seen so far. Each (fetched page, target) pair counts once: a page
 * that links twice to u is one backlink, and a page observed again adds only the links it did not have (a revisit). The
 * count of a queued URL grows as pages linking to it are fetched, and each growth is returned as a
 * priority change, so the frontier always serves the URL with the most backlinks seen (ties: first
 * discovered first). This is the paper's `reorder_queue` done incrementally: one change per new
 * link instead of a sort of the whole queue.
 *
 * In a collaborative crawl a node sees only the links on its own pages; other nodes send it counts
 * of links to the URLs it owns ({@link RemoteLinkObserver}, SPEC §4.5), which add to the local
 * count. A URL's `backlinkHint` (a count another node attached when it forwarded the URL) is taken as
 * a lower bound of the remote count, not added to it, since the same links may also arrive in a
 * later summary. {@link ImportanceEstimator}: IB′ itself, for fetched and unfetched pages.
 *
 * Cost: O(links) per fetched page; 4 bytes per URL linked to for the local count (an integer),
 * 8 per URL named by another node for the remote one (counts and hints need not be integers).
 *
 * Departures: the paper counts every (page, target) occurrence in its `links` list; shoal counts a
 * page's repeated links once (as for IR′). A re-fetched page's links count once: a revisit of a
 * changed page brings only the links it did not have (`isRevisit`, which are counted), and a link
 * it dropped still counts (IB′ counts the in-links ever seen). IB′ is known to fall into locally dense clusters (§6, Figure 3); see `pagerank.ts`.
 */
import { DistinctLinks } from './distinct-links.js';
import { IdCounts, IdFlags, IdNumbers, isUrlId } from './id-arrays.js';
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
  type RemoteLinkObserver,
} from './policy.js';

/** IB′ ordering: in-links seen so far, locally and by other nodes; see the file comment. */
export class BacklinkPolicy implements OrderingPolicy, RemoteLinkObserver, ImportanceEstimator {
  /** `{ id: 'backlink', params: {} }`. */
  readonly spec: OrderingPolicySpec = Object.freeze({ id: 'backlink', params: Object.freeze({}) });
  /** Ids and links only. */
  readonly needs: PolicyNeeds = NEEDS_LINKS_ONLY;
  private readonly local = new IdCounts();
  private readonly remote = new IdNumbers();
  private readonly observed = new IdFlags();
  private readonly links = new DistinctLinks();
  private readonly changes = new QueuedChanges();

  /** IB′(u): the in-links counted so far, the one that found u included (`observe` came first). */
  prioritize(url: DiscoveredUrl): number {
    const hint = url.backlinkHint;
    if (!isUrlId(url.id)) return hint !== undefined && Number.isFinite(hint) && hint > 0 ? hint : 0;
    if (hint !== undefined && Number.isFinite(hint) && hint > this.remote.get(url.id)) this.remote.set(url.id, hint);
    this.changes.queue(url.id);
    return this.estimate(url.id);
  }

  /** Counts the page's distinct out-links once (a revisit's: its new ones); returns the new IB′ of the queued targets. */
  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.begin(page.id);
    if (this.observed.has(page.id) && page.isRevisit !== true) return changes;
    this.observed.set(page.id, true);
    const count = this.links.of(page.outIds, page.id);
    const targets = this.links.targets;
    for (let i = 0; i < count; i++) {
      const t = targets[i] as number;
      this.local.increment(t);
      if (changes.isQueued(t)) changes.set(t, this.estimate(t));
    }
    return changes;
  }

  /** Adds in-link counts from another node (non-finite or non-positive counts are ignored). */
  observeRemoteLinks(ids: ArrayLike<number>, counts: ArrayLike<number>): PriorityChanges {
    const changes = this.changes.reset();
    const n = Math.min(ids.length, counts.length);
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      const c = counts[i] as number;
      if (!isUrlId(id) || !Number.isFinite(c) || c <= 0) continue;
      this.remote.set(id, this.remote.get(id) + c);
      if (changes.isQueued(id)) changes.set(id, this.estimate(id));
    }
    return changes;
  }

  /** IB′(id): local plus remote in-links; 0 for an id never met. */
  estimate(id: number): number {
    const value = this.local.get(id) + this.remote.get(id);
    return Number.isFinite(value) ? value : Number.MAX_VALUE;
  }
}
