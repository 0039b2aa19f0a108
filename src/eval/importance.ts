/**
 * Importance metrics I(P) over a whole graph (SPEC §3; seed 004, Cho, Garcia-Molina & Page, §2), the
 * "true" importance that the evaluation curves compare a crawl against:
 *
 *     IB(P)    = |{ Q ≠ P : Q links to P }|                 backlinks, distinct sources
 *     IR(P)    = (1 − d) + d · Σᵢ IR(Tᵢ) / cᵢ,  d = 0.9       PageRank (./pagerank.ts)
 *     IS(P)    = 1 if title(P) ≥ 1 or body(P) ≥ 10 mentions of the topic word, else 0
 *     IS(P, Q) = cos(tf·idf(P), tf·idf(Q)),  idf(t) = ln(N / df(t))
 *     hot(P)   = IS(P) ≥ 1 ∧ IB(P) ≥ 5                       topic with backlinks (seed 004 §7)
 *     IC(P)    = k₁·IS(P, Q) + k₂·IB(P)                      any weighted sum of importance arrays
 *
 * Every metric comes back as an {@link Importance}: the values (one per page, a Float64Array of
 * length n) and a {@link ImportanceSpec} that names the metric and its parameters, so each curve and
 * each report says what "important" meant.
 *
 * Departures, on purpose:
 * - IB counts distinct source pages: a page that links to P twice gives P one backlink, and a link
 *   from P to itself gives none (both configurable). The paper counts "links"; on real pages repeated
 *   links (navigation bars, "top of page") would otherwise dominate the count.
 * - IR by default runs on the graph with repeated links removed, so it sees the same links as IB.
 * - idf is ln(N / df), df = pages containing the term; the paper describes it as one over the term's
 *   count in the collection. The cosine measure of the paper is kept. Where terms sit (title or body)
 *   and how they are weighted is the caller's choice when it builds the term vectors.
 */
import { pageRank, DEFAULT_DAMPING, DEFAULT_MAX_ITERATIONS, DEFAULT_TOLERANCE, type PageRankOptions } from './pagerank.js';
import type { Csr } from './csr.js';
import { specLabel, type SpecValue, type StrategySpec } from '../core/strings.js';

/** What an importance array measures: `backlinks`, `pagerank`, `topic`, `similarity`, ... */
export type ImportanceSpec = StrategySpec;

/** An importance metric evaluated on every page: `values[p]` = I(p), and what produced it. */
export interface Importance {
  readonly spec: ImportanceSpec;
  /** One finite value per page, length n. */
  readonly values: Float64Array;
}

/**
 * The graph with repeated links removed: each (u → v) kept once, at its first position; self-links
 * are kept. Allocates new arrays; the input is not changed.
 */
export function distinctLinks(graph: Csr): Csr {
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  const lastSource = new Int32Array(n).fill(-1);
  const kept = new Uint32Array(offsets[n] as number);
  const newOffsets = new Uint32Array(n + 1);
  let m = 0;
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1] as number;
    for (let e = offsets[u] as number; e < end; e++) {
      const v = targets[e] as number;
      if (lastSource[v] === u) continue;
      lastSource[v] = u;
      kept[m++] = v;
    }
    newOffsets[u + 1] = m;
  }
  return { nodeCount: n, offsets: newOffsets, targets: kept.slice(0, m) };
}

/** Options of {@link backlinkImportance}. */
export interface BacklinkOptions {
  /** Whether a page's link to itself counts as one of its backlinks. Default false. */
  readonly countSelfLinks?: boolean;
}

/** IB(P): the number of distinct pages linking to P over the whole graph. O(n + m). */
export function backlinkImportance(graph: Csr, options: BacklinkOptions = {}): Importance {
  const countSelfLinks = options.countSelfLinks ?? false;
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  const lastSource = new Int32Array(n).fill(-1);
  const values = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1] as number;
    for (let e = offsets[u] as number; e < end; e++) {
      const v = targets[e] as number;
      if (lastSource[v] === u || (v === u && !countSelfLinks)) continue;
      lastSource[v] = u;
      values[v] = (values[v] as number) + 1;
    }
  }
  return { spec: { id: 'backlinks', params: { distinctSources: true, countSelfLinks } }, values };
}

/** Options of {@link pageRankImportance}: those of {@link pageRank}, plus how links are counted. */
export interface PageRankImportanceOptions extends PageRankOptions {
  /** Remove repeated links (u → v twice) before ranking, as IB does. Default true. */
  readonly distinctLinks?: boolean;
}

