/**
 * The geo strategies by configuration id (`cluster.geo.strategy`), built from what they read: the
 * gazetteer, the content formula's weights, a city classifier, an IP database. The caller loads
 * models and files (this folder does no I/O); a strategy whose resource is missing is an error
 * naming the option that supplies it.
 */
import type { Classifier } from '../classify/classifier.js';
import { CityMatcher } from './city-mentions.js';
import type { Gazetteer } from './gazetteer.js';
import { GeoParamError, type GeoStrategy } from './geo-strategy.js';
import { AnchorGeoStrategy } from './strategies/anchor.js';
import { ClassifierGeoStrategy } from './strategies/classifier.js';
import { CombinedGeoStrategy } from './strategies/combined.js';
import { ContentGeoStrategy } from './strategies/content.js';
import { IpGeoStrategy } from './strategies/ip.js';
import type { IpLocator } from './ip-locator.js';
import { UrlGeoStrategy } from './strategies/url.js';

export { GeoParamError };

/** The single strategies, in the order the documentation lists them. */
export const GEO_PART_IDS = ['url', 'anchor', 'content', 'classifier', 'ip'] as const;
export type GeoPartId = (typeof GEO_PART_IDS)[number];
/** Every strategy id: the single ones and `combined`. */
export const GEO_STRATEGY_IDS = [...GEO_PART_IDS, 'combined'] as const;
export type GeoStrategyId = (typeof GEO_STRATEGY_IDS)[number];

/** The default fall-back order of `combined`. */
export const DEFAULT_COMBINATION: readonly GeoPartId[] = Object.freeze(['anchor', 'url', 'content']);

/** What the strategies may read. */
export interface GeoResources {
  readonly gazetteer: Gazetteer;
  readonly alpha?: number;
  readonly beta?: number;
  /** A model whose categories are target labels ("Name, ST") and others meaning "no city". */
  readonly classifier?: Classifier;
  readonly minProbability?: number;
  readonly locator?: IpLocator;
  /** The order of `combined`. */
  readonly combine?: readonly GeoPartId[];
}

/** Builds strategy `id`; throws a {@link GeoParamError} naming the missing resource or bad parameter. */
export function createGeoStrategy(id: GeoStrategyId, r: GeoResources): GeoStrategy {
  const matcher = new CityMatcher(r.gazetteer);
  const single = (part: GeoPartId): GeoStrategy => {
    switch (part) {
      case 'url':
        return new UrlGeoStrategy(matcher);
      case 'anchor':
        return new AnchorGeoStrategy(matcher);
      case 'content':
        return new ContentGeoStrategy(matcher, {
          ...(r.alpha === undefined ? {} : { alpha: r.alpha }),
          ...(r.beta === undefined ? {} : { beta: r.beta }),
        });
      case 'classifier':
        if (r.classifier === undefined)
          throw new GeoParamError('classifier: needs a city model (cluster.geo.model, trained by shoal train --label city)');
        return new ClassifierGeoStrategy(r.gazetteer, r.classifier, r.minProbability);
      case 'ip':
        if (r.locator === undefined) throw new GeoParamError('ip: needs an IP database (cluster.geo.ipDatabase: a .mmdb or .csv file)');
        return new IpGeoStrategy(r.gazetteer, r.locator);
    }
  };
  if (id !== 'combined') return single(id);
  const order = r.combine ?? DEFAULT_COMBINATION;
  if (new Set(order).size !== order.length) throw new GeoParamError(`combine: a strategy is listed twice (${order.join(', ')})`);
  return new CombinedGeoStrategy(order.map(single));
}
