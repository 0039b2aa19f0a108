/**
 * The geographic make-up of the test web the experiment crawls, measured on its truth export: how
 * many hosts and pages are local to a city, how often a URL, an address or a server's location gives
 * the city away, how many pages the path-depth bound cuts off. With the generator's settings
 * (`geo` and `links.geoLocality` of the web configuration) it tells a reader why absolute figures
 * differ from the paper's crawl of the real Web.
 */
import { readFileSync } from 'node:fs';
import { Gazetteer } from '../../src/geo/gazetteer.js';
import { bestTarget } from '../../src/geo/geo-strategy.js';
import { createGeoStrategy } from '../../src/geo/geo-strategies.js';
import { ipLocatorOf } from '../../src/geo/ip-locators.js';
import { pathDepth } from '../../src/url/filter/url-filter.js';
import type { WebConfig } from '../../src/web/config.js';
import { servesContent } from '../../src/web/model.js';
import { Reach } from '../../src/web/truth/format.js';
import type { Truth } from '../../src/web/truth/read.js';

/** Measured facts; see the file comment. */
export interface TestWebGeo {
  readonly geo: WebConfig['geo'];
  readonly geoLocality: number;
  readonly hosts: number;
  readonly localHosts: number;
  /** Local hosts whose name carries a target's name (the url strategy finds their city in the host). */
  readonly localHostsNamed: number;
  readonly addresses: number;
  readonly localHostsAtHome: number;
  /** Other hosts the IP table places in some target city. */
  readonly otherHostsPlaced: number;
  readonly contentPages: number;
  /** Content pages with a true city (the generator's geographic pages). */
  readonly cityPages: number;
  /** Content pages with at least one entity of a target city (the metrics' geo pages). */
  readonly geoPages: number;
  /** Of the pages a polite crawler reaches, geo pages. */
  readonly reachable: number;
  readonly reachableGeo: number;
  /** Content pages whose URL names their true city, and city pages whose URL names another or none. */
  readonly urlRight: number;
  readonly urlWrong: number;
  readonly pagesDeeperThan: { readonly depth: number; readonly pages: number; readonly reachable: number };
}

/** Measures `truth` (whose IP table is the file `ipCitiesFile`) with a path-depth bound of `maxPathDepth`. */
export async function testWebGeo(truth: Truth, config: WebConfig, ipCitiesFile: string, maxPathDepth: number): Promise<TestWebGeo> {
  const gazetteer = Gazetteer.usTop(100);
  const url = createGeoStrategy('url', { gazetteer });
  const locator = ipLocatorOf(ipCitiesFile, readFileSync(ipCitiesFile));
  const targetOf = truth.manifest.cities.map((c) => gazetteer.indexOf(`${c.name}, ${c.state}`));
  let localHosts = 0;
  let localHostsNamed = 0;
  let localHostsAtHome = 0;
  let otherHostsPlaced = 0;
  for (const h of truth.hosts) {
    const place = locator.locate(h.ip);
    const at = place === null ? -1 : gazetteer.targetIn(place.city, place.state);
    if (h.cityIndex < 0) {
      if (at >= 0) otherHostsPlaced++;
      continue;
    }
    localHosts++;
    const want = targetOf[h.cityIndex] ?? -1;
    if (bestTarget(url.scoreLink({ url: `http://${h.name}/` })) >= 0) localHostsNamed++;
    if (at === want) localHostsAtHome++;
  }
  const entities = new Uint8Array(truth.pageCount);
  for (const e of await truth.entities()) if (gazetteer.indexOf(`${e.city}, ${e.state}`) >= 0) entities[e.page] = 1;
  let contentPages = 0;
  let cityPages = 0;
  let geoPages = 0;
  let reachable = 0;
  let reachableGeo = 0;
  let urlRight = 0;
  let urlWrong = 0;
  let deep = 0;
  let deepReachable = 0;
  for (let p = 0; p < truth.pageCount; p++) {
    const isPolite = truth.reach[p] === Reach.polite;
    if (pathDepth(truth.paths.at(p)) > maxPathDepth) {
      deep++;
      if (isPolite) deepReachable++;
    }
    if (isPolite) {
      reachable++;
      reachableGeo += entities[p] as number;
    }
    if (!servesContent(truth.kind[p] as number)) continue;
    contentPages++;
    geoPages += entities[p] as number;
    const c = truth.city[p] as number;
    const want = c < 0 ? -1 : (targetOf[c] ?? -1);
    const got = bestTarget(url.scoreLink({ url: `http://${truth.hosts[truth.pageHost[p] as number]?.name}${truth.paths.at(p)}` }));
    if (want >= 0) {
      cityPages++;
      if (got === want) urlRight++;
      else urlWrong++;
    }
  }
  return {
    geo: config.geo,
    geoLocality: config.links.geoLocality,
    hosts: truth.hosts.length,
    localHosts,
    localHostsNamed,
    addresses: new Set(truth.hosts.map((h) => h.ip)).size,
    localHostsAtHome,
    otherHostsPlaced,
    contentPages,
    cityPages,
    geoPages,
    reachable,
    reachableGeo,
    urlRight,
    urlWrong,
    pagesDeeperThan: { depth: maxPathDepth, pages: deep, reachable: deepReachable },
  };
}
