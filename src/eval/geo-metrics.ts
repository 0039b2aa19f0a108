/**
 * The metrics of a geographically focused collaborative crawl (SPEC §4.3 and §5; seed 003, Gao, Lee
 * & Miao, §4 "Evaluation models" and §5.3 "Geographic locality"). A *geographic entity* is a street
 * address in a target city; a *geo page* holds at least one. Pages are integer ids 0..n−1.
 *
 * - **geo coverage** = downloads of geo pages / downloads (every node's, with multiplicity), and the
 *   same over distinct pages.
 * - **geo focus** of a geo-sensitive node = of its distinct downloaded geo pages, the share with an
 *   entity in one of *its* cities. The headline is the unweighted mean over geo-sensitive nodes (the
 *   paper reports each node and their average); the pooled share Σ own / Σ geo pages is given too.
 * - **unique-entity ratio** = distinct entities / entity occurrences over the downloads (a page
 *   downloaded twice counts its entities twice, as the paper counts retrieved pages).
 * - **geo centrality** GC_k(p) = Σ_{q geo, GD(p,q) ≤ k} (1/m)^GD(p,q), k = 2, m = 10: a geo page at
 *   distance 0, 1, 2 counts 1, 0.1, 0.01. GD follows out-links (the paper's user navigating from p)
 *   *within the downloaded subgraph*: only downloaded pages are walked and counted, as the paper
 *   computes it on the retrieved pages. Reported as the mean over distinct downloaded pages.
 * - **geographic locality** δ = of the linked pairs {p, q} (p ≠ q, both downloaded, a link either
 *   way, each pair once), the share with the same argmax city; δ̃ = the same over unlinked pairs,
 *   drawn uniformly (or all of them when there are no more than the sample size).
 *
 * Departures, on purpose:
 * - The paper lets gs(p, q) = 1 when the two argmax values are equal; two pages about no city would
 *   then be "the same city" and swamp both δ and δ̃. gs is the probability that both pages are about
 *   the same city, so a pair counts only when at least one page has a city, and is the same only
 *   when both have that city. The number of pairs counted is reported beside each share.
 * - The paper writes κ_k(p) = {q : GD(p,q) < k} but its worked example (k = 2) counts distance 2, so
 *   GD ≤ k here.
 * - Entities of a city that is no target count nowhere (the paper's entities are target addresses).
 *
 * Overlap, diversity and communication overhead are in collab-metrics.ts; they are not repeated here.
 * No I/O: src/cluster/read-geo.ts builds the input from a crawl directory and a truth export.
 */
import { Rng } from '../core/prng.js';
import { csrFromEdges, type Csr } from './csr.js';

/**
 * The purpose word of the draw of unlinked pairs: any constant apart from the test web's `Purpose`
 * values, which name the generator's streams (this draw is no part of the test web).
 */
const SAMPLE_STREAM = 0x67656f;

/** Geographic entities per page, in CSR form. */
export interface PageEntities {
  /** pageCount + 1 entries: the entities of page p are indices offsets[p] .. offsets[p + 1] − 1. */
  readonly offsets: Uint32Array;
  /** Target index of each entity's city, −1 for a city that is no target (such an entity is ignored). */
  readonly city: Int32Array;
  /** Canonical key of each entity: equal keys are one entity. */
  readonly key: readonly string[];
}

/** One node of the crawl. */
export interface GeoNodeInput {
  /** Node id. */
  readonly node: string;
  /** Target indices the node is responsible for; empty for a general node. */
  readonly cities: readonly number[];
  /** Page ids the node downloaded itself, with multiplicity. */
  readonly pages: ArrayLike<number>;
}

/** Parameters of {@link geoMetrics}. */
export interface GeoMetricsOptions {
  /** k of GC_k: the largest link distance counted. Default 2. */
  readonly centralityDepth?: number;
  /** m of GC_k: each link followed divides the weight by m. Default 10. */
  readonly centralityBase?: number;
  /** Unlinked pairs drawn for δ̃ (all of them when there are no more). Default 100 000. */
  readonly unlinkedSamples?: number;
  /** Seed of the draw of unlinked pairs. Default 0. */
  readonly seed?: number;
}

