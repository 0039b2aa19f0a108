/**
 * `anchor` (seed 003 §3.4.2): a link goes to the city named in its anchor text or in the words
 * around it (the extended anchor text: `parse.anchorContextTokens` words each side, 10 by default).
 * The city closest to the anchor wins: a name inside the anchor is at distance 0, one in the window
 * at the number of words between it and the anchor, plus one. A name with its state ("Glendale,
 * CA") is that place; a bare name is the most populous place of that name (§3.5). Pages are not
 * judged.
 */
import type { CityMatcher, TextMentions } from '../city-mentions.js';
import { addScore, NO_CITY, type GeoLink, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** See the file comment. */
export class AnchorGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec = Object.freeze({ id: 'anchor', params: Object.freeze({}) });
  readonly readsLinks = true;
  readonly readsPages = false;

  constructor(private readonly matcher: CityMatcher) {}

  scoreLink(link: GeoLink): GeoScores {
    const scores = new Map<number, number>();
    const m = this.matcher;
    if (link.anchorText !== undefined && link.anchorText !== '') this.#add(scores, m.inText(link.anchorText), () => 0);
    if (link.anchorBefore !== undefined && link.anchorBefore !== '') {
      const before = m.inText(link.anchorBefore);
      this.#add(scores, before, (c) => before.words - c.end + 1);
    }
    if (link.anchorAfter !== undefined && link.anchorAfter !== '') this.#add(scores, m.inText(link.anchorAfter), (c) => c.start + 1);
    return scores.size === 0 ? NO_CITY : scores;
  }

  scorePage(): GeoScores {
    return NO_CITY;
  }

  #add(scores: Map<number, number>, mentions: TextMentions, distance: (c: TextMentions['cities'][number]) => number): void {
    const g = this.matcher.gazetteer;
    for (const c of mentions.cities) {
      const target = c.state === null ? g.targetOfName(c.name) : g.targetIn(c.name, c.state);
      addScore(scores, target, 1 / (1 + distance(c)), 'max');
    }
  }
}
