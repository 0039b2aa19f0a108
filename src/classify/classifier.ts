/**
 * The Classifier extension point (SPEC §4.2; seed 000, the X4 crawler): a static, pre-trained model
 * that puts a document (a page's title and visible text, or the words around a link) in one of a
 * fixed list of categories.
 *
 * **Contract**
 * - `categories` is fixed for the classifier's life: non-empty, distinct, non-empty strings. Any
 *   label set works; the 16 top Open Directory categories are one example.
 * - `classify(doc)` never throws on any strings and never returns a category outside `categories`.
 *   Its `probabilities` has one entry per category, in `categories` order, each in [0, 1], summing
 *   to 1 (within float rounding); `category` is the first category of the highest probability, and
 *   `probability` is that probability. A document with no term the model knows gets the model's
 *   prior (uniform for a model trained with uniform priors) and `known` 0.
 * - `terms` counts the document's body terms (not the title's) as {@link scanTerms} keeps them:
 *   the X4 rule "fewer than 50 terms: unclassifiable" is decided by the caller from it.
 * - Deterministic: the same document gives the same answer, in any thread, in any order of calls.
 *   A classifier holds no per-call state that one call can leave behind for the next.
 * - `spec.params.digest` names the model exactly (the SHA-256 of its canonical content), so that
 *   nodes of one crawl can check they classify alike.
 *
 * **Sources**: seed 000 (the X4 crawler: multinomial Naive Bayes over page content, 16 ODP
 * categories, 60.7 % accuracy on ODP pages).
 */
import type { TermOptions } from './terms.js';

/** What a classifier is, exactly: an id and the parameters (the model digest among them). */
export interface ClassifierSpec {
  readonly id: string;
  readonly params: Readonly<Record<string, string | number>>;
}

/** A document to classify. */
export interface TextDocument {
  /** Title terms count `titleWeight` times (the model's preprocessing); '' for none. */
  readonly title: string;
  readonly text: string;
}

/** A classifier's answer for one document. */
export interface Classification {
  readonly category: string;
  /** Index of `category` in the classifier's categories. */
  readonly index: number;
  readonly probability: number;
  /** Posterior probability of each category, in the classifier's category order. */
  readonly probabilities: Float64Array;
  /** Body terms of the document. */
  readonly terms: number;
  /** Terms (title and body) the model has statistics for. */
  readonly known: number;
}

/** The classifier extension point; see the file comment for the Contract. */
export interface Classifier {
  readonly spec: ClassifierSpec;
  readonly categories: readonly string[];
  /** How the classifier turns text into terms (callers count terms with the same options). */
  readonly termOptions: TermOptions;
  classify(doc: TextDocument): Classification;
}