/** IR(P): PageRank with d = 0.9 by default (./pagerank.ts), mean value 1. */
export function pageRankImportance(graph: Csr, options: PageRankImportanceOptions = {}): Importance {
  const { distinctLinks: isDistinct = true, ...rankOptions } = options;
  const params: Record<string, SpecValue> = {
    damping: DEFAULT_DAMPING,
    tolerance: DEFAULT_TOLERANCE,
    maxIterations: DEFAULT_MAX_ITERATIONS,
  };
  for (const [key, value] of Object.entries(rankOptions)) {
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') params[key] = value;
  }
  params['distinctLinks'] = isDistinct;
  const values = pageRank(isDistinct ? distinctLinks(graph) : graph, rankOptions);
  return { spec: { id: 'pagerank', params }, values };
}

/** Options of {@link topicImportance}. */
export interface TopicOptions {
  /** The topic word the counts are of (a label: the caller counted it). */
  readonly topic: string;
  /** A page is hot with at least this many mentions in its title. Default 1. */
  readonly minTitleCount?: number;
  /** ... or at least this many in its body. Default 10. */
  readonly minBodyCount?: number;
}

/**
 * IS(P) for a topic word: 1 for a page on the topic (title mentions ≥ `minTitleCount` or body
 * mentions ≥ `minBodyCount`), else 0. The counts are per page, computed by the caller.
 *
 * @throws RangeError if the two arrays differ in length.
 */
export function topicImportance(titleCounts: ArrayLike<number>, bodyCounts: ArrayLike<number>, options: TopicOptions): Importance {
  const minTitleCount = options.minTitleCount ?? 1;
  const minBodyCount = options.minBodyCount ?? 10;
  if (titleCounts.length !== bodyCounts.length) {
    throw new RangeError(`topicImportance: ${titleCounts.length} title counts but ${bodyCounts.length} body counts`);
  }
  const values = new Float64Array(titleCounts.length);
  for (let p = 0; p < values.length; p++) {
    if ((titleCounts[p] as number) >= minTitleCount || (bodyCounts[p] as number) >= minBodyCount) values[p] = 1;
  }
  return { spec: { id: 'topic', params: { topic: options.topic, minTitleCount, minBodyCount } }, values };
}

/** A sparse term vector: `terms` strictly ascending term ids, `weights[i]` the weight of `terms[i]`. */
export interface SparseVector {
  readonly terms: Uint32Array;
  readonly weights: Float64Array;
}

/** A {@link SparseVector} from (term, weight) pairs in any order: repeated terms add up, zeros are dropped. */
export function sparseVector(entries: Iterable<readonly [term: number, weight: number]>): SparseVector {
  const sums = new Map<number, number>();
  for (const [term, weight] of entries) sums.set(term, (sums.get(term) ?? 0) + weight);
  const terms = Uint32Array.from([...sums.keys()].filter((t) => sums.get(t) !== 0)).sort();
  return { terms, weights: Float64Array.from(terms, (t) => sums.get(t) as number) };
}

/** idf(t) = ln(N / df(t)) for each term id; 0 for a term no document contains. */
export function inverseDocumentFrequency(documentFrequency: ArrayLike<number>, documentCount: number): Float64Array {
  return Float64Array.from({ length: documentFrequency.length }, (_, t) => {
    const df = documentFrequency[t] as number;
    return df > 0 ? Math.log(documentCount / df) : 0;
  });
}

/**
 * The vector's weights times idf(term): term frequencies become tf·idf weights.
 *
 * @throws RangeError if a term id has no idf entry.
 */
export function tfIdf(tf: SparseVector, idf: ArrayLike<number>): SparseVector {
  const weights = new Float64Array(tf.terms.length);
  for (let i = 0; i < weights.length; i++) {
    const term = tf.terms[i] as number;
    if (term >= idf.length) throw new RangeError(`tfIdf: term ${term} has no idf (table of ${idf.length})`);
    weights[i] = (tf.weights[i] as number) * (idf[term] as number);
  }
  return { terms: tf.terms, weights };
}

/**
 * Cosine of two sparse vectors, a·b / (|a|·|b|); 0 when either is the zero vector. O(|a| + |b|).
 *
 * @throws RangeError if the terms of a vector are not strictly ascending.
 */
