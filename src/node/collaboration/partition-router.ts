/**
 * The sending side of a collaborative node (SPEC §4, §4.5): which of the URLs it finds it keeps,
 * and which it hands to the nodes that own them.
 *
 * Every URL that passed the URL filter is placed by the partitioner (`placeUrl`). When the node's
 * own partition is in the placement, the URL goes on to this node's URL-seen test and frontier; for
 * every other partition named, it is sent, unless the {@link SentCache} says it was sent lately.
 * Sent URLs are batched per partition (`batchUrls` URLs, or whatever is waiting when `flush` is
 * called: every `batchDelayMs` and at each checkpoint, before the exchange's outbox is synced);
 * the fingerprints of the pages the node keeps, for the other nodes' near-duplicate indexes
 * (`simhash-sharing.ts`), are flushed with them.
 *
 * While routing, it also counts, per partition, the links this node's pages make to URLs that
 * partition owns (every occurrence, before the sent cache), and sends them as link summaries (`sendLinkSummaries`, every `linkSummaryIntervalMs`), so that
 * backlink and PageRank estimates can count links seen by other nodes. When the node's policy values
 * links (`rankShareOf`, a `pagerank` order), each counted link also adds the linking page's share,
 * y(T)/c_T, to the URL's entry: the summary then carries `shares` for the owner's IR′
 * (`order/pagerank.ts`, Cho's remedy for hash partitioning). When it knows out-degrees
 * (`outDegreeOf`, a `forward-links` order), the entry keeps the largest out-degree of the linking
 * pages: the summary's `outDegrees`, for the owner's forward-link order (`order/forward-links.ts`).
 *
 * A strategy that reads citations (`community`) is given, with each URL, how many links to it each
 * partition's pages made ({@link CitationTable}): this node's links are counted as they are routed,
 * the other nodes' come in their link summaries ({@link receiveLinks}). For it the router counts
 * every link, kept or sent, and sends the counts to every other partition, naming its own.
 *
 * Seeds are not sent: every node reads the same seed list and keeps the seeds placed on it
 * ({@link keepsSeed}), so no seed crosses the exchange.
 */
import type { Candidate } from '../stages/candidate.js';
import type { Exchange } from '../../exchange/exchange.js';
import type { ExchangedUrl, LinkSummaryMessage } from '../../exchange/messages.js';
import { SentCache } from '../../exchange/sent-cache.js';
import type { Partitioner, PartitionId, Placement, UrlToPlace } from '../../partition/partitioner.js';
import { urlFingerprintInto } from '../../url/fingerprint.js';
import { detach } from '../../core/strings.js';
import { CitationTable } from '../../partition/community/citation-table.js';
import { readsCitations } from '../../partition/community/community.js';
import type { SimHashSharing } from './simhash-sharing.js';

/** Options of {@link PartitionRouter}. */
export interface PartitionRouterOptions {
  readonly nodeId: string;
  readonly partitioner: Partitioner;
  /** The partitions this node owns (the first is the one it asks placements for). */
  readonly partitions: readonly PartitionId[];
  readonly exchange: Exchange;
  /** URLs per batch message. */
  readonly batchUrls: number;
  /** Slots of the cache of URLs sent lately; 0 turns it off. */
  readonly sentCacheEntries: number;
  /** Whether links to other partitions' URLs are counted for link summaries. */
  readonly isSummarizing: boolean;
  /** Distinct target URLs counted per partition before a link summary is sent early. */
  readonly maxSummaryUrls?: number;
  /** What each link of the fetched page with this URL id carries (the policy's `rankShare`); absent when the policy values no links. */
  readonly rankShareOf?: (fromId: number) => number;
  /** The out-degree of the fetched page with this URL id (the policy's `outDegree`); absent when the policy knows none. */
  readonly outDegreeOf?: (fromId: number) => number;
  /** Fingerprints of kept pages for the other nodes, batched and flushed with the URLs; absent when not shared. */
  readonly simhashes?: SimHashSharing;
}

/** What the router did, for the node's statistics. */
export interface RouterCounts {
  /** URLs placed on this node's partitions and kept. */
  kept: number;
  /** URLs handed to the exchange (each partition counted). */
  sent: number;
  /** URLs not sent again because the sent cache remembered them. */
  cached: number;
}

