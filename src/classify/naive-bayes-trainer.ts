/**
 * Training a {@link NaiveBayesModel} from labelled documents: term counts per category, then the
 * features kept, then the temperature of the reported posterior.
 *
 * Features kept: every term seen at least `minCount` times in all, the most frequent first when
 * there are more than `maxFeatures` (ties by id, so training is deterministic). Rare terms are
 * mostly names and typos: they make a model large and teach it little.
 *
 * Temperature: when `calibrationShare` > 0, that share of each category's documents (every k-th,
 * deterministic) is held out, a model is trained on the rest, and T is the value in [1, 10,000]
 * that minimises the held-out log loss (golden-section search on log T); the final model is then
 * trained on every document with that T.
 */
import { NaiveBayesClassifier, Priors, softmax, type NaiveBayesModel } from './naive-bayes.js';
import type { TextDocument } from './classifier.js';
import { DEFAULT_TERM_OPTIONS, scanTerms, type TermOptions } from './terms.js';

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
}

export const DEFAULT_TRAINING_OPTIONS: TrainingOptions = Object.freeze({
  termOptions: DEFAULT_TERM_OPTIONS,
  titleWeight: 2,
  smoothing: 1,
  priors: Priors.uniform,
  minCount: 2,
  maxFeatures: 60_000,
  calibrationShare: 0.1,
});

/** Thrown for training input that cannot make a model (no documents, one label only...). */
export class TrainingError extends Error {}

/** Accumulates term counts per category. */
class CountTable {
  readonly counts: Float64Array;
  readonly documents: number[];

  constructor(readonly categories: readonly string[], readonly options: TrainingOptions) {
    this.counts = new Float64Array(2 ** options.termOptions.hashBits * categories.length);
    this.documents = categories.map(() => 0);
  }

  add(doc: TextDocument, category: number): void {
    const C = this.categories.length;
    let weight = this.options.titleWeight;
    const add = (id: number): void => {
      const k = id * C + category;
      this.counts[k] = (this.counts[k] as number) + weight;
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
    for (let id = 0; id < ids; id++) {
      let t = 0;
      for (let c = 0; c < C; c++) t += this.counts[id * C + c] as number;
      totals[id] = t;
      if (t >= this.options.minCount) candidates.push(id);
    }
    let kept = candidates;
    if (kept.length > this.options.maxFeatures) {
      kept = [...candidates].sort((a, b) => (totals[b] as number) - (totals[a] as number) || a - b).slice(0, this.options.maxFeatures);
      kept.sort((a, b) => a - b);
    }
    const features = Uint32Array.from(kept);
    const counts = new Float32Array(features.length * C);
    for (let i = 0; i < features.length; i++) {
      const id = features[i] as number;
      for (let c = 0; c < C; c++) counts[i * C + c] = this.counts[id * C + c] as number;
    }
    return {
      categories: this.categories, termOptions: this.options.termOptions, titleWeight: this.options.titleWeight,
      smoothing: this.options.smoothing, priors: this.options.priors, temperature, features, counts, documents: [...this.documents],
    };
  }
}

/** The categories of `docs`, sorted, checked to be at least two. */
export function categoriesOf(docs: readonly LabelledDocument[]): string[] {
  const categories = [...new Set(docs.map((d) => d.label))].sort();
  if (docs.length === 0) throw new TrainingError('no training documents');
  if (categories.some((c) => c === '')) throw new TrainingError('a training document has an empty label');
  if (categories.length < 2) throw new TrainingError(`training needs documents of at least two labels, got only ${JSON.stringify(categories[0])}`);
  return categories;
}

function countAll(docs: readonly LabelledDocument[], categories: readonly string[], options: TrainingOptions): CountTable {
  const index = new Map(categories.map((c, i) => [c, i]));
  const table = new CountTable(categories, options);
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
