/**
 * `classifier` (seed 003 §3.4.4): a Naive Bayes model over the target cities plus "no city" judges
 * each page (trained by `shoal train`, e.g. on a test web's truth with `--label city`: categories
 * `"Name, ST"` and `none`). A page whose most probable category is not a target has no city; else
 * the scores are the posteriors of the targets at or above `minProbability` (the best always among
 * them): Policy A takes the best, Policy B every one (a posterior is never exactly 0, so "pr(c|p) ≠ 0"
 * is read as "at least minProbability"). Links are not judged.
 */
import type { Classifier } from '../../classify/classifier.js';
import type { Gazetteer } from '../gazetteer.js';
import { GeoParamError, NO_CITY, type GeoPage, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** See the file comment. */
export class ClassifierGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec;
  readonly readsLinks = false;
  readonly readsPages = true;
  /** Target index of each category of the model, −1 for a category that is not a target. */
  readonly #targetOf: Int32Array;

  /** Throws a {@link GeoParamError} when the model has no category that is a target, or on a bad minProbability. */
  constructor(
    gazetteer: Gazetteer,
    private readonly classifier: Classifier,
    private readonly minProbability = 0.1,
  ) {
    if (!(minProbability > 0 && minProbability <= 1)) throw new GeoParamError(`minProbability: in (0, 1], got ${minProbability}`);
    this.#targetOf = Int32Array.from(classifier.categories, (c) => gazetteer.indexOf(c));
    if (!this.#targetOf.some((t) => t >= 0)) {
      throw new GeoParamError(
        `the model's categories (${classifier.categories.slice(0, 5).join(', ')}, ...) name no target city ("Name, ST"): train it with city labels`,
      );
    }
    this.spec = Object.freeze({
      id: 'classifier',
      params: Object.freeze({ ...classifier.spec.params, minProbability }),
    });
  }

  scoreLink(): GeoScores {
    return NO_CITY;
  }

  scorePage(page: GeoPage): GeoScores {
    if (page.text === null || page.text === '') return NO_CITY;
    const c = this.classifier.classify({ title: page.title ?? '', text: page.text });
    if ((this.#targetOf[c.index] as number) < 0) return NO_CITY;
    const scores = new Map<number, number>();
    c.probabilities.forEach((p, i) => {
      const t = this.#targetOf[i] as number;
      if (t >= 0 && (p >= this.minProbability || i === c.index)) scores.set(t, p);
    });
    return scores;
  }
}
