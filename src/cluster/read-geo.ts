/**
 * The geographic metrics of a crawl directory (SPEC §5; seed 003 §4), against a test web's ground
 * truth: which node downloaded which page comes from the crawl logs and the links from the nodes'
 * link graphs (both as `read-crawl.ts` reads them), and which page holds which street address from
 * the truth's `entities.tsv`, exactly.
 *
 * - Pages are numbered by the truth's page ids; a URL the truth does not know gets an id past them
 *   (no entity, no city).
 * - Each node owns the cities of its partitions (`cluster.json` says which partitions a node has; a
 *   crawl of one node has them all). A node owning none is a general node.
 * - An entity's city is a target when its `"Name, ST"` is in the gazetteer; the others count nowhere.
 *   One entity is one street address, keyed as the extractor keys them (`addressKey`: number, street
 *   in USPS standard form, so "Oak St" and "Oak Street" are one, city and state; not the ZIP).
 * - The argmax city of δ and δ̃ is the truth's city of the page (the ideal labelling) unless
 *   `cityOf` gives the crawl's own.
 * - Geo centrality walks the links the crawl recorded between downloaded pages (the union over the
 *   nodes), not the truth's graph: the paper computes it on the retrieved pages.
 */
import type { Csr } from '../eval/csr.js';
import { csrFromEdges } from '../eval/csr.js';
import { geoMetrics, type GeoMetrics, type GeoMetricsInput, type GeoMetricsOptions, type PageEntities } from '../eval/geo-metrics.js';
import { Gazetteer, placeLabel } from '../geo/gazetteer.js';
import { addressKey } from '../geo/address-extractor.js';
import { cityLabel, type TruthEntity } from '../web/truth/format.js';
import type { Truth } from '../web/truth/read.js';
import { readCrawlForEval, truthPageOfKey, type CrawlForEval } from './read-crawl.js';
import type { ClusterManifest } from '../store/crawl-dir.js';

/**
 * The targets and the cities of each partition of a `geo` crawl, from its partitioner's spec (the
 * `cities` entries `"Name, ST=p"` in `cluster.json`), or null for another strategy. The metrics need
 * only the targets' labels: the gazetteer built here has their names, not their populations.
 */
export function geoTargetsOfSpec(
  spec: { readonly id: string; readonly params: Readonly<Record<string, unknown>> },
  partitionCount: number,
): Pick<GeoEvalOptions, 'gazetteer' | 'cityPartitions'> | null {
  const cities = spec.params['cities'];
  if (spec.id !== 'geo' || !Array.isArray(cities)) return null;
  const entries = (cities as readonly string[]).map((entry) => {
    const eq = entry.lastIndexOf('=');
    const label = entry.slice(0, eq);
    const comma = label.lastIndexOf(',');
    return { name: label.slice(0, comma).trim(), state: label.slice(comma + 1).trim(), partition: Number(entry.slice(eq + 1)) };
  });
  const gazetteer = new Gazetteer(entries.map((e) => ({ name: e.name, state: e.state, population: 1, timeZone: 'Eastern' as const })));
  const cityPartitions: number[][] = Array.from({ length: partitionCount }, () => []);
  entries.forEach((e, t) => cityPartitions[e.partition]?.push(t));
  return { gazetteer, cityPartitions };
}

/** In a geo crawl, the target cities each node of the manifest owns (for the live figures); null for another strategy. */
export function memberCitiesOf(manifest: ClusterManifest): number[][] | null {
  const targets = geoTargetsOfSpec(manifest.partitioner, manifest.partitionCount);
  if (targets === null) return null;
  return manifest.nodes.map((m) => m.partitions.flatMap((p) => targets.cityPartitions[p] ?? []));
}

/** Options of {@link readGeoEval}. */
export interface GeoEvalOptions {
  /** For each partition of the crawl, the target indices (into `gazetteer.targets`) it owns; [] for a general partition. */
  readonly cityPartitions: readonly (readonly number[])[];
  /** The crawl's targets. */
  readonly gazetteer: Gazetteer;
  /**
   * The argmax city of a page as a target index (−1 for none), for δ and δ̃: `page` is the truth's
   * page id (−1 for a URL it does not know), `url` the page's URL (`http://host/path` for a truth
   * page). Default: the truth's city of the page.
   */
  readonly cityOf?: (page: number, url: string) => number;
  /** k, m, the sample size and seed of δ̃ (defaults of {@link geoMetrics}). */
  readonly metrics?: GeoMetricsOptions;
  /** The same directory as `readCrawlForEval(dir, truth)` read it, when already read. */
  readonly crawl?: CrawlForEval;
}

/**
 * Reads `crawlDir` (one node or a collaborative crawl) and computes its geographic metrics.
 * @throws RangeError when `cityPartitions` does not match the crawl's partitions or names a target that does not exist.
 * @throws ShoalError `IO` for a directory that is no crawl directory or a damaged file.
 */
