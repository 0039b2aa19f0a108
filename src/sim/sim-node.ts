/**
 * One simulated node: what a real crawl node does with a page, on the simulator's graph and
 * virtual clock. Its state is a frontier (`sim-frontier.ts`), its own ordering policy object, a
 * URL-seen bitmap, the depth at which it queued each page, and counters.
 *
 * The steps follow the real node (`src/node/stages/page-processor.ts`, `admission.ts`, `inbox.ts`,
 * `partition-router.ts`) call for call, so that the same policy sees the same calls in the same
 * order:
 *
 * 1. **Fetched page** (or a boundary page another node forwarded): `policy.observe` with every
 *    out-link id in document order (nofollow, repeats and known targets included), then the
 *    priority changes it returns go to the frontier. A redirect is not observed: its target goes on
 *    as in step 2, without a discovering page; a page that gave nothing (an error) ends here.
 * 2. **Each out-link**, in document order, unless it is nofollow or this node has met it before
 *    (queued, fetched, received or sent: the URL-seen test, with an unbounded cache of URLs sent):
 *    placed by the partitioner; for its own partition the node calls `policy.prioritize` (depth + 1,
 *    the page as `fromId`, the anchor text) and adds it to the frontier; other partitions are sent
 *    the URL through the exchange (counted). The first occurrence of a link wins.
 * 3. **URLs received** enter as URLs already placed: seen test (which absorbs duplicates), then
 *    `prioritize` without a discovering page, then the frontier.
 * 4. **Boundary pages** (forward mode `pages` or `both`, a partitioner that places pages): a page
 *    placed on other partitions only is sent to them and not followed here; its owners follow it.
 * 5. **Link summaries**: the links this node's pages make to URLs other partitions own, every
 *    occurrence counted (with the linking pages' rank shares and largest out-degree when the
 *    policy gives them), sent every summary interval to policies that can use them. A strategy that
 *    reads citations (`community`) is given each page's link counts per partition: this node counts
 *    every followed link of its pages (known targets included), sends the counts to every other node,
 *    and adds the counts it receives (`src/partition/community/citation-table.ts`).
 */
import {
  canObserveRemoteLinks,
  canShareRank,
  canTellOutDegree,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type PriorityChanges,
} from '../order/policy.js';
import { SimPageKind, type SimGraph } from './graph/sim-graph.js';
import { PageBits } from './page-bits.js';
import type { SimPlacer } from './placement.js';
import { SimFrontier, type SimFrontierOptions } from './sim-frontier.js';
import { CitationTable } from '../partition/community/citation-table.js';

/** Largest depth kept per page (16 bits); deeper pages are recorded at this depth. */
export const MAX_DEPTH = 0xffff;

/** How a node reaches the others: the simulator's exchange. */
export interface SimExchangePort {
  /** URLs `pages` (with their depth at the sender and the edge they were found on, −1 for none) for partition `to`. */
  sendUrls(from: number, to: number, pages: readonly number[], depths: readonly number[], edges: readonly number[]): void;
  /** A fetched page for partition `to`, which follows its links. */
  sendPage(from: number, to: number, page: number, depth: number): void;
  /**
   * Link counts for partition `to`: `counts[i]` links seen to `pages[i]`; when the sender's policy
   * values links, `shares[i]` what they carry (`LinkSummaryMessage.shares`); when it knows
   * out-degrees, `outDegrees[i]` the largest among the linking pages (`LinkSummaryMessage.outDegrees`).
   */
  sendLinks(
    from: number,
    to: number,
    pages: readonly number[],
    counts: readonly number[],
    shares?: readonly number[],
    outDegrees?: readonly number[],
  ): void;
}

/** What every node of a run shares. */
export interface SimNodeSetup {
  readonly graph: SimGraph;
  /** The partitioner; null for a crawl of one node. */
  readonly placer: SimPlacer | null;
  /** Whether URLs are placed before fetch and sent to their owners (forward mode `urls` or `both`). */
  readonly isForwardingUrls: boolean;
  /** Whether boundary pages go to their owners (forward mode `pages` or `both`). */
  readonly isForwardingPages: boolean;
  /** Whether links to other partitions' URLs are counted for link summaries. */
  readonly isSummarizing: boolean;
  readonly exchange: SimExchangePort;
  readonly frontier: SimFrontierOptions;
}

