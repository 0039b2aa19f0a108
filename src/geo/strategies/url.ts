/**
 * `url` (seed 003 §3.4.1): a link goes to the city its URL names, in the host or the path
 * (`houston-guide.example`, `/new-york/restaurants`). An ambiguous name is the most populous place
 * of that name (§3.5); a name that is not a target's ("Aurora" when Aurora, CO is not a target) gives
 * nothing. Several cities in one URL: the first met (host before path) scores highest, so Policy A
 * takes it; Policy B takes them all. Pages are not judged.
 */
import type { CityMatcher } from '../city-mentions.js';
import { addScore, NO_CITY, type GeoLink, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** See the file comment. */
export class UrlGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec = Object.freeze({ id: 'url', params: Object.freeze({}) });
  readonly readsLinks = true;
  readonly readsPages = false;

  constructor(private readonly matcher: CityMatcher) {}

  scoreLink(link: GeoLink): GeoScores {
    const mentions = this.matcher.inUrl(link.url);
    if (mentions.length === 0) return NO_CITY;
    const scores = new Map<number, number>();
    mentions.forEach((m, i) => addScore(scores, this.matcher.gazetteer.targetOfName(m.name), 1 / (1 + i), 'max'));
    return scores;
  }

  scorePage(): GeoScores {
    return NO_CITY;
  }
}