/** Input of {@link geoMetrics}. */
export interface GeoMetricsInput {
  /** Number of page ids n; every id below is < n. */
  readonly pageCount: number;
  /** The nodes, in the order the rows should appear. */
  readonly nodes: readonly GeoNodeInput[];
  readonly entities: PageEntities;
  /** Links between pages (any pages; only those between downloaded pages are used). */
  readonly links: Csr;
  /** Argmax city (target index) of each page, −1 for none: the labelling δ and δ̃ judge. */
  readonly cityOf: Int32Array;
  readonly options?: GeoMetricsOptions;
}

/** Geo coverage with its counts. */
export interface GeoCoverage {
  /** Downloads of every node, with multiplicity. */
  readonly downloads: number;
  /** Of them, downloads of geo pages. */
  readonly geoDownloads: number;
  /** geoDownloads / downloads; null when nothing was downloaded. */
  readonly coverage: number | null;
  readonly uniquePages: number;
  readonly uniqueGeoPages: number;
  /** uniqueGeoPages / uniquePages; null when nothing was downloaded. */
  readonly uniqueCoverage: number | null;
}

/** One node's row of geo focus. */
export interface GeoFocusRow {
  readonly node: string;
  /** Number of target cities it owns (0: a general node). */
  readonly cities: number;
  /** Distinct pages it downloaded. */
  readonly pages: number;
  /** Of them, geo pages. */
  readonly geoPages: number;
  /** Of those, pages with an entity in one of its cities. */
  readonly ownPages: number;
  /** ownPages / geoPages; null for a general node or one without geo pages. */
  readonly focus: number | null;
}

/** Geo focus over the geo-sensitive nodes. */
export interface GeoFocus {
  /** Every node, general ones included (focus null). */
  readonly nodes: readonly GeoFocusRow[];
  /** Headline: unweighted mean of the defined focus values of geo-sensitive nodes; null when none. */
  readonly mean: number | null;
  /** Σ ownPages / Σ geoPages over geo-sensitive nodes (weighted by geo pages); null when Σ = 0. */
  readonly pooled: number | null;
}

/** Unique-entity ratio with its counts. */
export interface UniqueEntities {
  /** Target entities over the downloads, with multiplicity. */
  readonly entities: number;
  /** Distinct keys among them. */
  readonly unique: number;
  /** unique / entities; null when there is none. */
  readonly ratio: number | null;
}

/** Mean geo centrality. */
export interface GeoCentrality {
  readonly k: number;
  readonly m: number;
  /** Distinct downloaded pages: the pages averaged over. */
  readonly pages: number;
  /** Of them, geo pages. */
  readonly geoPages: number;
  /** Mean GC_k over the downloaded pages; null when none. */
  readonly mean: number | null;
}

/** One share of {@link GeoLocality}. */
export interface PairShare {
  /** Pairs looked at (linked: all; unlinked: drawn). */
  readonly pairs: number;
  /** Of them, pairs where at least one page has a city: the denominator. */
  readonly counted: number;
  /** Of those, pairs whose two pages have the same city. */
  readonly same: number;
  /** same / counted; null when counted = 0. */
  readonly share: number | null;
}

/** δ and δ̃. */
export interface GeoLocality {
  /** δ over linked pairs. */
  readonly linked: PairShare;
  /** δ̃ over unlinked pairs. */
  readonly unlinked: PairShare & {
    /** Every unlinked pair was looked at (no more of them than the sample size). */
    readonly isExact: boolean;
  };
}

/** Every geographic metric of a crawl (plain JSON). */
export interface GeoMetrics {
  readonly coverage: GeoCoverage;
  readonly focus: GeoFocus;
  readonly uniqueEntities: UniqueEntities;
  readonly centrality: GeoCentrality;
  readonly locality: GeoLocality;
}