/** A node's counters. */
export interface SimNodeCounts {
  /** Pages it fetched. */
  pages: number;
  /** URLs it queued (seeds, links, received). */
  queued: number;
  urlsSent: number;
  urlsReceived: number;
  /** URLs received that it had met already (absorbed by its seen test). */
  urlsDuplicate: number;
  /** Pages forwarded to other nodes, once per receiving node. */
  pagesSent: number;
  pagesReceived: number;
  /** Bytes of the forwarded pages, when the graph knows page sizes. */
  pageBytesSent: number;
  pageBytesReceived: number;
  /** Link summary messages sent. */
  linkSummariesSent: number;
  /** URL entries in those messages (a summary's size). */
  linkSummaryEntriesSent: number;
  /** In-links named by the link summaries given to this node's policy (Σ of their counts). */
  remoteLinksReceived: number;
  /** Priority changes the frontier applied (pages it still held). */
  reprioritized: number;
}

/** One simulated node; see the file comment. */
export class SimNode {
  readonly frontier: SimFrontier;
  readonly known: PageBits;
  readonly depth: Uint16Array;
  readonly counts: SimNodeCounts = {
    pages: 0,
    queued: 0,
    urlsSent: 0,
    urlsReceived: 0,
    urlsDuplicate: 0,
    pagesSent: 0,
    pagesReceived: 0,
    pageBytesSent: 0,
    pageBytesReceived: 0,
    linkSummariesSent: 0,
    linkSummaryEntriesSent: 0,
    remoteLinksReceived: 0,
    reprioritized: 0,
  };
  /** Fetches in flight. */
  inFlight = 0;
  /** Time of the earliest wake-up already scheduled for this node (Infinity: none). */
  wakeAtMs = Number.POSITIVE_INFINITY;

  private readonly outPages: number[][];
  private readonly outDepths: number[][];
  private readonly outEdges: number[][];
  private readonly summaries: Map<number, number>[];
  /** Per partition, Σ of the linking pages' shares per page (parallel to `summaries`), when the policy values links; else null. */
  private readonly shares: Map<number, number>[] | null;
  /** Per partition, the largest out-degree of the linking pages per page (parallel to `summaries`), when the policy knows out-degrees; else null. */
  private readonly degrees: Map<number, number>[] | null;
  private readonly isReadingUrls: boolean;
  private readonly isReadingAnchors: boolean;
  private readonly isReadingText: boolean;
  private readonly canUseLinks: boolean;
  /** Link counts per page and partition, when the strategy reads them; else null. */
  private readonly citations: CitationTable<number> | null;
  /** This node's links since the last summary, for every other node (strategies that read citations). */
  private readonly cited = new Map<number, number>();

  constructor(
    readonly index: number,
    readonly policy: OrderingPolicy,
    private readonly setup: SimNodeSetup,
  ) {
    const n = setup.graph.pageCount;
    this.frontier = new SimFrontier(setup.frontier);
    this.known = new PageBits(n);
    this.depth = new Uint16Array(n);
    const partitions = setup.placer?.partitionCount ?? 1;
    this.outPages = Array.from({ length: partitions }, () => []);
    this.outDepths = Array.from({ length: partitions }, () => []);
    this.outEdges = Array.from({ length: partitions }, () => []);
    this.summaries = Array.from({ length: partitions }, () => new Map<number, number>());
    this.shares = canShareRank(policy) ? Array.from({ length: partitions }, () => new Map<number, number>()) : null;
    this.degrees = canTellOutDegree(policy) ? Array.from({ length: partitions }, () => new Map<number, number>()) : null;
    this.isReadingUrls = policy.needs.urls;
    this.isReadingAnchors = policy.needs.anchors;
    this.isReadingText = policy.needs.text;
    this.canUseLinks = canObserveRemoteLinks(policy);
    const table = setup.isForwardingUrls ? (setup.placer?.citationTable ?? null) : null;
    this.citations = table === null ? null : new CitationTable(table.partitionCount, table.capacity);
  }

