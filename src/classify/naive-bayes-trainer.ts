/**
 * Training a {@link NaiveBayesModel} from labelled documents: term counts per category, then the
 * features kept, then the temperature of the reported posterior.
 *
 * Features kept: every term seen at least `minCount` times in all and not a stop word
 * (`stop-words.ts`), the most frequent first when there are more than `maxFeatures` (ties by id, so
 * training is deterministic). Rare terms are mostly names and typos: they make a model large and
 * teach it little. With `termWeighting: idf` (the default) each occurrence counts its term's idf,
 * log((N + 1) / df), computed over the training documents, and the model keeps those weights.
 *
 * Temperature: when `calibrationShare` > 0, that share of each category's documents (every k-th,
 * deterministic) is held out, a model is trained on the rest, and T is the value in [1, 10,000]
 * that minimises the held-out log loss (golden-section search on log T); the final model is then
 * trained on every document with that T.
 */
import { NaiveBayesClassifier, Priors, softmax, type NaiveBayesModel } from './naive-bayes.js';
import type { TextDocument } from './classifier.js';
import { ENGLISH_STOP_WORDS } from './stop-words.js';
import { DEFAULT_TERM_OPTIONS, scanTerms, termId, type TermOptions } from './terms.js';

/** A training document. */
export interface LabelledDocument extends TextDocument {
  readonly label: string;
}

export interface TrainingOptions {
  readonly termOptions: TermOptions;
  readonly titleWeight: number;
  readonly smoothing: number;
  readonly priors: Priors;
  readonly minCount: number;
  readonly maxFeatures: number;
  /** Share of documents held out to fit the temperature; 0: temperature 1. */
  readonly calibrationShare: number;
  /** Words never made features (`stop-words.ts`: they would teach the model its training text's genre). */
  readonly stopWords: readonly string[];
  /** `idf`: each occurrence of a term counts log(N / df(t)), in training and in classification; `none`: 1. */
  readonly termWeighting: 'idf' | 'none';
}

export const DEFAULT_TRAINING_OPTIONS: TrainingOptions = Object.freeze({
  termOptions: DEFAULT_TERM_OPTIONS,
  titleWeight: 2,
  smoothing: 1,
  priors: Priors.uniform,
  minCount: 2,
  maxFeatures: 60_000,
  calibrationShare: 0.1,
  stopWords: ENGLISH_STOP_WORDS,
  termWeighting: 'idf',
});

/** Thrown for training input that cannot make a model (no documents, one label only...). */
export class TrainingError extends Error {}

/** Accumulates term counts per category. */
class CountTable {
  readonly counts: Float64Array;
  readonly documents: number[];

  /** `idf`: the weight of each term id (1 for all without term weighting). */
  constructor(
    readonly categories: readonly string[],
    readonly options: TrainingOptions,
    readonly idf: Float64Array,
  ) {
    this.counts = new Float64Array(2 ** options.termOptions.hashBits * categories.length);
    this.occurrences = new Float64Array(2 ** options.termOptions.hashBits);
    this.documents = categories.map(() => 0);
  }

  /** Occurrences of each term id, unweighted (for `minCount` and the most frequent terms). */
  readonly occurrences: Float64Array;

  add(doc: TextDocument, category: number): void {
    const C = this.categories.length;
    const idf = this.idf;
    let weight = this.options.titleWeight;
    const add = (id: number): void => {
      const k = id * C + category;
      this.counts[k] = (this.counts[k] as number) + weight * (idf[id] as number);
      this.occurrences[id] = (this.occurrences[id] as number) + 1;
    };
    if (weight > 0 && doc.title !== '') scanTerms(doc.title, this.options.termOptions, add);
    weight = 1;
    scanTerms(doc.text, this.options.termOptions, add);
    this.documents[category] = (this.documents[category] as number) + 1;
  }

  model(temperature: number): NaiveBayesModel {
    const C = this.categories.length;
    const ids = 2 ** this.options.termOptions.hashBits;
    const totals = new Float64Array(ids);
    const candidates: number[] = [];
    const stop = new Set<number>();
    for (const w of this.options.stopWords) {
      const id = termId(w, this.options.termOptions);
      if (id !== null) stop.add(id);
    }
    for (let id = 0; id < ids; id++) {
      if (stop.has(id)) continue;
      const t = this.occurrences[id] as number;
      totals[id] = t;
      if (t >= this.options.minCount) candidates.push(id);
    }
    let kept = candidates;
    if (kept.length > this.options.maxFeatures) {
      kept = [...candidates].sort((a, b) => (totals[b] as number) - (totals[a] as number) || a - b).slice(0, this.options.maxFeatures);
      kept.sort((a, b) => a - b);
    }
    const features = Uint32Array.from(kept);
    const weights = Float32Array.from(features, (id) => this.idf[id] as number);
    const counts = new Float32Array(features.length * C);
    for (let i = 0; i < features.length; i++) {
      const id = features[i] as number;
      for (let c = 0; c < C; c++) counts[i * C + c] = this.counts[id * C + c] as number;
    }
    return {
      categories: this.categories,
      termOptions: this.options.termOptions,
      titleWeight: this.options.titleWeight,
      smoothing: this.options.smoothing,
      priors: this.options.priors,
      temperature,
      features,
      weights,
      counts,
      documents: [...this.documents],
    };
  }
}

