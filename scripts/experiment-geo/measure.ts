/**
 * One run of the geo experiment measured as `shoal eval` measures it: the collaboration metrics
 * (overlap, diversity, communication) from `collaborationMetrics`, the geographic ones from
 * `readGeoEval`, twice: with the run's own page cities for δ and δ̃ (the paper's per-strategy
 * locality) and with the truth's cities (the ideal labelling). Also how well the run's strategy
 * names the city of the pages it downloaded, and the street-address extractor on those pages.
 *
 * A page's city under a strategy (the argmax of pr(c | p)):
 * - url: the city its own URL names (what a link to it would be placed by);
 * - content, classifier, ip: `GeoPartitioner.cityOfPage` on its title, visible text and address;
 * - combined: its URL's city, else the page-reading part's (the anchor part judges links only);
 * - anchor and url-hash: none (an anchor judges the link, not the page), so no per-strategy δ.
 */
import { collaborationMetrics, type CollaborationMetrics } from '../../src/eval/collab-metrics.js';
import type { GeoMetrics } from '../../src/eval/geo-metrics.js';
import { geoModelOf } from '../../src/cluster/partition-models.js';
import { readCrawlForEval, truthPageOfKey } from '../../src/cluster/read-crawl.js';
import { geoTargetsOfSpec, readGeoEval, type GeoEvalOptions } from '../../src/cluster/read-geo.js';
import { crawlConfigSchema, type CrawlConfigInput } from '../../src/config/crawl-config.js';
import { bestTarget } from '../../src/geo/geo-strategy.js';
import { GeoPartitioner } from '../../src/partition/geo/geo.js';
import type { Truth } from '../../src/web/truth/read.js';
import type { ExtractorTotals, PageFacts } from './page-facts.js';

/** What a run partitions by. */
export interface RunSpec {
  /** `url-hash`, or a geo strategy id. */
  readonly strategy: string;
  /** Policy of a geo run; null for url-hash. */
  readonly policy: 'A' | 'B' | null;
}

/** The name a run goes by in the tables: `url A`, `url-hash`. */
export function runName(r: RunSpec): string {
  return r.policy === null ? r.strategy : `${r.strategy} ${r.policy}`;
}

/** How a strategy's page cities agree with the truth's over the downloaded pages. */
export interface CityAgreement {
  /** Downloaded truth pages with a true city. */
  readonly cityPages: number;
  /** Of them, pages the strategy gives that city. */
  readonly rightCity: number;
  /** Of them, pages the strategy gives no city. */
  readonly noCity: number;
  /** Downloaded truth pages of no city. */
  readonly otherPages: number;
  /** Of them, pages the strategy gives a city. */
  readonly falseCity: number;
}

/** A measured run. */
export interface Measured {
  readonly run: RunSpec;
  readonly seconds: number;
  readonly metrics: CollaborationMetrics;
  /** Geo metrics with the truth's cities in δ and δ̃. */
  readonly geo: GeoMetrics;
  /** δ and δ̃ with the run's own page cities; null when its strategy names no page's city. */
  readonly ownLocality: GeoMetrics['locality'] | null;
  readonly agreement: CityAgreement | null;
  readonly extractor: ExtractorTotals;
  /** The partitioner's spec as the crawl recorded it (null for a crawl without a manifest). */
  readonly spec: { readonly id: string; readonly params: Readonly<Record<string, unknown>> } | null;
}

/** The city (target index, −1 for none) a run's strategy gives truth page `page` at `url`; null when it names none. */
export function pageCityOf(
  run: RunSpec,
  config: CrawlConfigInput,
  nodes: number,
  facts: PageFacts,
): ((page: number, url: string) => number) | null {
  if (run.policy === null || run.strategy === 'anchor') return null;
  const model = geoModelOf(crawlConfigSchema.parse(config).cluster.geo);
  const urlCity = (url: string): number => bestTarget(model.strategy.scoreLink({ url }));
  if (run.strategy === 'url') return (_page, url) => urlCity(url);
  const partitioner = new GeoPartitioner(model.strategy, model.gazetteer, nodes, { policy: model.policy, groups: model.groups });
  const ofPage = (page: number, url: string): number => {
    if (page < 0) return -1;
    const { title, text } = facts.textOf(page);
    return partitioner.cityOfPage({ url, title, text, ip: facts.ipOf(page) });
  };
  if (run.strategy !== 'combined') return ofPage;
  return (page, url) => {
    const c = urlCity(url);
    return c >= 0 ? c : ofPage(page, url);
  };
}