  /** Seed number `index` of the seed list every node reads: queued here if its placement names this node. */
  seed(page: number, index: number, nowMs: number): void {
    const placer = this.setup.placer;
    if (placer !== null) {
      // Asked as if node index mod n had found it, as a crawl node asks (partition-router.ts keepsSeed),
      // whatever the forward mode: strategies that keep URLs where found spread the seeds round-robin.
      const placement = placer.placeUrl(page, index % placer.partitionCount, undefined, -1);
      if (!placement.includes(this.index)) return;
    }
    if (!this.known.testAndAdd(page)) return;
    this.queue(page, 0, -1, -1, nowMs);
  }

  /** A page this node fetched, its fetch now complete. */
  fetched(page: number, nowMs: number): void {
    this.counts.pages++;
    const placer = this.setup.placer;
    const depth = this.depth[page] as number;
    const kind = this.setup.graph.pageKinds?.[page] ?? SimPageKind.page;
    if (kind === SimPageKind.noContent) return;
    if (kind === SimPageKind.redirect) {
      // A 3xx: its target goes on like a link (depth + 1), with no page shown to the policy.
      this.followLinks(page, depth, nowMs, false);
      return;
    }
    if (placer !== null && this.setup.isForwardingPages && placer.canPlacePages) {
      const placement = placer.placePage(page, this.index);
      let others = 0;
      for (const q of placement) {
        if (q === this.index) continue;
        others++;
        this.counts.pagesSent++;
        this.counts.pageBytesSent += this.setup.graph.pageBytes?.[page] ?? 0;
        this.setup.exchange.sendPage(this.index, q, page, depth);
      }
      // Placed elsewhere only: its owners follow it, this node keeps a log line.
      if (others > 0 && others === placement.length) return;
    }
    this.follow(page, depth, nowMs);
  }