/** The categories of `docs`, sorted, checked to be at least two. */
export function categoriesOf(docs: readonly LabelledDocument[]): string[] {
  const categories = [...new Set(docs.map((d) => d.label))].sort();
  if (docs.length === 0) throw new TrainingError('no training documents');
  if (categories.some((c) => c === '')) throw new TrainingError('a training document has an empty label');
  if (categories.length < 2)
    throw new TrainingError(`training needs documents of at least two labels, got only ${JSON.stringify(categories[0])}`);
  return categories;
}

/** log(N / df(t)) for every term id of `docs` (title and body), 1 for all under `none`. */
function termWeights(docs: readonly LabelledDocument[], options: TrainingOptions): Float64Array {
  const weights = new Float64Array(2 ** options.termOptions.hashBits).fill(1);
  if (options.termWeighting === 'none') return weights;
  const df = new Uint32Array(weights.length);
  const inDoc = new Set<number>();
  const see = (id: number): void => {
    inDoc.add(id);
  };
  for (const d of docs) {
    inDoc.clear();
    scanTerms(d.title, options.termOptions, see);
    scanTerms(d.text, options.termOptions, see);
    for (const id of inDoc) df[id] = (df[id] as number) + 1;
  }
  const n = docs.length;
  // A term in every document still counts a little (log of (N + 1) / df), so no weight is 0.
  for (let id = 0; id < weights.length; id++) if ((df[id] as number) > 0) weights[id] = Math.log((n + 1) / (df[id] as number));
  return weights;
}

function countAll(docs: readonly LabelledDocument[], categories: readonly string[], options: TrainingOptions): CountTable {
  const index = new Map(categories.map((c, i) => [c, i]));
  const table = new CountTable(categories, options, termWeights(docs, options));
  for (const d of docs) {
    const c = index.get(d.label);
    if (c === undefined) throw new TrainingError(`label ${JSON.stringify(d.label)} is not one of the categories ${categories.join(', ')}`);
    table.add(d, c);
  }
  return table;
}

/** Held-out log loss of `scores` (per document) at temperature t. */
function logLoss(scores: readonly Float64Array[], truth: readonly number[], t: number): number {
  let loss = 0;
  for (let i = 0; i < scores.length; i++) {
    const p = softmax(scores[i] as Float64Array, t)[truth[i] as number] as number;
    loss -= Math.log(Math.max(p, 1e-300));
  }
  return loss / Math.max(1, scores.length);
}

/** The temperature in [1, 10^4] with the lowest held-out log loss (golden-section on log T). */
function fitTemperature(docs: readonly LabelledDocument[], categories: readonly string[], options: TrainingOptions): number {
  const every = Math.max(2, Math.round(1 / options.calibrationShare));
  const held: LabelledDocument[] = [];
  const rest: LabelledDocument[] = [];
  const seen = new Map<string, number>();
  for (const d of docs) {
    const k = seen.get(d.label) ?? 0;
    seen.set(d.label, k + 1);
    (k % every === every - 1 ? held : rest).push(d);
  }
  if (held.length === 0 || new Set(rest.map((d) => d.label)).size < categories.length) return 1;
  const classifier = new NaiveBayesClassifier(countAll(rest, categories, options).model(1));
  const index = new Map(categories.map((c, i) => [c, i]));
  const scores = held.map((d) => {
    const s = new Float64Array(categories.length);
    classifier.score(d, s);
    return s;
  });
  const truth = held.map((d) => index.get(d.label) as number);
  let lo = 0;
  let hi = Math.log(10_000);
  const phi = (Math.sqrt(5) - 1) / 2;
  for (let i = 0; i < 60; i++) {
    const a = hi - phi * (hi - lo);
    const b = lo + phi * (hi - lo);
    if (logLoss(scores, truth, Math.exp(a)) <= logLoss(scores, truth, Math.exp(b))) hi = b;
    else lo = a;
  }
  const t = Math.exp((lo + hi) / 2);
  return logLoss(scores, truth, t) <= logLoss(scores, truth, 1) ? t : 1;
}

/**
 * Trains a model on `docs`; categories are the labels found, sorted, unless `categories` names
 * them (in that order; a label outside them is an error, a category without documents is allowed).
 * Throws {@link TrainingError} for input that cannot make a model.
 */
export function trainNaiveBayes(
  docs: readonly LabelledDocument[],
  options: Partial<TrainingOptions> = {},
  categories: readonly string[] = categoriesOf(docs),
): NaiveBayesModel {
  const o: TrainingOptions = { ...DEFAULT_TRAINING_OPTIONS, ...options };
  if (docs.length === 0) throw new TrainingError('no training documents');
  if (categories.length < 2) throw new TrainingError('a model needs at least two categories');
  if (!(o.calibrationShare >= 0 && o.calibrationShare < 1)) throw new TrainingError('calibrationShare must be in [0, 1)');
  const temperature = o.calibrationShare > 0 ? fitTemperature(docs, categories, o) : 1;
  return countAll(docs, categories, o).model(temperature);
}
