/**
 * `ip` (seed 003 §3.4.5): the links of a page go to the city where the server it came from is,
 * looked up in an offline IP → city database (`cluster.geo.ipDatabase`: a MaxMind DB file or a CSV
 * range table, src/geo/ip-locator.ts). An address the database does not know, or that it places in
 * a city that is not a target, gives nothing. Links are not judged.
 */
import type { Gazetteer } from '../gazetteer.js';
import type { IpLocator } from '../ip-locator.js';
import { NO_CITY, type GeoPage, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** See the file comment. */
export class IpGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec;
  readonly readsLinks = false;
  readonly readsPages = true;
  readonly #cache = new Map<string, GeoScores>();

  constructor(
    private readonly gazetteer: Gazetteer,
    private readonly locator: IpLocator,
  ) {
    this.spec = Object.freeze({ id: 'ip', params: Object.freeze({ database: locator.spec.id, ...locator.spec.params }) });
  }

  scoreLink(): GeoScores {
    return NO_CITY;
  }

  scorePage(page: GeoPage): GeoScores {
    if (page.ip === null) return NO_CITY;
    let scores = this.#cache.get(page.ip);
    if (scores === undefined) {
      const place = this.locator.locate(page.ip);
      const target = place === null ? -1 : this.gazetteer.targetIn(place.city, place.state);
      scores = target < 0 ? NO_CITY : new Map([[target, 1]]);
      // A crawl meets few addresses, each many times.
      if (this.#cache.size > 100_000) this.#cache.clear();
      this.#cache.set(page.ip, scores);
    }
    return scores;
  }
}