  /** URLs another node sent. */
  receiveUrls(pages: readonly number[], depths: readonly number[], edges: readonly number[], nowMs: number): void {
    this.counts.urlsReceived += pages.length;
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i] as number;
      if (!this.known.testAndAdd(page)) {
        this.counts.urlsDuplicate++;
        continue;
      }
      this.queue(page, depths[i] as number, -1, edges[i] as number, nowMs);
    }
  }

  /** A boundary page another node fetched and forwarded: followed as if fetched here. */
  receivePage(page: number, depth: number, nowMs: number): void {
    this.counts.pagesReceived++;
    this.counts.pageBytesReceived += this.setup.graph.pageBytes?.[page] ?? 0;
    this.known.add(page);
    this.depth[page] = depth;
    this.follow(page, depth, nowMs);
  }

  /** Link counts (shares, out-degrees) node `from` sent: votes of its partition (strategies that read citations), and for a policy that can use them. */
  receiveLinks(
    pages: readonly number[],
    counts: readonly number[],
    from: number,
    shares?: readonly number[],
    outDegrees?: readonly number[],
  ): void {
    const citations = this.citations;
    if (citations !== null && from !== this.index)
      for (let i = 0; i < pages.length; i++) citations.cite(pages[i] as number, from, counts[i] as number);
    const policy = this.policy;
    if (!canObserveRemoteLinks(policy)) return;
    for (let i = 0; i < counts.length; i++) this.counts.remoteLinksReceived += counts[i] as number;
    this.apply(policy.observeRemoteLinks(pages, counts, shares, outDegrees));
  }

  /** Sends the link counts gathered since the last summary. */
  flushSummaries(): void {
    this.summaries.forEach((counts, to) => {
      if (counts.size === 0) return;
      const pages = [...counts.keys()];
      const shares = this.shares?.[to];
      const degrees = this.degrees?.[to];
      const outDegrees = degrees === undefined ? [] : pages.map((p) => degrees.get(p) ?? 0);
      this.setup.exchange.sendLinks(
        this.index,
        to,
        pages,
        [...counts.values()],
        shares === undefined ? undefined : pages.map((p) => shares.get(p) ?? 0),
        // As the crawl's router: all zeros are not sent.
        outDegrees.some((d) => d > 0) ? outDegrees : undefined,
      );
      this.counts.linkSummariesSent++;
      this.counts.linkSummaryEntriesSent += pages.length;
      counts.clear();
      shares?.clear();
      degrees?.clear();
    });
    if (this.cited.size === 0) return;
    const pages = [...this.cited.keys()];
    const counts = [...this.cited.values()];
    this.cited.clear();
    for (let to = 0; to < this.summaries.length; to++) {
      if (to === this.index) continue;
      this.setup.exchange.sendLinks(this.index, to, pages, counts);
      this.counts.linkSummariesSent++;
      this.counts.linkSummaryEntriesSent += pages.length;
    }
  }

  /** observe, the priority changes, then each out-link (steps 1 and 2 of the file comment). */
  private follow(page: number, depth: number, nowMs: number): void {
    const { offsets } = this.setup.graph.csr;
    this.apply(this.policy.observe(this.fetchedPage(page, depth, offsets[page] as number, offsets[page + 1] as number)));
    this.followLinks(page, depth, nowMs, true);
  }

  /** Each followed out-link of `page`: placed, then queued here or sent to its owners. */
  private followLinks(page: number, depth: number, nowMs: number, isFromPage: boolean): void {
    const g = this.setup.graph;
    const { offsets, targets } = g.csr;
    const start = offsets[page] as number;
    const end = offsets[page + 1] as number;
    const fromPage = isFromPage ? page : -1;
    const nofollow = g.edgeNofollow;
    const placer = this.setup.isForwardingUrls ? this.setup.placer : null;
    const childDepth = depth >= MAX_DEPTH ? MAX_DEPTH : depth + 1;
    const isSummarizing = this.setup.isSummarizing;
    const citations = isFromPage ? this.citations : null;
    let isSending = false;
    for (let e = start; e < end; e++) {
      if (nofollow !== null && nofollow[e] === 1) continue;
      const v = targets[e] as number;
      if (citations !== null) {
        citations.cite(v, this.index);
        if (isSummarizing) this.cited.set(v, (this.cited.get(v) ?? 0) + 1);
      }
      if (!this.known.testAndAdd(v)) {
        if (isSummarizing && placer !== null && citations === null)
          this.countRemote(placer.placeUrl(v, this.index, this.anchorForPlacement(e), page), v, fromPage);
        continue;
      }
      if (placer === null) {
        this.queue(v, childDepth, fromPage, isFromPage ? e : -1, nowMs);
        continue;
      }
      const placement = placer.placeUrl(v, this.index, this.anchorForPlacement(e), page, citations?.factsOf(v));
      let isKept = false;
      for (const q of placement) {
        if (q === this.index) {
          isKept = true;
          continue;
        }
        (this.outPages[q] as number[]).push(v);
        (this.outDepths[q] as number[]).push(childDepth);
        (this.outEdges[q] as number[]).push(isFromPage ? e : -1);
        this.counts.urlsSent++;
        isSending = true;
        if (isSummarizing && citations === null) this.countLink(q, v, fromPage);
      }
      if (isKept) this.queue(v, childDepth, fromPage, isFromPage ? e : -1, nowMs);
    }
    if (isSending) this.flushUrls();
  }

  /**
   * The page as the policy sees it: ids always, URLs, anchors and content when it reads them. A
   * policy that reads more than ids is shown every link occurrence when the graph keeps one link per
   * target and can tell them (`linksOf`), as a crawl shows the parsed page.
   */
  private fetchedPage(page: number, depth: number, start: number, end: number): FetchedPage {
    const g = this.setup.graph;
    const url = this.isReadingUrls ? g.urlOf(page) : '';
    if (!this.isReadingUrls && !this.isReadingAnchors && !this.isReadingText)
      return { id: page, url, depth, outIds: g.csr.targets.subarray(start, end) };
    const links = g.linksOf?.(page);
    const outIds = links?.ids ?? g.csr.targets.subarray(start, end);
    const anchorOf = g.anchorOf;
    const anchors = links?.anchors ?? (anchorOf === null ? null : Array.from({ length: end - start }, (_, i) => anchorOf(start + i)));
    const content = this.isReadingText ? g.contentOf?.(page) : undefined;
    return {
      id: page,
      url,
      depth,
      outIds,
      ...(this.isReadingUrls ? { outUrls: Array.from(outIds, (v) => g.urlOf(v)) } : {}),
      ...(this.isReadingAnchors && anchors !== null ? { anchors } : {}),
      ...(content?.title === undefined ? {} : { title: content.title }),
      ...(content?.text === undefined ? {} : { text: content.text }),
    };
  }

  /** Prioritizes a page this node keeps and adds it to the frontier. */
  private queue(page: number, depth: number, fromPage: number, edge: number, nowMs: number): void {
    const g = this.setup.graph;
    this.depth[page] = depth;
    const anchorText = this.isReadingAnchors && edge >= 0 && g.anchorOf !== null ? g.anchorOf(edge) : '';
    const discovered: DiscoveredUrl = {
      id: page,
      url: this.isReadingUrls ? g.urlOf(page) : '',
      depth,
      ...(fromPage < 0 ? {} : { fromId: fromPage }),
      ...(anchorText === '' ? {} : { anchorText }),
    };
    const priority = this.policy.prioritize(discovered);
    if (this.frontier.add(page, g.pageHost[page] as number, priority, nowMs)) this.counts.queued++;
  }

  private apply(changes: PriorityChanges): void {
    if (changes.length > 0) this.counts.reprioritized += this.frontier.reprioritize(changes);
  }

  /** Anchor text for a partitioner that may read it (strategies that place by URL alone never do). */
  private anchorForPlacement(edge: number): string | undefined {
    const anchorOf = this.setup.graph.anchorOf;
    return anchorOf === null || this.setup.placer?.isUrlOnly === true ? undefined : anchorOf(edge);
  }

  private countRemote(placement: readonly number[], page: number, fromPage: number): void {
    for (const q of placement) if (q !== this.index) this.countLink(q, page, fromPage);
  }

  /**
   * Counts a link of `fromPage` (−1: a redirect's) to `page`, owned by `to`, with the page's share
   * when the policy values links and its out-degree when the policy knows out-degrees.
   */
  private countLink(to: number, page: number, fromPage: number): void {
    if (!this.canUseLinks) return;
    const counts = this.summaries[to] as Map<number, number>;
    counts.set(page, (counts.get(page) ?? 0) + 1);
    const policy = this.policy;
    const shares = this.shares?.[to];
    if (shares !== undefined) {
      const share = fromPage >= 0 && canShareRank(policy) ? policy.rankShare(fromPage) : 0;
      shares.set(page, (shares.get(page) ?? 0) + (Number.isFinite(share) && share > 0 ? share : 0));
    }
    const degrees = this.degrees?.[to];
    if (degrees !== undefined) {
      const degree = fromPage >= 0 && canTellOutDegree(policy) ? policy.outDegree(fromPage) : 0;
      const best = degrees.get(page) ?? 0;
      degrees.set(page, Number.isSafeInteger(degree) && degree > best ? degree : best);
    }
  }

  /** Sends the URL batches built while following one page. */
  private flushUrls(): void {
    for (let q = 0; q < this.outPages.length; q++) {
      const pages = this.outPages[q] as number[];
      if (pages.length === 0) continue;
      this.setup.exchange.sendUrls(this.index, q, pages, this.outDepths[q] as number[], this.outEdges[q] as number[]);
      this.outPages[q] = [];
      this.outDepths[q] = [];
      this.outEdges[q] = [];
    }
  }
}
