/**
 * Geographic ground truth of the test web: the street addresses ("geographic entities", SPEC §4.3)
 * on each geographic page, generated from (seed, page) so rendering and truth export agree.
 */
import { STREET_NAMES, STREET_TYPES } from './data/streets.js';
import { PageKind, type WebModel } from './model.js';
import { Purpose, Rng } from '../core/prng.js';

/** One US street address written on a page. */
export interface GeoEntity {
  readonly number: number;
  /** Street name with its type word as written, e.g. `Oak Street` or `Oak St`. */
  readonly street: string;
  readonly city: string;
  readonly state: string;
  /** Five-digit ZIP, or '' when the address is written without one. */
  readonly zip: string;
  /** Index of the city in the model's target cities. */
  readonly cityIndex: number;
}

/** The addresses on page g (empty unless it is a geographic page). */
export function geoEntities(model: WebModel, g: number): GeoEntity[] {
  const own = model.contentId(g);
  // A near-duplicate shows its original's text, addresses included.
  const cid = model.pageKind[own] === PageKind.nearDuplicate ? (model.pageRef[own] as number) : own;
  const cityIndex = model.pageCity[cid] as number;
  if (cityIndex < 0) return [];
  const city = model.cities[cityIndex];
  if (city === undefined) return [];
  const rng = new Rng(model.config.seed, Purpose.geo, cid);
  const count = rng.range(1, model.config.geo.maxAddresses);
  const out: GeoEntity[] = [];
  for (let i = 0; i < count; i++) {
    const type = rng.pick(STREET_TYPES);
    const typeWord = rng.chance(0.5) ? type.word : type.abbrev;
    out.push({
      number: rng.range(1, 9999),
      street: `${rng.pick(STREET_NAMES)} ${typeWord}`,
      city: city.name,
      state: city.state,
      zip: rng.chance(0.8) && city.zips.length > 0 ? rng.pick(city.zips) : '',
      cityIndex,
    });
  }
  return out;
}

/** The address as one line of text: `1234 Oak Street, Denver, CO 80202`. */
export function formatAddress(e: GeoEntity): string {
  return `${e.number} ${e.street}, ${e.city}, ${e.state}${e.zip === '' ? '' : ` ${e.zip}`}`;
}
