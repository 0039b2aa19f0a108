/**
 * How well a crawler's retrieved set S matches a community (SPEC §5; seed 002 §3, Costa & Frasconi),
 * against a graph whose true communities are known:
 *
 *     cohesion  = |{(u, v) ∈ E : u ∈ S and v ∈ S}| / |{(u, v) ∈ E : u ∈ S or v ∈ S}|
 *     C         = the community holding most pages of S (ties: the smaller community id)
 *     precision = |S ∩ C| / |S|          recall = |S ∩ C| / |C|
 *
 * plus their means over crawlers, the overlap (N − I)/N of the crawlers' sets, and the paper's
 * synthetic benchmark graph (`ringCommunityGraph`).
 *
 * The graph: communities V_t of n pages each; page i of V_t links to (i + z) mod n for z ∈ [−⌊k/2⌋,
 * ⌊k/2⌋], z ≠ 0, then to o pages of other communities, drawn with `Rng(seed, Purpose.community, g)`
 * (g = global page id): community (t + 1 + r) mod T, r uniform in [0, T − 2], page uniform in it.
 * This is the rule of the test web's `community` link model (src/web/links.ts), which is private to
 * a higher layer and reads a whole web model; the generator here repeats it on its own, so the same
 * (seed, n, T, k, o) gives the same links as the test web's community pages.
 *
 * Departures: cohesion counts repeated edges as often as they appear (the ring has none); an empty S
 * has cohesion, precision and recall 0.
 */
import { Purpose, Rng } from '../core/prng.js';
import { csrFromEdges, type Csr } from './csr.js';

/** The scores of one retrieved set. */
export interface CommunityScores {
  /** |S|. */
  readonly size: number;
  /** Edges with both ends in S over edges with at least one end in S; 0 when none. */
  readonly cohesion: number;
  /** The majority community C of S, or −1 for an empty S. */
  readonly majority: number;
  /** |S ∩ C| / |S|. */
  readonly precision: number;
  /** |S ∩ C| / |C|. */
  readonly recall: number;
}

/**
 * Cohesion, majority community, precision and recall of the set `pages` (repeats count once).
 *
 * @param community the community of each page (−1 for none: such pages never form a majority).
 * @throws RangeError if a page id is out of range or `community` is shorter than the graph.
 */
export function communityScores(graph: Csr, community: Int32Array, pages: ArrayLike<number>): CommunityScores {
  const n = graph.nodeCount;
  if (community.length < n) throw new RangeError(`communityScores: ${community.length} community labels for ${n} pages`);
  const inSet = new Uint8Array(n);
  let size = 0;
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i] as number;
    if (!(p >= 0 && p < n)) throw new RangeError(`communityScores: page ${p} is not in the graph (${n} pages)`);
    if (inSet[p] === 0) size++;
    inSet[p] = 1;
  }
  if (size === 0) return { size: 0, cohesion: 0, majority: -1, precision: 0, recall: 0 };
  let inside = 0;
  let touching = 0;
  for (let u = 0; u < n; u++) {
    const end = graph.offsets[u + 1] as number;
    const from = inSet[u] as number;
    for (let e = graph.offsets[u] as number; e < end; e++) {
      const to = inSet[graph.targets[e] as number] as number;
      if (from + to === 2) inside++;
      if (from + to > 0) touching++;
    }
  }
  const counts = new Map<number, number>();
  const sizes = new Map<number, number>();
  for (let p = 0; p < n; p++) {
    const c = community[p] as number;
    if (c < 0) continue;
    sizes.set(c, (sizes.get(c) ?? 0) + 1);
    if (inSet[p] === 1) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  let majority = -1;
  let best = 0;
  for (const [c, count] of counts) {
    if (count > best || (count === best && c < majority)) {
      majority = c;
      best = count;
    }
  }
  return {
    size,
    cohesion: touching === 0 ? 0 : inside / touching,
    majority,
    precision: best / size,
    recall: majority < 0 ? 0 : best / (sizes.get(majority) as number),
  };
}

