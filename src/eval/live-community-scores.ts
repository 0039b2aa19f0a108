/**
 * The community scores of `community-metrics.ts` (cohesion, precision, recall) for several growing
 * sets at once, updated page by page: what a crawl shows live while its nodes fetch, exact against
 * a graph whose communities are known (the test web's truth).
 *
 * Adding page p to set S (p not in S yet) changes the edge counts by p's own edges only:
 *
 *     each edge p → q and r → p:  the other end in S   inside += 1, one end −= 1
 *                                 else                  one end += 1
 *     a self-link p → p:                                inside += 1
 *
 * (touching = inside + one end), so an addition
 * costs p's degree and the scores are ready at any time: cohesion = inside / touching; the majority
 * community and its count come from a per-set count of pages per community. The same definitions,
 * ties and departures as `communityScores`, which the tests check it against.
 *
 * Memory: a bit per page per set, the graph's transpose (for in-links), and the community counts.
 */
import { meanCommunityScores, type CommunityScores, type MeanCommunityScores } from './community-metrics.js';
import { transpose, type Csr } from './csr.js';

interface SetState {
  readonly members: Uint8Array;
  size: number;
  /** Edges with both ends in the set. */
  inside: number;
  /** Edges with exactly one end in the set. */
  oneEnd: number;
  readonly perCommunity: Map<number, number>;
}

/** See the file comment. */
export class LiveCommunityScores {
  private readonly inLinks: Csr;
  private readonly sizes = new Map<number, number>();
  private readonly sets: SetState[];

  /**
   * @param community the community of each page (−1 for none).
   * @param setCount the number of sets (nodes), numbered 0 .. setCount − 1.
   * @throws RangeError if `community` is shorter than the graph.
   */
  constructor(
    private readonly graph: Csr,
    private readonly community: Int32Array,
    setCount: number,
  ) {
    if (community.length < graph.nodeCount)
      throw new RangeError(`LiveCommunityScores: ${community.length} community labels for ${graph.nodeCount} pages`);
    this.inLinks = transpose(graph);
    for (let p = 0; p < graph.nodeCount; p++) {
      const c = community[p] as number;
      if (c >= 0) this.sizes.set(c, (this.sizes.get(c) ?? 0) + 1);
    }
    this.sets = Array.from({ length: setCount }, () => ({
      members: new Uint8Array(graph.nodeCount),
      size: 0,
      inside: 0,
      oneEnd: 0,
      perCommunity: new Map<number, number>(),
    }));
  }

  /** Adds page `page` to set `set`; a repeat, a page outside the graph or a set out of range is ignored. */
  add(set: number, page: number): void {
    const s = this.sets[set];
    if (s === undefined || !(page >= 0 && page < this.graph.nodeCount) || s.members[page] === 1) return;
    s.members[page] = 1;
    s.size++;
    for (const g of [this.graph, this.inLinks]) {
      const end = g.offsets[page + 1] as number;
      for (let e = g.offsets[page] as number; e < end; e++) {
        const other = g.targets[e] as number;
        if (other === page) {
          // A self-link is in both lists: counted once, from the out-links, as inside.
          if (g === this.graph) s.inside++;
        } else if (s.members[other] === 1) {
          s.inside++;
          s.oneEnd--;
        } else {
          s.oneEnd++;
        }
      }
    }
    const c = this.community[page] as number;
    if (c >= 0) s.perCommunity.set(c, (s.perCommunity.get(c) ?? 0) + 1);
  }

  /** The scores of set `set` now. */
  scoresOf(set: number): CommunityScores {
    const s = this.sets[set];
    if (s === undefined || s.size === 0) return { size: 0, cohesion: 0, majority: -1, precision: 0, recall: 0 };
    let majority = -1;
    let best = 0;
    for (const [c, count] of s.perCommunity) {
      if (count > best || (count === best && c < majority)) {
        majority = c;
        best = count;
      }
    }
    const touching = s.inside + s.oneEnd;
    return {
      size: s.size,
      cohesion: touching === 0 ? 0 : s.inside / touching,
      majority,
      precision: best / s.size,
      recall: majority < 0 ? 0 : best / (this.sizes.get(majority) as number),
    };
  }

  /** Means over the sets that hold a page, as `shoal eval` reports them. */
  mean(): MeanCommunityScores {
    return meanCommunityScores(this.sets.map((_, i) => this.scoresOf(i)).filter((s) => s.size > 0));
  }
}