/** Computes every geographic metric of SPEC §5 (see the file comment for each formula). */
export function geoMetrics(input: GeoMetricsInput): GeoMetrics {
  const { pageCount: n, nodes, entities, links, cityOf } = input;
  const o = input.options ?? {};
  checkInput(input);
  const isGeo = geoPages(entities, n);
  const downloaded = new Uint8Array(n);
  for (const node of nodes) for (let i = 0; i < node.pages.length; i++) downloaded[node.pages[i] as number] = 1;
  return {
    coverage: geoCoverage(nodes, isGeo),
    focus: geoFocus(nodes, entities),
    uniqueEntities: uniqueEntityRatio(nodes, entities),
    centrality: meanGeoCentrality(links, downloaded, isGeo, o.centralityDepth ?? 2, o.centralityBase ?? 10),
    locality: geoLocality(links, downloaded, cityOf, o.unlinkedSamples ?? 100_000, new Rng(o.seed ?? 0, SAMPLE_STREAM, 0)),
  };
}

function checkInput({ pageCount: n, nodes, entities, links, cityOf }: GeoMetricsInput): void {
  if (entities.offsets.length !== n + 1)
    throw new RangeError(`geoMetrics: entity offsets have ${entities.offsets.length} entries, expected ${n + 1}`);
  if (links.nodeCount !== n) throw new RangeError(`geoMetrics: the link graph has ${links.nodeCount} nodes, expected ${n}`);
  if (cityOf.length !== n) throw new RangeError(`geoMetrics: cityOf has ${cityOf.length} entries, expected ${n}`);
  for (const node of nodes)
    for (let i = 0; i < node.pages.length; i++) {
      const p = node.pages[i] as number;
      if (!Number.isInteger(p) || p < 0 || p >= n)
        throw new RangeError(`geoMetrics: node ${node.node} downloaded page ${p}, outside 0..${n - 1}`);
    }
}

/** 1 for each page with at least one entity of a target city. */
export function geoPages(entities: PageEntities, pageCount: number): Uint8Array {
  const out = new Uint8Array(pageCount);
  for (let p = 0; p < pageCount; p++) {
    for (let e = entities.offsets[p] as number; e < (entities.offsets[p + 1] as number); e++) {
      if ((entities.city[e] as number) >= 0) {
        out[p] = 1;
        break;
      }
    }
  }
  return out;
}

/** Geo coverage: downloads of geo pages / downloads, with multiplicity and over distinct pages. */
export function geoCoverage(nodes: readonly Pick<GeoNodeInput, 'pages'>[], isGeo: Uint8Array): GeoCoverage {
  const unique = new Set<number>();
  let downloads = 0;
  let geoDownloads = 0;
  for (const { pages } of nodes) {
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i] as number;
      downloads++;
      geoDownloads += isGeo[p] as number;
      unique.add(p);
    }
  }
  let uniqueGeoPages = 0;
  for (const p of unique) uniqueGeoPages += isGeo[p] as number;
  return {
    downloads,
    geoDownloads,
    coverage: downloads === 0 ? null : geoDownloads / downloads,
    uniquePages: unique.size,
    uniqueGeoPages,
    uniqueCoverage: unique.size === 0 ? null : uniqueGeoPages / unique.size,
  };
}

/** Geo focus of every node over its distinct pages; the means over the geo-sensitive nodes. */
export function geoFocus(nodes: readonly GeoNodeInput[], entities: PageEntities): GeoFocus {
  const rows = nodes.map((node): GeoFocusRow => {
    const mine = new Set(node.cities);
    const pages = new Set<number>();
    for (let i = 0; i < node.pages.length; i++) pages.add(node.pages[i] as number);
    let geo = 0;
    let own = 0;
    for (const p of pages) {
      let isGeo = false;
      let isOwn = false;
      for (let e = entities.offsets[p] as number; e < (entities.offsets[p + 1] as number); e++) {
        const c = entities.city[e] as number;
        if (c < 0) continue;
        isGeo = true;
        if (mine.has(c)) isOwn = true;
      }
      if (isGeo) geo++;
      if (isOwn) own++;
    }
    const isSensitive = mine.size > 0;
    return {
      node: node.node,
      cities: mine.size,
      pages: pages.size,
      geoPages: geo,
      ownPages: own,
      focus: isSensitive && geo > 0 ? own / geo : null,
    };
  });
  let sum = 0;
  let defined = 0;
  let own = 0;
  let geo = 0;
  for (const r of rows) {
    if (r.cities === 0) continue;
    own += r.ownPages;
    geo += r.geoPages;
    if (r.focus === null) continue;
    sum += r.focus;
    defined++;
  }
  return { nodes: rows, mean: defined === 0 ? null : sum / defined, pooled: geo === 0 ? null : own / geo };
}

