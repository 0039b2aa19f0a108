/**
 * Multinomial Naive Bayes over hashed terms (SPEC §4.2; seed 000: X4's classifier of choice):
 *
 *   score(c | d) = log P(c) + Σ_t w_t · log P(t | c),   P(t | c) = (n(t, c) + α) / (N(c) + α·V)
 *
 * where n(t, c) is how often term t occurs in the training documents of category c, N(c) the sum of
 * n(·, c) over the V terms the model keeps, α the Laplace smoothing (1) and w_t the term's weight in
 * d: its idf weight log((N + 1) / df(t)) over the N training documents (or 1 without term
 * weighting), times the title weight in the title. Weighting by idf keeps words common to every
 * topic (year, people, time) from deciding a page by the genre of the training text they came from
 * rather than by its topic words. Terms the model does not keep are skipped, in
 * training and in classification alike. P(c) is uniform, or the share of training documents in c.
 *
 * The posterior reported is softmax(score / T): Naive Bayes treats a page's hundreds of terms as
 * independent evidence, so its raw posterior is 1 to many digits for almost every page; the
 * temperature T ≥ 1 is fitted at training on held-out documents (the one that minimises their
 * log loss), so that a probability of 0.8 is right about 80 % of the time on text like the
 * training text. The category chosen does not depend on T.
 *
 * Classification is a table lookup and a row of additions per term: an id → row table of
 * 2^hashBits entries and the log-likelihoods in one typed array, rows of C categories.
 */
import { createHash } from 'node:crypto';
import type { Classification, Classifier, ClassifierSpec, TextDocument } from './classifier.js';
import { scanTermIds, TermIds, type TermOptions } from './terms.js';

/** How class priors are set. */
export const Priors = { uniform: 'uniform', documents: 'documents' } as const;
export type Priors = (typeof Priors)[keyof typeof Priors];

/** Everything a Naive Bayes model is: what a model file holds. */
export interface NaiveBayesModel {
  readonly categories: readonly string[];
  readonly termOptions: TermOptions;
  /** Weight of a title term against a body term. */
  readonly titleWeight: number;
  /** Laplace smoothing α. */
  readonly smoothing: number;
  readonly priors: Priors;
  /** Softmax temperature of the reported posterior, ≥ 1. */
  readonly temperature: number;
  /** Feature ids kept, ascending, distinct. */
  readonly features: Uint32Array;
  /** Weight of each feature's occurrences (its idf, or 1), in `features` order, finite and > 0. */
  readonly weights: Float32Array;
  /** n(t, c): row per feature (in `features` order), one column per category. */
  readonly counts: Float32Array;
  /** Training documents per category. */
  readonly documents: readonly number[];
}

/** Thrown when a model's fields do not fit together; the message says which. */
export class ModelShapeError extends Error {}

/** Checks a model's internal consistency; throws {@link ModelShapeError} naming the first problem. */
export function checkModel(m: NaiveBayesModel): void {
  const C = m.categories.length;
  if (C < 1) throw new ModelShapeError('a model needs at least one category');
  if (new Set(m.categories).size !== C || m.categories.some((c) => typeof c !== 'string' || c === '')) {
    throw new ModelShapeError('categories must be distinct non-empty strings');
  }
  if (m.counts.length !== m.features.length * C) {
    throw new ModelShapeError(`counts hold ${m.counts.length} values, expected ${m.features.length} features × ${C} categories`);
  }
  if (m.weights.length !== m.features.length)
    throw new ModelShapeError(`weights hold ${m.weights.length} values for ${m.features.length} features`);
  for (const w of m.weights) if (!(w > 0) || !Number.isFinite(w)) throw new ModelShapeError('weights must be finite and positive');
  if (m.documents.length !== C) throw new ModelShapeError(`documents has ${m.documents.length} entries for ${C} categories`);
  const limit = 2 ** m.termOptions.hashBits;
  for (let i = 0; i < m.features.length; i++) {
    const f = m.features[i] as number;
    if (f >= limit || (i > 0 && f <= (m.features[i - 1] as number))) {
      throw new ModelShapeError(`features must be ascending, distinct ids below 2^${m.termOptions.hashBits}`);
    }
  }
  for (const v of m.counts) if (!(v >= 0) || !Number.isFinite(v)) throw new ModelShapeError('counts must be finite and non-negative');
  if (!(m.smoothing > 0)) throw new ModelShapeError('smoothing must be positive');
  if (!(m.temperature >= 1) || !Number.isFinite(m.temperature)) throw new ModelShapeError('temperature must be a finite number >= 1');
  if (!(m.titleWeight >= 0)) throw new ModelShapeError('titleWeight must be >= 0');
}

/** SHA-256 (hex) of a model's content, independent of how it was serialised. */
export function modelDigest(m: NaiveBayesModel): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify({
      categories: m.categories,
      termOptions: m.termOptions,
      titleWeight: m.titleWeight,
      smoothing: m.smoothing,
      priors: m.priors,
      temperature: m.temperature,
      documents: m.documents,
    }),
  );
  h.update(new Uint8Array(m.features.buffer, m.features.byteOffset, m.features.byteLength));
  h.update(new Uint8Array(m.counts.buffer, m.counts.byteOffset, m.counts.byteLength));
  h.update(new Uint8Array(m.weights.buffer, m.weights.byteOffset, m.weights.byteLength));
  return h.digest('hex');
}

