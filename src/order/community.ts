/**
 * Community ordering (seed 002, Costa & Frasconi; SPEC §4.4) for one node: the pages the node has
 * fetched are its community's retrieved set R, and the frontier serves first the URL most likely to
 * belong to R.
 *
 *     rank candidate (default):  O(u) = score(u)                       u's own membership, from its citers in R
 *     rank citing (the paper's): O(u) = max_{p fetched, p → u} score(p)  the best citing page's membership
 *
 * score is m_k, the mean of the k largest similarities s(·, q), q ∈ R (s = α·l + β·f + γ·c over the
 * links seen so far), or M_k with spreading from representatives (`community/membership.ts`). Seeds
 * come first. When a page is fetched, the scores of its queued out-links change (a new citer, new
 * co-citations) and are returned as priority changes; other queued URLs keep their score until one of
 * their citers is fetched, so the work per page stays bounded by the links around it.
 *
 * `candidate` is shoal's departure: under `citing` every link of a page in R inherits the page's rank,
 * the few that leave the community included, so a crawler drifts into other communities once its own
 * is used up. `npm run experiment:community` measures both (docs/experiments/community-crawling.md).
 *
 * Link summaries from other nodes (SPEC §4.5) are not read: R is this node's own retrieved set, and
 * the similarities need whole link lists (who cites u together with what, which out-links pages
 * share), where a summary gives one count of links per URL. (The `community` partitioner reads those
 * counts, as votes: `partition/community/`.)
 *
 * The paper's capacity (a crawler keeps its best documents and drops the rest) is the frontier's
 * business in a crawl: `limits.maxPages` bounds what a node retrieves. Memory: a row of similarities
 * per known page, each list of links capped at `maxNeighbours`; meant for focused crawls (thousands
 * to hundreds of thousands of pages), not for a frontier of millions.
 */
import { CommunityMembership, DEFAULT_MEMBERSHIP_K } from './community/membership.js';
import { DEFAULT_MAX_NEIGHBOURS } from './community/similarity.js';
import { IdFlags, IdNumbers, isUrlId } from './id-arrays.js';
import { QueuedChanges } from './queued-changes.js';
import {
  NEEDS_LINKS_ONLY,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';

/** How a queued URL is ranked; see the file comment. */
export type CommunityOrderRank = 'candidate' | 'citing';

/** Parameters of {@link CommunityPolicy}. */
export interface CommunityPolicyParams {
  readonly rank?: CommunityOrderRank;
  readonly k?: number;
  readonly alpha?: number;
  readonly beta?: number;
  readonly gamma?: number;
  /** Spreading from this many representatives (0 = off, the default). */
  readonly representatives?: number;
  readonly discount?: number;
  readonly maxDistance?: number;
  readonly maxNeighbours?: number;
}

/** The priority of a seed: above any membership (scores are bounded by the links around a page). */
const SEED_PRIORITY = 1e12;

/** Community ordering; see the file comment. */
export class CommunityPolicy implements OrderingPolicy {
  readonly spec: OrderingPolicySpec;
  readonly needs: PolicyNeeds = NEEDS_LINKS_ONLY;
  readonly rank: CommunityOrderRank;
  private readonly membership: CommunityMembership;
  private readonly observed = new IdFlags();
  private readonly best = new IdNumbers();
  private readonly changes = new QueuedChanges();

  /** Throws a RangeError on a bad parameter. */
  constructor(params: CommunityPolicyParams = {}) {
    const rank = params.rank ?? 'candidate';
    if (rank !== 'candidate' && rank !== 'citing') throw new RangeError(`rank: candidate or citing, got ${String(rank)}`);
    this.rank = rank;
    const representatives = params.representatives ?? 0;
    const k = params.k ?? DEFAULT_MEMBERSHIP_K;
    const weights = { alpha: params.alpha ?? 1, beta: params.beta ?? 1, gamma: params.gamma ?? 1 };
    for (const [name, w] of Object.entries(weights))
      if (!(w >= 0 && Number.isFinite(w))) throw new RangeError(`${name}: a weight >= 0, got ${w}`);
    const maxNeighbours = params.maxNeighbours ?? DEFAULT_MAX_NEIGHBOURS;
    this.membership = new CommunityMembership({
      k,
      weights,
      maxNeighbours,
      spreading:
        representatives === 0
          ? false
          : {
              representatives,
              ...(params.discount === undefined ? {} : { discount: params.discount }),
              ...(params.maxDistance === undefined ? {} : { maxDistance: params.maxDistance }),
            },
    });
    const s = this.membership.spreading;
    this.spec = Object.freeze({
      id: 'community',
      params: Object.freeze({
        rank,
        k,
        ...weights,
        representatives,
        discount: s?.discount ?? params.discount ?? 0.5,
        maxDistance: s?.maxDistance ?? params.maxDistance ?? 2,
        maxNeighbours,
      }),
    });
  }

  prioritize(url: DiscoveredUrl): number {
    if (url.fromId === undefined) return SEED_PRIORITY;
    if (!isUrlId(url.id)) return 0;
    this.changes.queue(url.id);
    const score = this.scoreOf(url.id, url.fromId);
    // candidate: the URL's own membership now; citing: the best citing page's so far.
    this.best.set(url.id, this.rank === 'candidate' ? score : Math.max(this.best.get(url.id), score));
    return this.best.get(url.id);
  }

  observe(page: FetchedPage): PriorityChanges {
    const changes = this.changes.begin(page.id);
    if (!isUrlId(page.id) || this.observed.has(page.id)) return changes;
    this.observed.set(page.id, true);
    const out: number[] = [];
    for (let i = 0; i < page.outIds.length; i++) {
      const t = page.outIds[i] as number;
      if (isUrlId(t) && t !== page.id) out.push(t);
    }
    const kept = this.membership.add(page.id, out);
    for (const t of kept) {
      if (!changes.isQueued(t)) continue;
      const score = this.scoreOf(t, page.id);
      if (this.rank === 'candidate' ? score !== this.best.get(t) : score > this.best.get(t)) {
        this.best.set(t, score);
        changes.set(t, score);
      }
    }
    return changes;
  }

  /** The score of queued URL `id` found on page `fromId`. */
  private scoreOf(id: number, fromId: number): number {
    const s = this.rank === 'candidate' ? this.membership.score(id) : this.membership.score(fromId);
    return Number.isFinite(s) && s > 0 ? s : 0;
  }
}
