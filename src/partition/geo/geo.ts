/**
 * Geographically focused partitioning (SPEC §4.3; seed 003 §3): geo-sensitive nodes each own a group
 * of target cities, general nodes own the pages of no city.
 *
 *   placeUrl(u)  = nodes(pr(c | link u))        when the strategy sees a city in the link
 *                = nodes(pr(c | page p))        else, p the page u was found on, when the strategy reads pages and p has a city
 *                = { g(host of u) }             else: a general node, by a hash of the host
 *   placePage(p) = nodes(pr(c | page p)), or { g(host of p) }
 *
 *   nodes(scores) = { A(argmax_c scores) }                 Policy A
 *                 = { A(c) : c with a score }              Policy B
 *
 * A: city → partition. The groups (`cluster.geo.groups`) are lists of time zones or `"Name, ST"`
 * labels; group i is partition i, and the partitions after the last group are general. The default
 * is the paper's: Eastern, Central, Mountain, Pacific, Alaska + Hawaii (with fewer than six
 * partitions the five groups are dealt round-robin to all partitions but the last). Every target is
 * in exactly one group; at least one partition is general (a crawl of one partition is both).
 *
 * The page's own placement reaches `placeUrl` as `url.fromPage` (the node computes it once per page:
 * `urlsFollowPages`), so a page-reading strategy sends every link of a page where the page belongs,
 * which is the paper's "all URLs extracted from p", and a link-reading one judges each link alone.
 * Seeds are links without a page.
 *
 * One host's URLs may be split between nodes (a city in some of its paths only): each node is polite
 * to the hosts it fetches from, not to what the others fetch.
 */
import type { Gazetteer, TimeZone } from '../../geo/gazetteer.js';
import { TIME_ZONES } from '../../geo/gazetteer.js';
import type { GeoScores, GeoStrategy } from '../../geo/geo-strategy.js';
import { bestTarget } from '../../geo/geo-strategy.js';
import { partitionOfKey } from '../hash/hash-key.js';
import { checkPartitionCount, PartitionParamError, singletonPlacements } from '../partition-params.js';
import type { PagePlacer, PageToPlace, Partitioner, PartitionerSpec, PartitionId, Placement, UrlToPlace } from '../partitioner.js';

/** Policy A (one node: the best city's) or B (the node of every city with a score). */
export type GeoPolicy = 'A' | 'B';

/** The paper's grouping of the targets: by time zone, Alaska and Hawaii together. */
export const DEFAULT_GEO_GROUPS: readonly (readonly string[])[] = Object.freeze([
  ['Eastern'],
  ['Central'],
  ['Mountain'],
  ['Pacific'],
  ['Alaska', 'Hawaii'],
]);

/** Parameters of {@link GeoPartitioner}. */
export interface GeoParams {
  readonly policy?: GeoPolicy;
  /** Groups of time zones or `"Name, ST"` labels, one per geo-sensitive partition; null = {@link DEFAULT_GEO_GROUPS}. */
  readonly groups?: readonly (readonly string[])[] | null;
}

/** See the file comment. */
export class GeoPartitioner implements Partitioner, PagePlacer {
  readonly spec: PartitionerSpec;
  readonly partitionCount: number;
  readonly needsIp = false;
  readonly urlsFollowPages = true;
  /** Partition of each target. */
  readonly cityPartition: Int32Array;
  /** The partitions that own no city. */
  readonly generalPartitions: readonly PartitionId[];
  readonly policy: GeoPolicy;
  readonly #singletons: readonly Placement[];
  readonly #citiesPer: Uint32Array;
  #lastPage: (Pick<PageToPlace, 'url' | 'title' | 'text' | 'ip'> & { readonly scores: GeoScores }) | null = null;

  /** Throws a `PartitionParamError` on a bad count, grouping or policy. */
  constructor(
    readonly strategy: GeoStrategy,
    readonly gazetteer: Gazetteer,
    partitionCount: number,
    params: GeoParams = {},
  ) {
    checkPartitionCount(partitionCount);
    const policy = params.policy ?? 'A';
    if (policy !== 'A' && policy !== 'B') throw new PartitionParamError('policy', `A or B, got ${String(policy)}`);
    this.policy = policy;
    this.partitionCount = partitionCount;
    this.#singletons = singletonPlacements(partitionCount);
    const { cityPartition, geoPartitions, entries } = assignCities(gazetteer, partitionCount, params.groups ?? null);
    this.cityPartition = cityPartition;
    const citiesPer = new Uint32Array(partitionCount);
    for (const p of cityPartition) citiesPer[p] = (citiesPer[p] as number) + 1;
    this.#citiesPer = citiesPer;
    // A crawl of one node is its own general node.
    this.generalPartitions = Object.freeze(
      partitionCount === 1 ? [0] : Array.from({ length: partitionCount - geoPartitions }, (_, i) => geoPartitions + i),
    );
    this.spec = Object.freeze({
      id: 'geo',
      params: Object.freeze({
        strategy: strategy.spec.id,
        ...Object.fromEntries(Object.entries(strategy.spec.params).map(([k, v]) => [`strategy.${k}`, v])),
        policy,
        groups: entries,
        general: this.generalPartitions.join(','),
        // Every target with its partition, so that a crawl's metrics can be computed from its manifest alone.
        cities: gazetteer.targets.map((t) => `${t.label}=${cityPartition[t.index] as number}`),
      }),
    });
  }