/** Distinct target entities / target entity occurrences over every download. */
export function uniqueEntityRatio(nodes: readonly Pick<GeoNodeInput, 'pages'>[], entities: PageEntities): UniqueEntities {
  const keys = new Set<string>();
  let count = 0;
  for (const { pages } of nodes) {
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i] as number;
      for (let e = entities.offsets[p] as number; e < (entities.offsets[p + 1] as number); e++) {
        if ((entities.city[e] as number) < 0) continue;
        count++;
        keys.add(entities.key[e] as string);
      }
    }
  }
  return { entities: count, unique: keys.size, ratio: count === 0 ? null : keys.size / count };
}

/**
 * GC_k of every downloaded page (0 for the others): a breadth-first walk of depth k along out-links
 * through downloaded pages only, each page reached once at its shortest distance d, adding (1/m)^d
 * for each geo page. Cost: the edges within k − 1 links of each page (about n·deg^(k−1) for k = 2).
 */
export function geoCentralities(links: Csr, isDownloaded: Uint8Array, isGeo: Uint8Array, k = 2, m = 10): Float64Array {
  if (!Number.isInteger(k) || k < 0) throw new RangeError(`geoCentralities: k must be a non-negative integer, got ${k}`);
  if (!(m > 0)) throw new RangeError(`geoCentralities: m must be positive, got ${m}`);
  const n = links.nodeCount;
  const { offsets, targets } = links;
  const out = new Float64Array(n);
  const stamp = new Int32Array(n).fill(-1);
  let frontier: Uint32Array = new Uint32Array(16);
  let next: Uint32Array = new Uint32Array(16);
  for (let p = 0; p < n; p++) {
    if (isDownloaded[p] !== 1) continue;
    stamp[p] = p;
    let sum = isGeo[p] as number;
    frontier[0] = p;
    let size = 1;
    let weight = 1;
    for (let d = 1; d <= k && size > 0; d++) {
      weight /= m;
      let nextSize = 0;
      for (let i = 0; i < size; i++) {
        const u = frontier[i] as number;
        const end = offsets[u + 1] as number;
        for (let e = offsets[u] as number; e < end; e++) {
          const v = targets[e] as number;
          if (stamp[v] === p || isDownloaded[v] !== 1) continue;
          stamp[v] = p;
          if (isGeo[v] === 1) sum += weight;
          if (d === k) continue;
          if (nextSize === next.length) next = grow(next);
          next[nextSize++] = v;
        }
      }
      [frontier, next] = [next, frontier];
      size = nextSize;
    }
    out[p] = sum;
  }
  return out;
}

function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Mean GC_k over the downloaded pages ({@link geoCentralities}). */
export function meanGeoCentrality(links: Csr, isDownloaded: Uint8Array, isGeo: Uint8Array, k = 2, m = 10): GeoCentrality {
  const gc = geoCentralities(links, isDownloaded, isGeo, k, m);
  let pages = 0;
  let geo = 0;
  let sum = 0;
  for (let p = 0; p < gc.length; p++) {
    if (isDownloaded[p] !== 1) continue;
    pages++;
    geo += isGeo[p] as number;
    sum += gc[p] as number;
  }
  return { k, m, pages, geoPages: geo, mean: pages === 0 ? null : sum / pages };
}

