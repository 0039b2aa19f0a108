/**
 * The link graph a community crawler has discovered, and the similarity of two of its pages
 * (seed 002 §2, Costa & Frasconi; SPEC §4.4):
 *
 *     s(p, q) = α · l(p, q) + β · f(p, q) + γ · c(p, q)
 *     l(p, q) = 1/2 if one of p → q, q → p is known, 1 if both, else 0
 *     f(p, q) = |C_p ∩ C_q|    bibliographic coupling: common out-links
 *     c(p, q) = |P_p ∩ P_q|    co-citation: common in-links
 *
 * Pages are dense non-negative integer ids. A page enters the view when it is fetched, with its
 * out-links (`addPage`); its targets then learn one more in-link. So C_p is known only for fetched
 * pages, and P_p holds only the fetched pages that link to p: exactly what a crawling node knows.
 * Self-links and repeated links count once (the paper's graph is a set of edges).
 *
 * **Bounded memory** (`maxNeighbours`, default 256): a page keeps its first `maxNeighbours` distinct
 * out-links (document order) and its first `maxNeighbours` in-links (fetch order); later ones are
 * dropped. Every formula above then reads the kept lists, so f, c and l are lower bounds of the exact
 * values, and only for pages past the cap. A page of the paper's graph (k = 32, o = 2) has 34
 * out-links and about as many in-links, so the default cap never bites there; the test
 * (test/unit/order/community/similarity.test.ts) and docs/experiments/community-crawling.md measure
 * what a tight cap costs. Lists are kept sorted, so f and c are one merge: O(|C_p| + |C_q|).
 *
 * Departures: none in the formula; the cap is shoal's, so that a node crawling hubs keeps O(pages ×
 * maxNeighbours) integers rather than the whole Web graph.
 */

/** The weights α, β, γ of s(p, q). */
export interface SimilarityWeights {
  /** α, weight of the direct link l(p, q). Default 1 (the paper's). */
  readonly alpha: number;
  /** β, weight of bibliographic coupling f(p, q). Default 1. */
  readonly beta: number;
  /** γ, weight of co-citation c(p, q). Default 1. */
  readonly gamma: number;
}

/** α = β = γ = 1, as in the paper's experiments. */
export const DEFAULT_SIMILARITY_WEIGHTS: SimilarityWeights = Object.freeze({ alpha: 1, beta: 1, gamma: 1 });

/** Default cap on kept in-links and out-links per page. */
export const DEFAULT_MAX_NEIGHBOURS = 256;

const EMPTY: readonly number[] = Object.freeze([]);

/** Options of {@link LinkGraphView}. */
export interface LinkGraphViewOptions {
  /** Out-links and in-links kept per page (each). Default {@link DEFAULT_MAX_NEIGHBOURS}; at least 1. */
  readonly maxNeighbours?: number;
}

/** Index of `value` in the sorted `list`, or −(insertion point) − 1. */
function search(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = list[mid] as number;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

/** Whether the sorted `list` holds `value`. */
export function sortedHas(list: readonly number[], value: number): boolean {
  return search(list, value) >= 0;
}

/** |a ∩ b| of two sorted lists without repeats, by one merge. */
export function commonCount(a: readonly number[], b: readonly number[]): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

/** An incrementally built link graph over dense page ids, with the similarity s(p, q); see the file comment. */
export class LinkGraphView {
  /** The cap on kept out-links and in-links per page. */
  readonly maxNeighbours: number;
  private readonly out: (number[] | undefined)[] = [];
  private readonly in: (number[] | undefined)[] = [];
  private fetched = 0;

  constructor(options: LinkGraphViewOptions = {}) {
    const cap = options.maxNeighbours ?? DEFAULT_MAX_NEIGHBOURS;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`maxNeighbours: a positive integer, got ${cap}`);
    this.maxNeighbours = cap;
  }

  /** Number of pages added (fetched). */
  get pageCount(): number {
    return this.fetched;
  }

  /**
   * Records a fetched page and its out-links (document order; repeats and self-links ignored; only
   * the first `maxNeighbours` distinct ones kept). Each kept target gains `page` as an in-link if it
   * has room. Returns the kept out-links, sorted.
   *
   * @throws RangeError if the page was added before, or an id is not a non-negative integer.
   */
  addPage(page: number, outLinks: ArrayLike<number>): readonly number[] {
    checkId(page);
    if (this.out[page] !== undefined) throw new RangeError(`page ${page} was added to the link graph before`);
    const kept: number[] = [];
    for (let i = 0; i < outLinks.length && kept.length < this.maxNeighbours; i++) {
      const target = outLinks[i] as number;
      checkId(target);
      if (target === page) continue;
      const at = search(kept, target);
      if (at < 0) kept.splice(-at - 1, 0, target);
    }
    this.out[page] = kept;
    this.fetched++;
    for (const target of kept) {
      let sources = this.in[target];
      if (sources === undefined) this.in[target] = sources = [];
      if (sources.length >= this.maxNeighbours) continue;
      const at = search(sources, page);
      sources.splice(-at - 1, 0, page);
    }
    return kept;
  }

  /** Whether the page was fetched (added). */
  isFetched(page: number): boolean {
    return this.out[page] !== undefined;
  }

  /** Whether the page is known at all: fetched, or linked from a fetched page. */
  isKnown(page: number): boolean {
    return this.out[page] !== undefined || this.in[page] !== undefined;
  }

  /** C_p as kept: sorted out-links (empty if not fetched). Do not modify. */
  outLinks(page: number): readonly number[] {
    return this.out[page] ?? EMPTY;
  }

  /** P_p as kept: sorted fetched pages linking to `page`. Do not modify. */
  inLinks(page: number): readonly number[] {
    return this.in[page] ?? EMPTY;
  }

  /** Whether the link p → q is kept. */
  hasLink(p: number, q: number): boolean {
    const list = this.out[p];
    return list !== undefined && search(list, q) >= 0;
  }

  /** l(p, q): 1/2 for one direction, 1 for both, 0 for none (and for p = q). */
  linkWeight(p: number, q: number): number {
    if (p === q) return 0;
    return ((this.hasLink(p, q) ? 1 : 0) + (this.hasLink(q, p) ? 1 : 0)) / 2;
  }

  /** s(p, q) on the kept lists; 0 for p = q (a page is not its own neighbour). */
  similarity(p: number, q: number, weights: SimilarityWeights = DEFAULT_SIMILARITY_WEIGHTS): number {
    if (p === q) return 0;
    return (
      weights.alpha * this.linkWeight(p, q) +
      weights.beta * commonCount(this.outLinks(p), this.outLinks(q)) +
      weights.gamma * commonCount(this.inLinks(p), this.inLinks(q))
    );
  }
}

function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 0) throw new RangeError(`page ids are non-negative integers, got ${id}`);
}