export async function readGeoEval(crawlDir: string, truth: Truth, options: GeoEvalOptions): Promise<GeoMetrics> {
  const crawl = options.crawl ?? (await readCrawlForEval(crawlDir, truth));
  const input = geoInputOf(crawl, truth, await truth.entities(), options);
  return geoMetrics(input);
}

/** The input of {@link geoMetrics} for a crawl read with the truth ({@link readGeoEval} without the reading). */
export function geoInputOf(
  crawl: CrawlForEval,
  truth: Truth,
  entities: readonly TruthEntity[],
  options: Omit<GeoEvalOptions, 'crawl'>,
): GeoMetricsInput {
  const { gazetteer, cityPartitions } = options;
  const partitionsOf = nodePartitions(crawl, cityPartitions.length);
  for (const [i, cities] of cityPartitions.entries())
    for (const c of cities)
      if (!Number.isInteger(c) || c < 0 || c >= gazetteer.targets.length)
        throw new RangeError(`readGeoEval: partition ${i} names target ${c}; the gazetteer has 0..${gazetteer.targets.length - 1}`);

  const extra = new Map<string, number>();
  const idOf = (key: string): number => {
    const page = truthPageOfKey(key);
    if (page >= 0) return page;
    let id = extra.get(key);
    if (id === undefined) {
      id = truth.pageCount + extra.size;
      extra.set(key, id);
    }
    return id;
  };
  const nodes = crawl.nodes.map((node, i) => ({
    node: node.node,
    cities: [...new Set((partitionsOf[i] as readonly number[]).flatMap((p) => cityPartitions[p] as readonly number[]))],
    pages: Uint32Array.from(node.downloads, (d) => idOf(d.url)),
  }));
  const from: number[] = [];
  const to: number[] = [];
  for (const set of crawl.links) {
    const ids = set.urls.map(idOf);
    for (let e = 0; e < set.from.length; e++) {
      from.push(ids[set.from[e] as number] as number);
      to.push(ids[set.to[e] as number] as number);
    }
  }
  const pageCount = truth.pageCount + extra.size;
  const links: Csr = csrFromEdges(pageCount, Uint32Array.from(from), Uint32Array.from(to));

  const targetOfCity = truth.manifest.cities.map((c) => gazetteer.indexOf(cityLabel(c)));
  const cityOf = new Int32Array(pageCount).fill(-1);
  if (options.cityOf === undefined) {
    for (let p = 0; p < truth.pageCount; p++) {
      const c = truth.city[p] as number;
      if (c >= 0) cityOf[p] = targetOfCity[c] ?? -1;
    }
  } else {
    const downloaded = new Uint8Array(pageCount);
    for (const n of nodes) for (const p of n.pages) downloaded[p] = 1;
    const urlOf = [...extra.keys()];
    for (let p = 0; p < pageCount; p++) {
      if (downloaded[p] !== 1) continue; // δ and δ̃ look at downloaded pages only
      cityOf[p] =
        p < truth.pageCount
          ? options.cityOf(p, `http://${truth.hosts[truth.pageHost[p] as number]?.name}${truth.paths.at(p)}`)
          : options.cityOf(-1, urlOf[p - truth.pageCount] as string);
    }
  }
  return {
    pageCount,
    nodes,
    entities: pageEntities(entities, pageCount, (e) => gazetteer.indexOf(placeLabel(e.city, e.state))),
    links,
    cityOf,
    ...(options.metrics === undefined ? {} : { options: options.metrics }),
  };
}

/** The partitions of each node: from `cluster.json`, or all of them for a crawl of one node. */
function nodePartitions(crawl: CrawlForEval, partitionCount: number): (readonly number[])[] {
  const { manifest } = crawl;
  if (manifest === null) {
    if (crawl.nodes.length !== 1) throw new RangeError(`readGeoEval: ${crawl.nodes.length} nodes without a cluster manifest`);
    return [Array.from({ length: partitionCount }, (_, p) => p)];
  }
  if (manifest.partitionCount !== partitionCount)
    throw new RangeError(`readGeoEval: the crawl has ${manifest.partitionCount} partitions, cityPartitions lists ${partitionCount}`);
  return manifest.nodes.map((n) => n.partitions);
}

/** The truth's entities grouped by page, each with its target (−1 for a city that is no target) and key. */
function pageEntities(entities: readonly TruthEntity[], pageCount: number, targetOf: (e: TruthEntity) => number): PageEntities {
  const offsets = new Uint32Array(pageCount + 1);
  for (const e of entities) offsets[e.page + 1] = (offsets[e.page + 1] as number) + 1;
  for (let p = 0; p < pageCount; p++) offsets[p + 1] = (offsets[p + 1] as number) + (offsets[p] as number);
  const fill = offsets.slice(0, pageCount);
  const city = new Int32Array(entities.length);
  const key = new Array<string>(entities.length);
  for (const e of entities) {
    const at = fill[e.page] as number;
    fill[e.page] = at + 1;
    city[at] = targetOf(e);
    key[at] = addressKey(e);
  }
  return { offsets, city, key };
}
