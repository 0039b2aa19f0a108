/**
 * `content` (seed 003 §3.4.3): the links of a page go to the city its text is most about,
 *
 *   pr((c,s) | p) = α·#((c,s), p) + (1 − α)·(β·S(s|c) + (1 − β)·S̃(s|p))·#(c, p)
 *
 * - #((c,s), p): mentions of the city with its state right after it ("Denver, CO", "Denver, Colorado");
 * - #(c, p): mentions of the name alone, counted apart from the first kind;
 * - S(s|c): the population of (c,s) over the population of every place of that name (Glendale, AZ
 *   against Glendale, CA), from the gazetteer;
 * - S̃(s|p): mentions of state s in p (those not part of a (city, state) mention) over the mentions of
 *   the states of every place of that name; 0 when the page names none of them.
 *
 * α = 0.7 and β = 0.5 by default (`cluster.geo.alpha`, `cluster.geo.beta`). The title counts as text.
 * Links are not judged.
 */
import type { CityMatcher } from '../city-mentions.js';
import { addScore, GeoParamError, NO_CITY, type GeoPage, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** Parameters of the formula. */
export interface ContentParams {
  readonly alpha?: number;
  readonly beta?: number;
}

/** See the file comment. */
export class ContentGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec;
  readonly readsLinks = false;
  readonly readsPages = true;
  readonly #alpha: number;
  readonly #beta: number;

  constructor(
    private readonly matcher: CityMatcher,
    params: ContentParams = {},
  ) {
    const alpha = params.alpha ?? 0.7;
    const beta = params.beta ?? 0.5;
    for (const [name, v] of [
      ['alpha', alpha],
      ['beta', beta],
    ] as const) {
      if (!(v >= 0 && v <= 1)) throw new GeoParamError(`${name}: a weight in [0, 1], got ${v}`);
    }
    this.#alpha = alpha;
    this.#beta = beta;
    this.spec = Object.freeze({ id: 'content', params: Object.freeze({ alpha, beta }) });
  }

  scoreLink(): GeoScores {
    return NO_CITY;
  }

  scorePage(page: GeoPage): GeoScores {
    const text = page.title === null || page.title === '' ? (page.text ?? '') : `${page.title}\n${page.text ?? ''}`;
    if (text === '') return NO_CITY;
    const mentions = this.matcher.inText(text);
    if (mentions.cities.length === 0) return NO_CITY;
    const g = this.matcher.gazetteer;
    const scores = new Map<number, number>();
    const alone = new Map<string, number>();
    for (const c of mentions.cities) {
      if (c.state === null) alone.set(c.name, (alone.get(c.name) ?? 0) + 1);
      else addScore(scores, g.targetIn(c.name, c.state), this.#alpha, 'add');
    }
    for (const [name, count] of alone) {
      const places = g.placesNamed(name);
      let population = 0;
      let stateMentions = 0;
      for (const p of places) {
        population += p.population;
        stateMentions += mentions.states.get(p.state) ?? 0;
      }
      for (const p of places) {
        if (p.target < 0) continue;
        const s = population > 0 ? p.population / population : 0;
        const sp = stateMentions > 0 ? (mentions.states.get(p.state) ?? 0) / stateMentions : 0;
        addScore(scores, p.target, (1 - this.#alpha) * (this.#beta * s + (1 - this.#beta) * sp) * count, 'add');
      }
    }
    return scores.size === 0 ? NO_CITY : scores;
  }
}
