/**
 * The partitioner as the simulator asks it: the same `Partitioner` objects as a real collaborative
 * crawl (`src/partition/`), given the facts a crawl node would give (URL, host name, address,
 * anchor text, discovering page; for a fetched page its content digest, language, title and text)
 * as far as the graph knows them.
 *
 * Placing a URL builds its string, so for the hash strategies, whose answer depends on nothing but
 * the URL, its host and its address (the same for every link to a page), the answer is remembered
 * per page. Every other strategy is asked each time.
 */
import { hostnameOfKey } from '../url/url-parts.js';
import { canPlacePages, type CommunityFacts, type PagePlacer, type Partitioner, type Placement } from '../partition/partitioner.js';
import { readsCitations } from '../partition/community/community.js';
import type { TopicModel } from '../partition/topic/truth-topic.js';
import type { SimGraph } from './graph/sim-graph.js';

/** Strategies whose URL placement depends only on the URL, its host and its address (and never on `self`). */
const URL_ONLY_STRATEGIES: ReadonlySet<string> = new Set([
  'url-hash',
  'host-hash',
  'domain-hash',
  'ip-hash',
  'consistent-hash',
  'content-hash',
]);

const NOT_CACHED = -1;

/** Places URLs and pages of a graph; see the file comment. */
export class SimPlacer {
  private readonly cache: Int32Array | null;
  private readonly singletons: readonly Placement[];
  private readonly pagePlacer: PagePlacer | null;

  constructor(
    private readonly graph: SimGraph,
    private readonly partitioner: Partitioner,
  ) {
    this.cache = URL_ONLY_STRATEGIES.has(partitioner.spec.id) ? new Int32Array(graph.pageCount).fill(NOT_CACHED) : null;
    this.singletons = Array.from({ length: partitioner.partitionCount }, (_, p) => Object.freeze([p]));
    this.pagePlacer = canPlacePages(partitioner) ? partitioner : null;
  }

  /** Number of partitions. */
  get partitionCount(): number {
    return this.partitioner.partitionCount;
  }

  /** Whether URL placements depend on nothing but the URL, its host and its address (remembered per page). */
  get isUrlOnly(): boolean {
    return this.cache !== null;
  }

  /** Link counts per page and partition the strategy reads (`community`), or null: the table each node keeps. */
  get citationTable(): { readonly partitionCount: number; readonly capacity: number } | null {
    const p = this.partitioner;
    return readsCitations(p) ? { partitionCount: p.partitionCount, capacity: p.trackedUrls } : null;
  }

  /** Whether fetched pages can be placed (boundary pages). */
  get canPlacePages(): boolean {
    return this.pagePlacer !== null;
  }

  /**
   * Partitions that should fetch page `page`, asked by partition `self`.
   * @param anchorText anchor text of the link, when known
   * @param fromPage the page the link is on, −1 for a seed
   * @param community the asking node's link counts for the page, for a strategy that reads them
   */
  placeUrl(page: number, self: number, anchorText: string | undefined, fromPage: number, community?: CommunityFacts): Placement {
    const cache = this.cache;
    if (cache !== null) {
      const known = cache[page] as number;
      if (known !== NOT_CACHED) return this.singletons[known] as Placement;
    }
    const g = this.graph;
    const host = g.pageHost[page] as number;
    const placement = this.partitioner.placeUrl(
      {
        url: g.urlOf(page),
        hostname: hostnameOfKey(g.hosts.nameOf(host)),
        ip: ipOf(g, host),
        ...(anchorText === undefined || anchorText === '' ? {} : { anchorText }),
        ...(fromPage < 0 ? {} : { fromUrl: g.urlOf(fromPage) }),
        ...(community === undefined ? {} : { community }),
      },
      self,
    );
    if (cache !== null && placement.length === 1) cache[page] = placement[0] as number;
    return placement;
  }

  /** Partitions fetched page `page` belongs to, asked by the partition that fetched it. */
  placePage(page: number, self: number): Placement {
    const placer = this.pagePlacer;
    if (placer === null) return this.singletons[self] as Placement;
    const g = this.graph;
    const host = g.pageHost[page] as number;
    const labels = g.labels;
    const content = g.contentOf?.(page);
    return placer.placePage(
      {
        url: g.urlOf(page),
        hostname: hostnameOfKey(g.hosts.nameOf(host)),
        ip: ipOf(g, host),
        // Equal content, equal digest: a page repeating another byte for byte carries the original's.
        contentDigest: `sim:${labels === null || (labels.sameContentAs[page] as number) < 0 ? page : labels.sameContentAs[page]}`,
        language: labels === null ? null : (labels.languages[labels.lang[page] as number] ?? null),
        title: content?.title ?? null,
        text: content?.text ?? null,
      },
      self,
    );
  }
}

function ipOf(g: SimGraph, host: number): string | null {
  const ip = g.hosts.ips?.[host];
  return ip === undefined || ip === '' ? null : ip;
}

/**
 * The true topic of each page of a labelled graph, for `truth-topic`: looked up by URL, with the
 * page just built remembered, since the placer asks right after building its URL.
 */
export function topicModelOfGraph(graph: SimGraph): TopicModel | null {
  const labels = graph.labels;
  if (labels === null) return null;
  return {
    categories: labels.categories,
    topicOf: (url) => {
      const page = graph.pageIdOf(url);
      return page < 0 ? null : (labels.categories[labels.topic[page] as number] ?? null);
    },
  };
}