/** See the file comment. */
export class PartitionRouter {
  readonly counts: RouterCounts = { kept: 0, sent: 0, cached: 0 };
  private readonly own: ReadonlySet<PartitionId>;
  private readonly self: PartitionId;
  private readonly cache: SentCache;
  private readonly batches = new Map<PartitionId, ExchangedUrl[]>();
  private readonly summaries = new Map<PartitionId, Map<string, number>>();
  /** Per partition, Σ of the linking pages' shares per URL (parallel to `summaries`), when valued. */
  private readonly shares = new Map<PartitionId, Map<string, number>>();
  /** Per partition, the largest out-degree of the linking pages per URL (parallel to `summaries`), when known. */
  private readonly degrees = new Map<PartitionId, Map<string, number>>();
  private readonly scratch = new Uint32Array(2);
  private readonly maxSummaryUrls: number;
  private readonly isSummarizing: boolean;
  /** Link counts per URL and partition, for a strategy that reads citations; else null. */
  private readonly citations: CitationTable<string> | null;
  /** This node's links since the last summary, for every other partition (strategies that read citations). */
  private readonly cited = new Map<string, number>();

  constructor(private readonly options: PartitionRouterOptions) {
    if (options.partitions.length === 0) throw new Error('a collaborative node owns at least one partition');
    this.own = new Set(options.partitions);
    this.self = options.partitions[0] as PartitionId;
    this.cache = new SentCache(options.sentCacheEntries);
    this.maxSummaryUrls = options.maxSummaryUrls ?? 50_000;
    this.isSummarizing = options.isSummarizing;
    const p = options.partitioner;
    this.citations = readsCitations(p) ? new CitationTable(p.partitionCount, p.trackedUrls) : null;
  }

  /** Whether placing a URL needs its host's address (ip-hash). */
  get needsIp(): boolean {
    return this.options.partitioner.needsIp;
  }

  /** URLs (and page fingerprints) waiting in batches not yet sent. */
  get batched(): number {
    let n = this.options.simhashes?.batched ?? 0;
    for (const b of this.batches.values()) n += b.length;
    return n;
  }

  /**
   * Places `candidates`: returns those this node keeps, sends the others (batched).
   * @param ipOf the resolved address of a host name, when known.
   * @param fromPage where the page the candidates were found on belongs, for strategies whose URLs follow pages.
   */
  route(candidates: readonly Candidate[], ipOf: (hostname: string) => string | null, fromPage?: Placement): Candidate[] {
    const kept: Candidate[] = [];
    const citations = this.citations;
    for (const c of candidates) {
      if (citations !== null && c.fromUrl !== null) this.cite(citations, c.url);
      const placement = this.options.partitioner.placeUrl(this.factsOf(c, ipOf, fromPage), this.self);
      let isKept = false;
      for (const p of placement) {
        if (this.own.has(p)) {
          isKept = true;
        } else {
          if (this.isSummarizing && citations === null && c.fromUrl !== null) this.countLink(p, c.url, c.fromId);
          this.sendUrl(p, c);
        }
      }
      if (isKept) {
        kept.push(c);
        this.counts.kept++;
        citations?.markKept(c.url);
      }
    }
    return kept;
  }

  /**
   * Whether this node takes seed number `index` of the seed list every node reads: the seed's
   * placement asked as if node `index mod n` had found it (so strategies that keep URLs where they
   * are found spread the seeds round-robin), kept when it names one of this node's partitions.
   */
  keepsSeed(seed: Candidate, index: number, ipOf: (hostname: string) => string | null): boolean {
    const n = this.options.partitioner.partitionCount;
    const placement = this.options.partitioner.placeUrl(this.factsOf(seed, ipOf), index % n);
    return placement.some((p) => this.own.has(p));
  }

  /** Sends every partial batch (of fingerprints too). */
  flush(): void {
    this.options.simhashes?.flush();
    for (const [p, batch] of this.batches) {
      if (batch.length > 0) this.sendBatch(p, batch);
    }
    this.batches.clear();
  }

  /** Sends the link counts gathered since the last summary. */
  sendLinkSummaries(): void {
    for (const [p, counts] of this.summaries) if (counts.size > 0) this.sendSummary(p, counts);
    this.summaries.clear();
    if (this.cited.size > 0) this.sendCitations();
  }

  /** Link counts another node sent: votes of its partition, for a strategy that reads citations. */
  receiveLinks(m: LinkSummaryMessage): void {
    const citations = this.citations;
    const from = m.partition;
    if (citations === null || from === undefined || this.own.has(from)) return;
    for (const [url, links] of m.counts) citations.cite(url, from, links);
  }

