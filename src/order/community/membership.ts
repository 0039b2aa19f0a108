/**
 * Membership of a page in a community's retrieved set R (seed 002 §2, Costa & Frasconi; SPEC §4.4):
 *
 *     m_k(p) = (1/k) · Σ_{q ∈ S_k(p, R)} s(p, q)       S_k(p, R) = the k members q ≠ p most similar to p
 *     M_k(q) = m_k(q) · Σ_{p ∈ reps, p ≠ q, d(q, p) ≤ D} m_k(p) · i^d(q, p)       (spreading, optional)
 *
 * s is the similarity of `similarity.ts`. Dividing by k even when fewer than k members are similar
 * (the missing ones count 0) ranks pages exactly as the mean over min(k, |R| − 1) would, since every
 * page is compared with the same R, and keeps m_k comparable as R grows.
 *
 * **Choice of k** (the paper leaves it open, and used 10 on its Web sample): default 16. A page of a
 * community is strongly similar to about as many pages as it has in-community links (32 on the
 * paper's graph), and only a handful of out-of-community pages share a link or two with it by chance.
 * k must stay below the first number, so that m_k measures the densest part of p's neighbourhood
 * in R, and well above the second, so that one chance neighbour does not lift a stranger; k = 1
 * ranks by a single best neighbour. The experiment sweeps k (docs/experiments/community-crawling.md).
 *
 * **Spreading** (`spreading`, default off): the `representatives` members of highest m_k pass
 * m_k(p) · i^d to every page at undirected link distance d ≤ `maxDistance` in the known graph
 * (discount i = `discount`, default 1/2; D default 2, the paper's Web setting); a page's score is
 * its m_k times what it received, so a page that no representative reaches scores 0. Recomputed
 * lazily, when a score is asked after `refreshEvery` pages joined R.
 *
 * **Incremental upkeep.** For every known page u (member or not) the view keeps the row
 * {q ∈ R: s(u, q) > 0}. When a page x is fetched and joins R: (1) each pair a ≠ b of x's out-links,
 * b ∈ R, gains γ (x is a new common citer); (2) s(u, x) is counted for every page u related to x,
 * through x's out-links (l), its in-links (l), the other citers of its targets (f) and the other
 * targets of its citers (c). Cost O(|C_x|² + |C_x|·|P_t| + |P_x|·|C_p|) per page, about 3,500 steps
 * on the paper's graph, instead of O(|R|) similarities per page. Rows equal `view.similarity` while no
 * list reached `maxNeighbours`; past it they are lower bounds (a pair related only through a dropped
 * list entry is missed). m_k is recomputed only for rows that changed.
 *
 * Departures: the paper's spreading starts from every node and uses shortest paths without saying
 * their direction; shoal spreads from a bounded set of representatives (the paper's own
 * simplification) along links in either direction.
 */
import { DEFAULT_SIMILARITY_WEIGHTS, LinkGraphView, sortedHas, type LinkGraphViewOptions, type SimilarityWeights } from './similarity.js';

/** Default k of m_k; see the file comment. */
export const DEFAULT_MEMBERSHIP_K = 16;

/** Options of spreading. */
export interface SpreadingOptions {
  /** Members (highest m_k) that spread their membership. Default 16; at least 1. */
  readonly representatives?: number;
  /** Discount i per link. Default 0.5; in (0, 1]. */
  readonly discount?: number;
  /** Maximum link distance D. Default 2; at least 1. */
  readonly maxDistance?: number;
  /**
   * Spreading is recomputed when asked after at least this many pages joined R since the last
   * time (between, scores use the last spread). Default 8; 1 = always current. At most 16
   * breadth-first visits of depth D per recomputation, about 1 ms on the paper's graph.
   */
  readonly refreshEvery?: number;
}

