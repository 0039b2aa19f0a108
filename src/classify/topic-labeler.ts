/**
 * The X4 pipeline that gives a fetched page its topic (SPEC §4.2; seed 000):
 *
 *   1. fewer than `minTerms` (50) body terms      -> unclassifiable: `unclassifiableCategory`
 *   2. else a language the classifier does not read -> `languageCategories[lang]`, else
 *      `otherLanguageCategory` (WORLD)
 *   3. else                                          -> the classifier's category
 *
 * A page whose language is unknown ('') goes to the classifier. With `otherLanguageCategory` null
 * and no entry for its language, a page of any language goes to the classifier.
 *
 * The labels a labeler can give are the classifier's categories followed by the rule categories not
 * among them (WORLD, say), in a fixed order: a partitioner deals them to nodes.
 */
import type { Classifier } from './classifier.js';
import { countTerms } from './terms.js';

/** Why a page has its category. */
export const TopicReason = {
  /** Fewer terms than `minTerms`. */
  unclassifiable: 'unclassifiable',
  /** Its language decided. */
  language: 'language',
  /** The classifier decided. */
  classifier: 'classifier',
} as const;
export type TopicReason = (typeof TopicReason)[keyof typeof TopicReason];

/** A page's topic. */
export interface TopicLabel {
  /** null: unclassifiable with no default category. */
  readonly category: string | null;
  /** The classifier's posterior; null when a rule decided. */
  readonly probability: number | null;
  readonly reason: TopicReason;
}

export interface TopicLabelerOptions {
  /** A page with fewer body terms is unclassifiable (X4: 50). */
  readonly minTerms: number;
  /** Category of unclassifiable pages; null: none (the page keeps no category). */
  readonly unclassifiableCategory: string | null;
  /** ISO 639-1 codes the classifier reads (its training language). */
  readonly classifierLanguages: readonly string[];
  /** Category of pages in other languages; null: classify them too. */
  readonly otherLanguageCategory: string | null;
  /** Per-language categories, before `otherLanguageCategory`. */
  readonly languageCategories: Readonly<Record<string, string>>;
}

export const DEFAULT_TOPIC_LABELER_OPTIONS: TopicLabelerOptions = Object.freeze({
  minTerms: 50,
  unclassifiableCategory: null,
  classifierLanguages: Object.freeze(['en']),
  otherLanguageCategory: 'WORLD',
  languageCategories: Object.freeze({}),
});

/** A page as the labeler reads it. */
export interface PageText {
  readonly title: string;
  readonly text: string;
  /** ISO 639-1 code, '' when unknown. */
  readonly language: string;
}

/** The X4 pipeline over one classifier; see the file comment. */
export class TopicLabeler {
  /** Every category a page can get, classifier categories first. */
  readonly labels: readonly string[];
  readonly #classifier: Classifier;
  readonly #options: TopicLabelerOptions;
  readonly #classifierLanguages: ReadonlySet<string>;

  constructor(classifier: Classifier, options: Partial<TopicLabelerOptions> = {}) {
    this.#classifier = classifier;
    this.#options = { ...DEFAULT_TOPIC_LABELER_OPTIONS, ...options };
    this.#classifierLanguages = new Set(this.#options.classifierLanguages);
    const o = this.#options;
    const extras = [o.otherLanguageCategory, ...Object.values(o.languageCategories), o.unclassifiableCategory];
    const labels = [...classifier.categories];
    for (const e of extras) if (e !== null && e !== '' && !labels.includes(e)) labels.push(e);
    this.labels = Object.freeze(labels);
  }

  get classifier(): Classifier {
    return this.#classifier;
  }

  label(page: PageText): TopicLabel {
    const o = this.#options;
    const lang = page.language;
    const byLanguage = lang === '' || this.#classifierLanguages.has(lang) ? null : (o.languageCategories[lang] ?? o.otherLanguageCategory);
    if (byLanguage !== null) {
      if (countTerms(page.text, this.#classifier.termOptions) < o.minTerms) return this.#unclassifiable();
      return { category: byLanguage, probability: null, reason: TopicReason.language };
    }
    const c = this.#classifier.classify(page);
    if (c.terms < o.minTerms) return this.#unclassifiable();
    return { category: c.category, probability: c.probability, reason: TopicReason.classifier };
  }

  #unclassifiable(): TopicLabel {
    return { category: this.#options.unclassifiableCategory, probability: null, reason: TopicReason.unclassifiable };
  }
}