/**
 * The undirected graph of the links between downloaded pages: each neighbour list sorted, without
 * repeats or self-links.
 */
export function downloadedNeighbours(links: Csr, isDownloaded: Uint8Array): Csr {
  const n = links.nodeCount;
  const src: number[] = [];
  const dst: number[] = [];
  for (let u = 0; u < n; u++) {
    if (isDownloaded[u] !== 1) continue;
    for (let e = links.offsets[u] as number; e < (links.offsets[u + 1] as number); e++) {
      const v = links.targets[e] as number;
      if (v === u || isDownloaded[v] !== 1) continue;
      src.push(u, v);
      dst.push(v, u);
    }
  }
  const both = csrFromEdges(n, Uint32Array.from(src), Uint32Array.from(dst));
  const offsets = new Uint32Array(n + 1);
  const targets = new Uint32Array(both.targets.length);
  let at = 0;
  for (let u = 0; u < n; u++) {
    const list = both.targets.subarray(both.offsets[u] as number, both.offsets[u + 1] as number).sort();
    for (let i = 0; i < list.length; i++) if (i === 0 || list[i] !== list[i - 1]) targets[at++] = list[i] as number;
    offsets[u + 1] = at;
  }
  return { nodeCount: n, offsets, targets: targets.slice(0, at) };
}

/** Whether v is in u's sorted neighbour list. */
function isLinked(g: Csr, u: number, v: number): boolean {
  let lo = g.offsets[u] as number;
  let hi = g.offsets[u + 1] as number;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const t = g.targets[mid] as number;
    if (t === v) return true;
    if (t < v) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

/** A source of uniform integers in [0, n). */
export interface IntSource {
  int(n: number): number;
}

/**
 * δ over the linked pairs of downloaded pages and δ̃ over `samples` unlinked pairs drawn uniformly
 * with `random` (all unlinked pairs, in order, when there are no more than `samples`).
 */
export function geoLocality(links: Csr, isDownloaded: Uint8Array, cityOf: Int32Array, samples: number, random: IntSource): GeoLocality {
  if (!Number.isInteger(samples) || samples < 0)
    throw new RangeError(`geoLocality: samples must be a non-negative integer, got ${samples}`);
  const g = downloadedNeighbours(links, isDownloaded);
  const linked = tally();
  for (let u = 0; u < g.nodeCount; u++) {
    for (let e = g.offsets[u] as number; e < (g.offsets[u + 1] as number); e++) {
      const v = g.targets[e] as number;
      if (v > u) linked.add(cityOf[u] as number, cityOf[v] as number);
    }
  }
  const pages: number[] = [];
  for (let p = 0; p < g.nodeCount; p++) if (isDownloaded[p] === 1) pages.push(p);
  const u = pages.length;
  const unlinkedPairs = (u * (u - 1)) / 2 - linked.pairs;
  const unlinked = tally();
  const isExact = unlinkedPairs <= samples;
  if (isExact) {
    for (let i = 0; i < u; i++)
      for (let j = i + 1; j < u; j++) {
        const p = pages[i] as number;
        const q = pages[j] as number;
        if (!isLinked(g, p, q)) unlinked.add(cityOf[p] as number, cityOf[q] as number);
      }
  } else {
    while (unlinked.pairs < samples) {
      const i = random.int(u);
      let j = random.int(u - 1);
      if (j >= i) j++;
      const p = pages[i] as number;
      const q = pages[j] as number;
      if (!isLinked(g, p, q)) unlinked.add(cityOf[p] as number, cityOf[q] as number);
    }
  }
  return { linked: linked.result(), unlinked: { ...unlinked.result(), isExact } };
}

function tally() {
  let pairs = 0;
  let counted = 0;
  let same = 0;
  return {
    get pairs() {
      return pairs;
    },
    add(a: number, b: number): void {
      pairs++;
      if (a < 0 && b < 0) return;
      counted++;
      if (a === b) same++;
    },
    result: (): PairShare => ({ pairs, counted, same, share: counted === 0 ? null : same / counted }),
  };
}