/** Options of {@link CommunityMembership}. */
export interface MembershipOptions extends LinkGraphViewOptions {
  /** k of m_k. Default {@link DEFAULT_MEMBERSHIP_K}; at least 1. */
  readonly k?: number;
  /** α, β, γ. Default 1, 1, 1. */
  readonly weights?: SimilarityWeights;
  /** Spreading from representatives; `false` (default) scores by m_k alone. */
  readonly spreading?: SpreadingOptions | false;
}

/** The membership of pages in a growing retrieved set R; see the file comment. */
export class CommunityMembership {
  /** The link graph of the fetched pages (all of them members). */
  readonly view: LinkGraphView;
  /** k of m_k. */
  readonly k: number;
  /** α, β, γ. */
  readonly weights: SimilarityWeights;
  /** Resolved spreading options, or null when spreading is off. */
  readonly spreading: Required<SpreadingOptions> | null;
  private readonly memberSet = new Set<number>();
  private readonly memberList: number[] = [];
  private readonly rows = new Map<number, Map<number, number>>();
  private readonly cached = new Map<number, number>();
  private spread: Map<number, number> | null = null;
  private spreadAt = 0;
  private reps: number[] = [];
  private buffer = new Float64Array(64);

  constructor(options: MembershipOptions = {}) {
    this.view = new LinkGraphView(options);
    this.k = options.k ?? DEFAULT_MEMBERSHIP_K;
    if (!Number.isInteger(this.k) || this.k < 1) throw new RangeError(`k: a positive integer, got ${this.k}`);
    this.weights = options.weights ?? DEFAULT_SIMILARITY_WEIGHTS;
    const s = options.spreading;
    if (s === undefined || s === false) this.spreading = null;
    else {
      const resolved = {
        representatives: s.representatives ?? 16,
        discount: s.discount ?? 0.5,
        maxDistance: s.maxDistance ?? 2,
        refreshEvery: s.refreshEvery ?? 8,
      };
      if (!Number.isInteger(resolved.refreshEvery) || resolved.refreshEvery < 1)
        throw new RangeError(`refreshEvery: a positive integer, got ${resolved.refreshEvery}`);
      if (!Number.isInteger(resolved.representatives) || resolved.representatives < 1)
        throw new RangeError(`representatives: a positive integer, got ${resolved.representatives}`);
      if (!(resolved.discount > 0 && resolved.discount <= 1)) throw new RangeError(`discount: in (0, 1], got ${resolved.discount}`);
      if (!Number.isInteger(resolved.maxDistance) || resolved.maxDistance < 1)
        throw new RangeError(`maxDistance: a positive integer, got ${resolved.maxDistance}`);
      this.spreading = Object.freeze(resolved);
    }
  }

  /** |R|. */
  get size(): number {
    return this.memberList.length;
  }

  /** R in the order pages joined. Do not modify. */
  members(): readonly number[] {
    return this.memberList;
  }

  /** Whether the page is in R. */
  isMember(page: number): boolean {
    return this.memberSet.has(page);
  }

  /**
   * A page was fetched with these out-links and joins R: the view and every affected row are
   * updated. Returns the out-links the view kept (sorted).
   *
   * @throws RangeError if the page was added before.
   */
  add(page: number, outLinks: ArrayLike<number>): readonly number[] {
    const { view } = this;
    const { alpha, beta, gamma } = this.weights;
    const kept = view.addPage(page, outLinks);
    // (1) x is a new common citer of every pair of its targets (where it was recorded as an in-link).
    if (gamma !== 0) {
      const recorded = kept.filter((t) => sortedHas(view.inLinks(t), page));
      const recordedMembers = recorded.filter((t) => this.memberSet.has(t));
      for (const a of recorded) {
        for (const b of recordedMembers) if (b !== a) this.bump(a, b, gamma);
      }
    }
    // (2) s(u, x) for every u related to x.
    const related = new Map<number, number>();
    const add = (u: number, w: number): void => {
      if (u !== page && w !== 0) related.set(u, (related.get(u) ?? 0) + w);
    };
    for (const t of kept) add(t, alpha / 2);
    const citers = view.inLinks(page);
    for (const p of citers) add(p, alpha / 2);
    if (beta !== 0) for (const t of kept) for (const u of view.inLinks(t)) add(u, beta);
    if (gamma !== 0) for (const p of citers) for (const u of view.outLinks(p)) add(u, gamma);
    const own = new Map<number, number>();
    for (const [u, s] of related) {
      this.row(u).set(page, s);
      this.cached.delete(u);
      if (this.memberSet.has(u)) own.set(u, s);
    }
    this.rows.set(page, own);
    this.cached.delete(page);
    this.memberSet.add(page);
    this.memberList.push(page);
    return kept;
  }