/**
 * Reads and measures the crawl in `out`. `fallbackTargets` gives the cities of each partition for a
 * run that is not geo-partitioned (url-hash): its nodes are scored as if they owned the geo nodes'
 * cities, which is what focus means for a crawl that ignores geography.
 */
export async function measureRun(
  run: RunSpec,
  out: string,
  seconds: number,
  truth: Truth,
  facts: PageFacts,
  config: CrawlConfigInput,
  nodes: number,
  fallbackTargets: Pick<GeoEvalOptions, 'gazetteer' | 'cityPartitions'>,
): Promise<Measured> {
  const crawl = await readCrawlForEval(out, truth);
  const metrics = collaborationMetrics({
    nodes: crawl.nodes,
    links: crawl.links,
    ...(crawl.target === null ? {} : { target: crawl.target }),
  });
  const spec = crawl.manifest?.partitioner ?? null;
  const targets = (spec === null ? null : geoTargetsOfSpec(spec, nodes)) ?? fallbackTargets;
  const geo = await readGeoEval(out, truth, { ...targets, crawl });
  const cityOf = pageCityOf(run, config, nodes, facts);
  const own = cityOf === null ? null : await readGeoEval(out, truth, { ...targets, crawl, cityOf });
  const pages = new Set<number>();
  for (const n of crawl.nodes)
    for (const d of n.downloads) {
      const p = truthPageOfKey(d.url);
      if (p >= 0) pages.add(p);
    }
  return {
    run,
    seconds,
    metrics,
    geo,
    ownLocality: own?.locality ?? null,
    agreement: cityOf === null ? null : agreementOf(pages, truth, targets.gazetteer, cityOf),
    extractor: facts.extractorOver(pages),
    spec,
  };
}

function agreementOf(
  pages: ReadonlySet<number>,
  truth: Truth,
  gazetteer: GeoEvalOptions['gazetteer'],
  cityOf: (page: number, url: string) => number,
): CityAgreement {
  const targetOf = truth.manifest.cities.map((c) => gazetteer.indexOf(`${c.name}, ${c.state}`));
  let cityPages = 0;
  let rightCity = 0;
  let noCity = 0;
  let otherPages = 0;
  let falseCity = 0;
  for (const p of pages) {
    const c = truth.city[p] as number;
    const want = c < 0 ? -1 : (targetOf[c] ?? -1);
    const got = cityOf(p, `http://${truth.hosts[truth.pageHost[p] as number]?.name}${truth.paths.at(p)}`);
    if (want >= 0) {
      cityPages++;
      if (got === want) rightCity++;
      else if (got < 0) noCity++;
    } else {
      otherPages++;
      if (got >= 0) falseCity++;
    }
  }
  return { cityPages, rightCity, noCity, otherPages, falseCity };
}

/** Every crawl of one run configuration (the experiment repeats each). */
export interface RunGroup {
  readonly run: RunSpec;
  readonly crawls: readonly Measured[];
}

/** Mean of `f` over the crawls of `g` where it is defined; null when it never is. */
export function avg(g: RunGroup, f: (m: Measured) => number | null | undefined): number | null {
  const xs = g.crawls.map(f).filter((x): x is number => x !== null && x !== undefined);
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Smallest and largest value of `f` over the crawls of `g`, or null. */
export function spread(g: RunGroup, f: (m: Measured) => number | null | undefined): readonly [number, number] | null {
  const xs = g.crawls.map(f).filter((x): x is number => x !== null && x !== undefined);
  return xs.length === 0 ? null : [Math.min(...xs), Math.max(...xs)];
}

/** Sum of `f` over the crawls of `g`. */
export function total(g: RunGroup, f: (m: Measured) => number): number {
  return g.crawls.reduce((s, m) => s + f(m), 0);
}