/** Log-prior of each category. */
function logPriors(m: NaiveBayesModel): Float64Array {
  const C = m.categories.length;
  const total = m.documents.reduce((a, b) => a + b, 0);
  return Float64Array.from({ length: C }, (_, c) =>
    m.priors === Priors.documents && total > 0 ? Math.log(((m.documents[c] as number) + 1) / (total + C)) : -Math.log(C),
  );
}

/** A classifier over a {@link NaiveBayesModel}; see the file comment. */
export class NaiveBayesClassifier implements Classifier {
  readonly spec: ClassifierSpec;
  readonly categories: readonly string[];
  readonly termOptions: TermOptions;
  readonly model: NaiveBayesModel;
  readonly digest: string;
  /** Feature id → row, −1 for a term the model does not keep. */
  readonly #rowOf: Int32Array;
  /** log P(t | c), row per kept feature. */
  readonly #logLikelihood: Float64Array;
  readonly #weights: Float32Array;
  readonly #logPrior: Float64Array;
  readonly #titleWeight: number;
  readonly #temperature: number;
  /**
   * The ids of the text being scored: scratch space, emptied at the start of each use, so that no
   * call sees what another left (and a classification allocates no list of its own).
   */
  readonly #ids = new TermIds();

  /** Throws {@link ModelShapeError} on an inconsistent model. */
  constructor(model: NaiveBayesModel) {
    checkModel(model);
    this.model = model;
    this.categories = Object.freeze([...model.categories]);
    this.termOptions = Object.freeze({ ...model.termOptions });
    this.#titleWeight = model.titleWeight;
    this.#temperature = model.temperature;
    const C = model.categories.length;
    const V = model.features.length;
    this.#rowOf = new Int32Array(2 ** model.termOptions.hashBits).fill(-1);
    for (let i = 0; i < V; i++) this.#rowOf[model.features[i] as number] = i;
    const totals = new Float64Array(C);
    for (let i = 0; i < V * C; i++) totals[i % C] = (totals[i % C] as number) + (model.counts[i] as number);
    this.#logLikelihood = new Float64Array(V * C);
    const denominators = Float64Array.from(totals, (t) => Math.log(t + model.smoothing * V));
    for (let i = 0; i < V * C; i++) {
      this.#logLikelihood[i] = Math.log((model.counts[i] as number) + model.smoothing) - (denominators[i % C] as number);
    }
    this.#logPrior = logPriors(model);
    this.#weights = model.weights;
    this.digest = modelDigest(model);
    this.spec = Object.freeze({
      id: 'naive-bayes',
      params: Object.freeze({
        digest: this.digest,
        categories: C,
        features: V,
        titleWeight: model.titleWeight,
        temperature: model.temperature,
      }),
    });
  }

  /** Raw scores (log prior + log likelihood) of `doc` into `scores`; returns body terms and known terms. */
  score(doc: TextDocument, scores: Float64Array): { terms: number; known: number } {
    scores.set(this.#logPrior);
    const ids = this.#ids;
    let known = 0;
    if (this.#titleWeight > 0 && doc.title !== '') {
      ids.clear();
      scanTermIds(doc.title, this.termOptions, ids);
      known += this.#add(ids, this.#titleWeight, scores);
    }
    ids.clear();
    const terms = scanTermIds(doc.text, this.termOptions, ids);
    known += this.#add(ids, 1, scores);
    return { terms, known };
  }

  /** Adds `weight` times each known term's log-likelihoods to `scores`, term by term in order; returns how many were known. */
  #add(list: TermIds, weight: number, scores: Float64Array): number {
    const C = this.categories.length;
    const rowOf = this.#rowOf;
    const ll = this.#logLikelihood;
    const weights = this.#weights;
    const ids = list.ids;
    const n = list.length;
    let known = 0;
    for (let i = 0; i < n; i++) {
      const row = rowOf[ids[i] as number] as number;
      if (row < 0) continue;
      known++;
      const base = row * C;
      const w = weight * (weights[row] as number);
      for (let c = 0; c < C; c++) scores[c] = (scores[c] as number) + w * (ll[base + c] as number);
    }
    return known;
  }

  classify(doc: TextDocument): Classification {
    const scores = new Float64Array(this.categories.length);
    const { terms, known } = this.score(doc, scores);
    const probabilities = softmax(scores, this.#temperature);
    let index = 0;
    for (let c = 1; c < probabilities.length; c++) if ((scores[c] as number) > (scores[index] as number)) index = c;
    return { category: this.categories[index] as string, index, probability: probabilities[index] as number, probabilities, terms, known };
  }
}

/** softmax(scores / temperature), computed stably, into a new array. */
export function softmax(scores: Float64Array, temperature: number): Float64Array {
  let max = -Infinity;
  for (const s of scores) if (s > max) max = s;
  const out = new Float64Array(scores.length);
  let sum = 0;
  for (let c = 0; c < scores.length; c++) {
    const e = Math.exp(((scores[c] as number) - max) / temperature);
    out[c] = e;
    sum += e;
  }
  for (let c = 0; c < out.length; c++) out[c] = (out[c] as number) / sum;
  return out;
}