  /** {q ∈ R, q ≠ page: s(page, q) > 0} with the values. Do not modify. */
  similarities(page: number): ReadonlyMap<number, number> {
    return this.rows.get(page) ?? EMPTY_ROW;
  }

  /** m_k(page) with respect to R \ {page}; 0 for a page unrelated to R. Any page may be asked. */
  membership(page: number): number {
    const hit = this.cached.get(page);
    if (hit !== undefined) return hit;
    const row = this.rows.get(page);
    let value = 0;
    if (row !== undefined && row.size > 0) {
      if (this.buffer.length < row.size) this.buffer = new Float64Array(row.size * 2);
      let n = 0;
      for (const s of row.values()) this.buffer[n++] = s;
      const sorted = this.buffer.subarray(0, n).sort();
      let sum = 0;
      for (let i = n - 1; i >= 0 && i >= n - this.k; i--) sum += sorted[i] as number;
      value = sum / this.k;
    }
    this.cached.set(page, value);
    return value;
  }

  /** The ranking score: M_k(page) when spreading is on, else m_k(page). */
  score(page: number): number {
    const m = this.membership(page);
    if (this.spreading === null || m === 0) return m;
    return m * (this.spreadScores().get(page) ?? 0);
  }

  /** The current representatives (members of highest m_k, ties to the earlier member); empty when spreading is off. */
  representatives(): readonly number[] {
    if (this.spreading === null) return [];
    this.spreadScores();
    return this.reps;
  }

  /** Σ_{p ∈ reps, p ≠ q} m_k(p) · i^d(q, p) for every page reached, recomputed when R changed. */
  private spreadScores(): ReadonlyMap<number, number> {
    const { representatives, discount, maxDistance, refreshEvery } = this.spreading as Required<SpreadingOptions>;
    if (this.spread !== null && this.memberList.length - this.spreadAt < refreshEvery) return this.spread;
    this.spreadAt = this.memberList.length;
    const ranked = this.memberList.map((p, order) => ({ p, order, m: this.membership(p) }));
    ranked.sort((a, b) => b.m - a.m || a.order - b.order);
    this.reps = ranked.slice(0, representatives).map((r) => r.p);
    const spread = new Map<number, number>();
    for (const rep of this.reps) {
      const m = this.membership(rep);
      if (m === 0) continue;
      const seen = new Set<number>([rep]);
      let layer = [rep];
      let weight = m;
      for (let d = 1; d <= maxDistance && layer.length > 0; d++) {
        weight *= discount;
        const next: number[] = [];
        for (const u of layer) {
          for (const list of [this.view.outLinks(u), this.view.inLinks(u)]) {
            for (const v of list) {
              if (seen.has(v)) continue;
              seen.add(v);
              next.push(v);
              spread.set(v, (spread.get(v) ?? 0) + weight);
            }
          }
        }
        layer = next;
      }
    }
    this.spread = spread;
    return spread;
  }

  private row(page: number): Map<number, number> {
    let row = this.rows.get(page);
    if (row === undefined) this.rows.set(page, (row = new Map()));
    return row;
  }

  private bump(a: number, b: number, w: number): void {
    const row = this.row(a);
    row.set(b, (row.get(b) ?? 0) + w);
    this.cached.delete(a);
  }
}

const EMPTY_ROW: ReadonlyMap<number, number> = new Map();