  /** The cities of each partition (target indices; empty for a general one). */
  get citiesOfPartitions(): number[][] {
    const out: number[][] = Array.from({ length: this.partitionCount }, () => []);
    this.cityPartition.forEach((p, t) => out[p]?.push(t));
    return out;
  }

  placeUrl(url: UrlToPlace, _self: PartitionId): Placement {
    const s = this.strategy;
    if (s.readsLinks) {
      const scores = s.scoreLink({
        url: url.url,
        ...(url.anchorText === undefined ? {} : { anchorText: url.anchorText }),
        ...(url.anchorBefore === undefined ? {} : { anchorBefore: url.anchorBefore }),
        ...(url.anchorAfter === undefined ? {} : { anchorAfter: url.anchorAfter }),
      });
      if (scores.size > 0) return this.#nodesOf(scores);
    }
    // A page of no city (placed on a general node) leaves its links to the general node of their own host.
    if (s.readsPages && url.fromPage !== undefined && !url.fromPage.every((p) => this.#citiesPer[p] === 0)) return url.fromPage;
    return this.#general(url.hostname);
  }

  placePage(page: PageToPlace, _self: PartitionId): Placement {
    if (this.strategy.readsPages) {
      const scores = this.#scoresOf(page);
      if (scores.size > 0) return this.#nodesOf(scores);
    }
    return this.#general(page.hostname);
  }

  /** The target the strategy gives a page (Policy A's city), or −1: what the metrics call the page's city. */
  cityOfPage(page: Pick<PageToPlace, 'url' | 'title' | 'text' | 'ip'>): number {
    return this.strategy.readsPages ? bestTarget(this.#scoresOf(page)) : -1;
  }

  /**
   * The strategy's scores of a page. A node places a page and then asks its city for pages.jsonl:
   * the last answer is kept, so the content formula or the classifier runs once per page.
   */
  #scoresOf(page: Pick<PageToPlace, 'url' | 'title' | 'text' | 'ip'>): GeoScores {
    const last = this.#lastPage;
    if (last !== null && last.url === page.url && last.title === page.title && last.text === page.text && last.ip === page.ip) {
      return last.scores;
    }
    const scores = this.strategy.scorePage({ url: page.url, title: page.title, text: page.text, ip: page.ip });
    this.#lastPage = { url: page.url, title: page.title, text: page.text, ip: page.ip, scores };
    return scores;
  }

  #nodesOf(scores: GeoScores): Placement {
    if (this.policy === 'A') return this.#singletons[this.cityPartition[bestTarget(scores)] as number] as Placement;
    const parts = new Set<PartitionId>();
    for (const t of scores.keys()) parts.add(this.cityPartition[t] as number);
    if (parts.size === 1) return this.#singletons[parts.values().next().value as number] as Placement;
    return Object.freeze([...parts].sort((a, b) => a - b));
  }

  #general(hostname: string): Placement {
    const g = this.generalPartitions;
    const p = g.length === 1 ? (g[0] as number) : (g[partitionOfKey(hostname, g.length)] as number);
    return this.#singletons[p] as Placement;
  }
}

/** City → partition for a grouping; see the file comment. */
function assignCities(
  gazetteer: Gazetteer,
  n: number,
  groups: readonly (readonly string[])[] | null,
): { cityPartition: Int32Array; geoPartitions: number; entries: string[] } {
  const isDefault = groups === null;
  const list = groups ?? DEFAULT_GEO_GROUPS;
  if (list.length === 0) throw new PartitionParamError('groups', 'at least one group of cities');
  if (!isDefault && list.length >= n) {
    throw new PartitionParamError('groups', `${list.length} groups need at least ${list.length + 1} partitions (one general), got ${n}`);
  }
  const geoPartitions = Math.max(1, Math.min(list.length, n - 1));
  const cityPartition = new Int32Array(gazetteer.targets.length).fill(-1);
  const zones = new Set<string>(TIME_ZONES);
  list.forEach((group, i) => {
    const partition = i % geoPartitions;
    for (const item of group) {
      const members = zones.has(item)
        ? gazetteer.targets.filter((t) => t.timeZone === (item as TimeZone)).map((t) => t.index)
        : [gazetteer.indexOf(item)];
      if (members[0] === -1)
        throw new PartitionParamError('groups', `${item} is neither a time zone (${TIME_ZONES.join(', ')}) nor a target "Name, ST"`);
      for (const t of members) {
        if (cityPartition[t] !== -1 && cityPartition[t] !== partition) {
          throw new PartitionParamError('groups', `${gazetteer.targets[t]?.label ?? t} is in two groups`);
        }
        cityPartition[t] = partition;
      }
    }
  });
  const missing = gazetteer.targets.filter((t) => cityPartition[t.index] === -1).map((t) => t.label);
  if (missing.length > 0) {
    throw new PartitionParamError(
      'groups',
      `targets in no group: ${missing.slice(0, 8).join('; ')}${missing.length > 8 ? ` and ${missing.length - 8} more` : ''}`,
    );
  }
  return { cityPartition, geoPartitions, entries: list.map((g, i) => `${g.join('+')}=${i % geoPartitions}`) };
}
