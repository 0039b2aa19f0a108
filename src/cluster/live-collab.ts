/**
 * The collaboration metrics of SPEC §5 live, while an embedded crawl runs: every node's fetch
 * records (the `shoal:crawl:fetch` channel, or relayed from the worker threads) are counted as they
 * come, so that each progress event of the crawl carries the overlap (N − I)/N, the diversity S/N,
 * the load balance (max/mean pages) and the communication overhead so far. The same definitions as
 * `src/eval/` (which `shoal eval` applies to the crawl directories afterwards), computed
 * incrementally: a page counts as downloaded by the node that fetched it when it got a response.
 *
 * Topic locality, live: `shoal eval` counts every linked pair of stored pages; here only the link
 * each page was discovered by is known when the page comes in, so the live figure is the share of
 * (discovering page, page) pairs, both with a category, whose categories are equal.
 *
 * Geo coverage and focus, live (a geo crawl): from the target cities whose street addresses each
 * node found on its pages (`CrawlLogRecord.geoCities`, the address extractor run where the page was
 * analysed), with the definitions of `src/eval/geo-metrics.ts`; `shoal eval` recomputes them against
 * the test web's truth.
 *
 * Community cohesion, precision and recall, live (when the crawl names a truth whose pages carry
 * communities): each download is looked up in the truth and added to its node's set
 * (`src/eval/live-community-scores.ts`), so the figures are exactly those `shoal eval --truth`
 * gives for the pages fetched so far.
 */
import type { LiveCommunityScores } from '../eval/live-community-scores.js';
import type { CrawlProgress } from '../obs/events.js';
import type { CrawlLogRecord } from '../store/records.js';

/** The live figures a crawl's progress events carry. */
export type CollabProgress = NonNullable<CrawlProgress['collab']>;

/** What a crawl against a truth with communities scores its nodes' pages by. */
export interface LiveCommunities {
  /** Sets numbered in member order. */
  readonly scores: LiveCommunityScores;
  /** The truth's page of a URL, or −1. */
  readonly pageOf: (url: string) => number;
}

/** Counts fetch records of the nodes; see the file comment. */
export class LiveCollab {
  /** Per URL downloaded, the nodes that downloaded it (bit i = node i; node ids beyond 31 share bit 31). */
  private readonly downloadedBy = new Map<string, number>();
  private readonly pagesOf = new Map<string, number>();
  private readonly hosts = new Set<string>();
  private downloads = 0;
  private readonly categoryOf = new Map<string, string>();
  private topicPairs = 0;
  private sameTopicPairs = 0;
  private readonly bitOf: ReadonlyMap<string, number>;
  /** Per member, the target cities it owns (empty: a general node); null outside a geo crawl. */
  private readonly citiesOf: ReadonlyMap<string, ReadonlySet<number>> | null;
  private geoAnalysed = 0;
  private geoDownloads = 0;
  private readonly geoPagesOf = new Map<string, { geo: number; own: number }>();

  private readonly indexOf: ReadonlyMap<string, number>;

  /**
   * @param memberCities in a geo crawl, the target cities each member owns, in member order.
   * @param communities against a truth with communities, its scores (one set per member) and page lookup.
   */
  constructor(
    private readonly members: readonly string[],
    memberCities: readonly (readonly number[])[] | null = null,
    private readonly communities: LiveCommunities | null = null,
  ) {
    this.bitOf = new Map(members.map((m, i) => [m, 2 ** Math.min(i, 31)]));
    this.indexOf = new Map(members.map((m, i) => [m, i]));
    this.citiesOf = memberCities === null ? null : new Map(members.map((m, i) => [m, new Set(memberCities[i] ?? [])]));
  }

  /** Counts one record (any outcome; only downloads count), from a node of the crawl. */
  add(r: Pick<CrawlLogRecord, 'node' | 'url' | 'host' | 'status' | 'fromUrl' | 'topic' | 'geoCities' | 'isReceived'>): void {
    const bit = this.bitOf.get(r.node);
    // A forwarded page's copy names the node that fetched it, which published its own record.
    if (bit === undefined || r.status === null || r.isReceived === true) return;
    if (this.citiesOf !== null && r.geoCities != null) this.addGeo(r.node, r.geoCities);
    const category = r.topic?.category ?? null;
    if (category !== null && !this.categoryOf.has(r.url)) {
      this.categoryOf.set(r.url, category);
      const from = r.fromUrl === null ? undefined : this.categoryOf.get(r.fromUrl);
      if (from !== undefined) {
        this.topicPairs++;
        if (from === category) this.sameTopicPairs++;
      }
    }
    this.downloads++;
    if (this.communities !== null) this.communities.scores.add(this.indexOf.get(r.node) as number, this.communities.pageOf(r.url));
    this.pagesOf.set(r.node, (this.pagesOf.get(r.node) ?? 0) + 1);
    this.downloadedBy.set(r.url, (this.downloadedBy.get(r.url) ?? 0) | bit);
    this.hosts.add(r.host.replace(/:\d+$/, ''));
  }

  /** The figures so far; `urlsSent` is the crawl's URLs sent through the exchange so far. */
  figures(urlsSent: number): CollabProgress {
    const n = this.downloads;
    const pages = this.members.map((m) => this.pagesOf.get(m) ?? 0);
    const mean = pages.reduce((a, p) => a + p, 0) / Math.max(1, pages.length);
    return {
      downloads: n,
      uniquePages: this.downloadedBy.size,
      overlap: n === 0 ? 0 : (n - this.downloadedBy.size) / n,
      diversity: n === 0 ? null : this.hosts.size / n,
      loadMaxOverMean: mean === 0 ? null : Math.max(...pages) / mean,
      urlsPerPage: n === 0 ? null : urlsSent / n,
      topicLocality: this.topicPairs === 0 ? null : this.sameTopicPairs / this.topicPairs,
      geoCoverage: this.geoAnalysed === 0 ? null : this.geoDownloads / this.geoAnalysed,
      geoFocus: this.geoFocus(),
      community: this.communityFigures(),
    };
  }

  /** Mean cohesion, precision and recall over nodes with pages of the truth; null without communities. */
  private communityFigures(): CollabProgress['community'] {
    if (this.communities === null) return null;
    const { cohesion, precision, recall } = this.communities.scores.mean();
    return { cohesion, precision, recall };
  }

  private addGeo(node: string, cities: readonly number[]): void {
    this.geoAnalysed++;
    if (cities.length === 0) return;
    this.geoDownloads++;
    const own = this.citiesOf?.get(node);
    if (own === undefined || own.size === 0) return;
    const counts = this.geoPagesOf.get(node) ?? { geo: 0, own: 0 };
    counts.geo++;
    if (cities.some((c) => own.has(c))) counts.own++;
    this.geoPagesOf.set(node, counts);
  }

  /** Mean over geo nodes with geo pages of own / geo; null before any. */
  private geoFocus(): number | null {
    if (this.geoPagesOf.size === 0) return null;
    let sum = 0;
    for (const c of this.geoPagesOf.values()) sum += c.own / c.geo;
    return sum / this.geoPagesOf.size;
  }
}
