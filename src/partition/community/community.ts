/**
 * Community partitioning (SPEC §4.4; seed 002): every node is a community crawler, and a URL goes
 * to the node whose community it belongs to most, as far as the links seen so far tell.
 *
 *     placeUrl(u) = { self }   when this node took u before (`isKept`), or when no other partition's
 *                              vote beats its own
 *                 = { j }      j = argmax_j v_j(u), the first such partition, when v_j(u) > v_self(u)
 *                 = { h(host of u) }   seeds and URLs placed without votes (host-hash)
 *     v_j(u)      = min(cited_j(u), k)
 *
 * cited_j(u) is the number of links to u from pages of partition j's community (the pages node j
 * fetched): the node counts its own links exactly and learns the other nodes' from their link
 * summaries (`citation-table.ts`; the router sends every link's count to every other node when the
 * strategy reads citations). min(cited, k) is the link term of the membership m_k of seed 002 for a
 * URL not yet fetched: s(u, q) = l(u, q) = 1/2 for each citing page q (u's own links are unknown
 * before fetch, so the coupling and co-citation terms are left out), and the mean of the k largest is
 * min(cited, k) / 2k; the factor does not change the argmax.
 *
 * A tie keeps the URL where it was found, so with no summary received yet each node crawls what it
 * finds (like topic partitioning); a URL moves only when another community cites it more. A URL this
 * node already took stays (sending it later would make two nodes fetch it). Seeds are spread by host
 * hash: the random initialisation of seed 002.
 *
 * Pure: the votes come in with the URL (`UrlToPlace.community`); no state here.
 */
import { DEFAULT_MEMBERSHIP_K } from '../../order/community/membership.js';
import { HostHashPartitioner } from '../hash/host-hash.js';
import { checkPartitionCount, PartitionParamError, singletonPlacements } from '../partition-params.js';
import type { Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';

export type { CommunityFacts } from '../partitioner.js';

/** Default cap on the votes of one partition: the k of m_k, as `--order community` has it. */
export const DEFAULT_COMMUNITY_K = DEFAULT_MEMBERSHIP_K;
/** Default URLs whose votes a node keeps (the oldest are forgotten first). */
export const DEFAULT_TRACKED_URLS = 1 << 17;

/** Parameters of {@link CommunityPartitioner}. */
export interface CommunityParams {
  /** Votes of one partition are capped at k. Default {@link DEFAULT_COMMUNITY_K}. */
  readonly k?: number;
  /** URLs whose votes a node keeps; named here so that every node of a crawl uses the same. */
  readonly trackedUrls?: number;
}

/** `community`: a URL goes to the partition whose community cites it most; see the file comment. */
export class CommunityPartitioner implements Partitioner {
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  readonly needsIp = false;
  /** The node counts links per partition and gives them with each URL (`UrlToPlace.community`). */
  readonly readsCitations = true;
  readonly k: number;
  readonly trackedUrls: number;
  private readonly seeds: HostHashPartitioner;
  private readonly singletons: readonly Placement[];

  /** Throws a `PartitionParamError` on a bad count or parameter. */
  constructor(partitionCount: number, params: CommunityParams = {}) {
    checkPartitionCount(partitionCount);
    const k = params.k ?? DEFAULT_COMMUNITY_K;
    if (!Number.isInteger(k) || k < 1) throw new PartitionParamError('k', `a positive integer, got ${k}`);
    const trackedUrls = params.trackedUrls ?? DEFAULT_TRACKED_URLS;
    if (!Number.isInteger(trackedUrls) || trackedUrls < 1)
      throw new PartitionParamError('trackedUrls', `a positive integer, got ${trackedUrls}`);
    this.partitionCount = partitionCount;
    this.k = k;
    this.trackedUrls = trackedUrls;
    this.seeds = new HostHashPartitioner(partitionCount);
    this.singletons = singletonPlacements(partitionCount);
    this.spec = Object.freeze({ id: 'community', params: Object.freeze({ k, trackedUrls }) });
  }

  placeUrl(url: UrlToPlace, self: PartitionId): Placement {
    const facts = url.community;
    if (facts === undefined) return this.seeds.placeUrl(url, self);
    if (facts.isKept) return this.singletons[self] as Placement;
    const votes = facts.citedBy;
    const n = Math.min(votes.length, this.partitionCount);
    const k = this.k;
    const own = self < n ? Math.min(votes[self] as number, k) : 0;
    let best = self;
    let bestVotes = own;
    for (let j = 0; j < n; j++) {
      const v = Math.min(votes[j] as number, k);
      if (v > bestVotes) {
        best = j;
        bestVotes = v;
      }
    }
    return this.singletons[best] as Placement;
  }
}

/** Whether a partitioner places URLs by citations, which the node must then count and exchange. */
export function readsCitations(p: Partitioner): p is Partitioner & { readonly readsCitations: true; readonly trackedUrls: number } {
  return (p as { readsCitations?: unknown }).readsCitations === true;
}
