/**
 * `combined`: several strategies as fall-backs, in a given order (default anchor, then url, then
 * content). A link is judged by the first link-reading strategy that sees a city; the page by the
 * first page-reading one. The geo partitioner asks the link before the page, so a city named by the
 * link itself beats the city of the page it is on, whatever the order between the two kinds.
 */
import { NO_CITY, type GeoLink, type GeoPage, type GeoScores, type GeoStrategy, type GeoStrategySpec } from '../geo-strategy.js';

/** See the file comment. */
export class CombinedGeoStrategy implements GeoStrategy {
  readonly spec: GeoStrategySpec;
  readonly readsLinks: boolean;
  readonly readsPages: boolean;

  constructor(private readonly parts: readonly GeoStrategy[]) {
    if (parts.length === 0) throw new RangeError('combined: at least one strategy');
    this.readsLinks = parts.some((p) => p.readsLinks);
    this.readsPages = parts.some((p) => p.readsPages);
    const params: Record<string, string | number> = { order: parts.map((p) => p.spec.id).join(',') };
    for (const p of parts) for (const [k, v] of Object.entries(p.spec.params)) params[`${p.spec.id}.${k}`] = v;
    this.spec = Object.freeze({ id: 'combined', params: Object.freeze(params) });
  }

  scoreLink(link: GeoLink): GeoScores {
    for (const p of this.parts) {
      if (!p.readsLinks) continue;
      const s = p.scoreLink(link);
      if (s.size > 0) return s;
    }
    return NO_CITY;
  }

  scorePage(page: GeoPage): GeoScores {
    for (const p of this.parts) {
      if (!p.readsPages) continue;
      const s = p.scorePage(page);
      if (s.size > 0) return s;
    }
    return NO_CITY;
  }
}