  private factsOf(c: Candidate, ipOf: (hostname: string) => string | null, fromPage?: Placement): UrlToPlace {
    const community = this.citations?.factsOf(c.url);
    return {
      ...(community === undefined ? {} : { community }),
      url: c.url,
      hostname: c.hostname,
      ip: ipOf(c.hostname),
      ...(c.anchorText === undefined ? {} : { anchorText: c.anchorText }),
      ...(c.anchorBefore === undefined ? {} : { anchorBefore: c.anchorBefore }),
      ...(c.anchorAfter === undefined ? {} : { anchorAfter: c.anchorAfter }),
      ...(c.fromUrl === null ? {} : { fromUrl: c.fromUrl }),
      ...(fromPage === undefined ? {} : { fromPage }),
    };
  }

  private countLink(p: PartitionId, url: string, fromId: number | undefined): void {
    const counts = entriesOf(this.summaries, p);
    counts.set(url, (counts.get(url) ?? 0) + 1);
    const shareOf = this.options.rankShareOf;
    if (shareOf !== undefined) {
      const shares = entriesOf(this.shares, p);
      const share = fromId === undefined ? 0 : shareOf(fromId);
      shares.set(url, (shares.get(url) ?? 0) + (Number.isFinite(share) && share > 0 ? share : 0));
    }
    const degreeOf = this.options.outDegreeOf;
    if (degreeOf !== undefined) {
      const degrees = entriesOf(this.degrees, p);
      const degree = fromId === undefined ? 0 : degreeOf(fromId);
      const best = degrees.get(url) ?? 0;
      degrees.set(url, Number.isSafeInteger(degree) && degree > best ? degree : best);
    }
    if (counts.size >= this.maxSummaryUrls) this.sendSummary(p, counts);
  }

  /** Counts a link of this node's pages to `url`: a vote of its own partition, and one for the next summary. */
  private cite(citations: CitationTable<string>, url: string): void {
    citations.cite(url, this.self);
    if (!this.isSummarizing) return;
    this.cited.set(url, (this.cited.get(url) ?? 0) + 1);
    if (this.cited.size >= this.maxSummaryUrls) this.sendCitations();
  }

  /** Sends this node's link counts to every partition it does not own. */
  private sendCitations(): void {
    const counts = [...this.cited];
    this.cited.clear();
    for (let p = 0; p < this.options.partitioner.partitionCount; p++) {
      if (!this.own.has(p)) this.options.exchange.send(p, { kind: 'links', from: this.options.nodeId, counts, partition: this.self });
    }
  }

  private sendUrl(p: PartitionId, c: Candidate): void {
    const s = this.scratch;
    urlFingerprintInto(c.url, s);
    // The partition is mixed in: a URL placed on two partitions (Policy B) is sent to each.
    if (this.cache.testAndAdd((s[0] as number) ^ Math.imul(p + 1, 0x9e3779b1), s[1] as number)) {
      this.counts.cached++;
      return;
    }
    let batch = this.batches.get(p);
    if (batch === undefined) {
      batch = [];
      this.batches.set(p, batch);
    }
    batch.push({
      url: c.url,
      depth: c.depth,
      fromUrl: c.fromUrl,
      // Detached: a batch waits to fill, and the embedded exchange holds it until acknowledged, and a
      // text cut from the page (analysis in the crawl thread) would keep the whole page until then.
      ...(c.anchorText === undefined || c.anchorText === '' ? {} : { anchorText: detach(c.anchorText) }),
    });
    this.counts.sent++;
    if (batch.length >= this.options.batchUrls) {
      this.sendBatch(p, batch);
      this.batches.delete(p);
    }
  }

  private sendBatch(p: PartitionId, urls: readonly ExchangedUrl[]): void {
    this.options.exchange.send(p, { kind: 'urls', from: this.options.nodeId, urls });
  }

  private sendSummary(p: PartitionId, counts: Map<string, number>): void {
    const shares = this.shares.get(p);
    const degrees = this.degrees.get(p);
    const entries = [...counts];
    const outDegrees = degrees === undefined ? [] : entries.map(([url]) => degrees.get(url) ?? 0);
    this.options.exchange.send(p, {
      kind: 'links',
      from: this.options.nodeId,
      counts: entries,
      ...(shares === undefined ? {} : { shares: entries.map(([url]) => shares.get(url) ?? 0) }),
      // All zeros say nothing a forward-link order can use (a weighted order without such a component).
      ...(outDegrees.some((d) => d > 0) ? { outDegrees } : {}),
    });
    counts.clear();
    shares?.clear();
    degrees?.clear();
  }
}

/** The entry map of partition `p` in `byPartition`, created when missing. */
function entriesOf(byPartition: Map<PartitionId, Map<string, number>>, p: PartitionId): Map<string, number> {
  let entries = byPartition.get(p);
  if (entries === undefined) {
    entries = new Map();
    byPartition.set(p, entries);
  }
  return entries;
}