/** Means of cohesion, precision and recall over several sets. */
export interface MeanCommunityScores {
  readonly cohesion: number;
  readonly precision: number;
  readonly recall: number;
  /** Distinct majority communities among the sets. */
  readonly distinctMajorities: number;
}

/** The mean scores of several sets (all 0 for none). */
export function meanCommunityScores(scores: readonly CommunityScores[]): MeanCommunityScores {
  if (scores.length === 0) return { cohesion: 0, precision: 0, recall: 0, distinctMajorities: 0 };
  const mean = (pick: (s: CommunityScores) => number): number => scores.reduce((sum, s) => sum + pick(s), 0) / scores.length;
  return {
    cohesion: mean((s) => s.cohesion),
    precision: mean((s) => s.precision),
    recall: mean((s) => s.recall),
    distinctMajorities: new Set(scores.map((s) => s.majority).filter((c) => c >= 0)).size,
  };
}

/** Overlap (N − I)/N of the crawlers' sets: N pages retrieved in all, I distinct among them; 0 when N = 0. */
export function setOverlap(sets: readonly ArrayLike<number>[]): number {
  const unique = new Set<number>();
  let total = 0;
  for (const set of sets) {
    total += set.length;
    for (let i = 0; i < set.length; i++) unique.add(set[i] as number);
  }
  return total === 0 ? 0 : (total - unique.size) / total;
}

/** Parameters of {@link ringCommunityGraph}. */
export interface RingCommunityGraphOptions {
  /** Number of communities T (the paper: 17); at least 2 when o > 0. */
  readonly communities: number;
  /** Pages per community n (the paper: 100). */
  readonly size: number;
  /** Ring links per page k (the paper: 32): ⌊k/2⌋ each side. */
  readonly k: number;
  /** Links per page to other communities o (the paper: 2). */
  readonly o: number;
  /** Seed of the random links. */
  readonly seed: number;
}

/** A graph with known communities. */
export interface CommunityGraph {
  readonly graph: Csr;
  /** Community of each page: page g is in community ⌊g / size⌋. */
  readonly community: Int32Array;
}

/** The paper's synthetic graph of ring communities; see the file comment. */
export function ringCommunityGraph(options: RingCommunityGraphOptions): CommunityGraph {
  const { communities: count, size, k, o, seed } = options;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(size) || size < 1)
    throw new RangeError('ringCommunityGraph: communities and size are positive integers');
  if (!Number.isInteger(k) || k < 0 || !Number.isInteger(o) || o < 0)
    throw new RangeError('ringCommunityGraph: k and o are non-negative integers');
  if (o > 0 && count < 2) throw new RangeError('ringCommunityGraph: links to other communities need at least 2 communities');
  const half = Math.floor(k / 2);
  const n = count * size;
  const perPage = 2 * half + o;
  const src = new Uint32Array(n * perPage);
  const dst = new Uint32Array(n * perPage);
  const community = new Int32Array(n);
  let e = 0;
  for (let g = 0; g < n; g++) {
    const t = Math.floor(g / size);
    const start = t * size;
    const i = g - start;
    community[g] = t;
    for (let z = -half; z <= half; z++) {
      if (z === 0) continue;
      src[e] = g;
      dst[e++] = start + ((((i + z) % size) + size) % size);
    }
    const rng = new Rng(seed, Purpose.community, g);
    for (let j = 0; j < o; j++) {
      const other = (t + 1 + rng.int(count - 1)) % count;
      src[e] = g;
      dst[e++] = other * size + rng.int(size);
    }
  }
  return { graph: csrFromEdges(n, src.subarray(0, e), dst.subarray(0, e)), community };
}

/** One node's scores. */
export interface NodeCommunityScores extends CommunityScores {
  readonly node: string;
}

/** The community metrics of a crawl, as `src/cluster/read-community.ts` reads them from a crawl directory. */
export interface CommunityEval {
  readonly nodes: readonly NodeCommunityScores[];
  /** Means over the nodes that downloaded a page of the truth. */
  readonly mean: MeanCommunityScores;
  /** (N − I)/N over the nodes' sets of truth pages (a page a node fetched twice counts once for it). */
  readonly overlap: number;
}