export function cosineSimilarity(a: SparseVector, b: SparseVector): number {
  const norm = (v: SparseVector): number => {
    let s = 0;
    for (let i = 0; i < v.terms.length; i++) {
      if (i > 0 && (v.terms[i] as number) <= (v.terms[i - 1] as number)) {
        throw new RangeError(`cosineSimilarity: terms must be strictly ascending (term ${v.terms[i]} at ${i})`);
      }
      s += (v.weights[i] as number) ** 2;
    }
    return Math.sqrt(s);
  };
  const na = norm(a);
  const nb = norm(b);
  if (na === 0 || nb === 0) return 0;
  let dot = 0;
  for (let i = 0, j = 0; i < a.terms.length && j < b.terms.length;) {
    const ta = a.terms[i] as number;
    const tb = b.terms[j] as number;
    if (ta === tb) dot += (a.weights[i++] as number) * (b.weights[j++] as number);
    else if (ta < tb) i++;
    else j++;
  }
  return dot / (na * nb);
}

/** Options of {@link similarityImportance}. */
export interface SimilarityOptions {
  /** The driving query Q as text (a label for the spec). */
  readonly query: string;
  /** idf per term id; without it the vectors are used as given (already weighted, or plain tf). */
  readonly idf?: ArrayLike<number>;
}

/** IS(P, Q) for every page: the cosine of the page's term vector and the query's, tf·idf weighted if `idf` is given. */
export function similarityImportance(pages: readonly SparseVector[], query: SparseVector, options: SimilarityOptions): Importance {
  const { idf } = options;
  const q = idf === undefined ? query : tfIdf(query, idf);
  const values = Float64Array.from(pages, (page) => cosineSimilarity(idf === undefined ? page : tfIdf(page, idf), q));
  return { spec: { id: 'similarity', params: { query: options.query, idf: idf !== undefined } }, values };
}

/** Options of {@link topicWithBacklinks}. */
export interface TopicWithBacklinksOptions {
  /** Minimum topic importance for a page to be on the topic. Default 1 (a {@link topicImportance} hit). */
  readonly minTopic?: number;
  /** Minimum backlink importance. Default 5. */
  readonly minBacklinks?: number;
}

/** hot(P) = topic(P) ≥ minTopic ∧ backlinks(P) ≥ minBacklinks, as 1 / 0 (seed 004 §7, defaults 1 and 5). */
export function topicWithBacklinks(topic: Importance, backlinks: Importance, options: TopicWithBacklinksOptions = {}): Importance {
  const minTopic = options.minTopic ?? 1;
  const minBacklinks = options.minBacklinks ?? 5;
  const n = sameLength('topicWithBacklinks', [topic, backlinks]);
  const values = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    if ((topic.values[p] as number) >= minTopic && (backlinks.values[p] as number) >= minBacklinks) values[p] = 1;
  }
  return {
    spec: {
      id: 'topic-and-backlinks',
      params: { topic: specLabel(topic.spec), minTopic, backlinks: specLabel(backlinks.spec), minBacklinks },
    },
    values,
  };
}

/** One term k·I of a {@link weightedSum}. */
export interface WeightedTerm {
  readonly importance: Importance;
  readonly weight: number;
}

/** IC(P) = Σ kᵢ·Iᵢ(P), e.g. k₁·IS(P, Q) + k₂·IB(P). @throws RangeError on no terms or different lengths. */
export function weightedSum(terms: readonly WeightedTerm[]): Importance {
  if (terms.length === 0) throw new RangeError('weightedSum: no terms');
  const n = sameLength(
    'weightedSum',
    terms.map((t) => t.importance),
  );
  const values = new Float64Array(n);
  for (const { importance, weight } of terms) {
    for (let p = 0; p < n; p++) values[p] = (values[p] as number) + weight * (importance.values[p] as number);
  }
  return {
    spec: { id: 'weighted-sum', params: { of: terms.map((t) => specLabel(t.importance.spec)), weights: terms.map((t) => t.weight) } },
    values,
  };
}

/** The hot pages I(P) ≥ G as a mask (1 = hot). @throws RangeError if a value is NaN. */
export function hotMask(values: Float64Array, threshold: number): Uint8Array {
  const mask = new Uint8Array(values.length);
  for (let p = 0; p < values.length; p++) {
    const v = values[p] as number;
    if (Number.isNaN(v)) throw new RangeError(`hotMask: importance of page ${p} is NaN`);
    if (v >= threshold) mask[p] = 1;
  }
  return mask;
}

function sameLength(what: string, all: readonly Importance[]): number {
  const n = (all[0] as Importance).values.length;
  for (const imp of all) {
    if (imp.values.length !== n) throw new RangeError(`${what}: ${specLabel(imp.spec)} has ${imp.values.length} pages, expected ${n}`);
  }
  return n;
}
