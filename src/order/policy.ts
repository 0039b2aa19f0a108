/**
 * The ordering-policy extension point: the function O(u) that decides which discovered URL a node
 * fetches first (SPEC §3, seed 004 §4).
 *
 * ## Contract
 *
 * - **Identity of URLs.** Every URL a policy meets has an `id`: a dense integer >= 0 that names it for
 *   the life of the policy object. In a crawl the node hands them out (`src/url/url-ids.ts`: one per
 *   normalized URL, in order of first sight); in the simulator they are the graph's page ids. The same
 *   URL always has the same id, and two URLs never share one. Policies keep per-URL state in typed
 *   arrays indexed by id (no object per URL), grown as larger ids arrive.
 * - **Given.** `prioritize` receives one URL the node has just discovered and is about to queue (it
 *   passed the URL filter and the URL-seen test): its id, the normalized URL, its depth, the page it
 *   was found on, the anchor text, and any hints another node sent with it. `observe` receives each
 *   page the node fetched, with the ids of *all* its out-links in document order, targets seen before
 *   and repeated links included, because counts such as IB′ grow with links to URLs already queued.
 *   A discovered URL's string and anchor text are given when the caller has them. A fetched page's
 *   `outUrls`, `anchors` and `text` may be absent unless {@link OrderingPolicy.needs} asks for them:
 *   a crawl builds them only then (they cost an array per page), and the simulator gives them when
 *   its graph carries them and refuses (before it starts) a policy whose needs it cannot meet.
 * - **Returned.** A priority: a finite number, higher fetched sooner. The frontier serves equal
 *   priorities in the order it received them, so a policy with few distinct values (the hot queue:
 *   hot first) gets FIFO queues for free, and breadth-first is the policy that returns a constant.
 * - **Re-prioritizing.** Scores that depend on the graph seen so far (IB′, IR′, distance to a hot page)
 *   change for URLs already queued. `observe` returns those changes as data, parallel arrays of ids
 *   and new priorities ({@link PriorityChanges}) for URLs the policy prioritized earlier and has not
 *   seen fetched since; the node applies them to the frontier, which ignores URLs it no longer holds
 *   (fetch failed, robots.txt said no). A returned value keeps the policy a pure function of what it
 *   was shown: no callbacks into the frontier, the same code in the crawl and in the simulator, and a
 *   policy may batch its changes (IR′ recomputed every N fetches returns nothing in between). The
 *   caller reads the arrays before its next call to the policy, which may reuse them.
 * - **Revisits.** A page fetched again is observed again only if its links changed, with
 *   `isRevisit` and only its new links: a policy that counts links (IB′) adds them; one that keeps
 *   a page's links of its first fetch (IR′'s graph, an out-degree) may ignore the call. Either way
 *   no link is counted twice. Links a page dropped are not announced.
 * - **Order of calls.** For a fetched page the caller calls `observe(page)` first, then `prioritize`
 *   for each out-link that is new, so a new URL's first score already counts the link that found it.
 *   Seeds are prioritized with depth 0 and no discovering page.
 * - **Pure and deterministic.** No I/O, no clock, no timers (lint-enforced in `src/order/`); a policy
 *   that needs randomness (the random baseline) takes a seed in its params. The same calls in the same
 *   order give the same answers, so simulated and real crawls can be compared and replayed.
 * - **Bounded work per call.** A call never does work proportional to the whole graph more than once
 *   per `recomputeEvery`-style period the policy documents, so a crawl thread never stalls on it for
 *   long (IR′ spreads or bounds its iterations; see `pagerank.ts`).
 * - **Failure.** Priorities are never NaN or infinite (the frontier rejects them with RangeError). A
 *   policy does not throw on odd input (empty anchor text, unknown source page, an id never
 *   prioritized): that is Web data. Bad parameters throw at construction (the registry reports them
 *   as configuration errors).
 * - **Identity.** `spec` names the policy and its parameters exactly; it is logged with every metric.
 *
 * ## Sources
 *
 * Seed 004 (Cho, Garcia-Molina & Page): ordering metrics §4, the virtual crawler's `reorder_queue`
 * (Figure 2: breadth-first, IB′, IR′ with d = 0.9), the hot queue (§7, Figures 4 and 5). SPEC §3 lists
 * the policies.
 */

/** The identity of a strategy: the configuration id and its parameters, as logged with results. */
export interface OrderingPolicySpec {
  /** Configuration id, also the file name in `src/order/` (`bfs`, `backlink`, `pagerank`, ...). */
  readonly id: string;
  /** Every parameter that changes the ordering, with its effective value. */
  readonly params: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** A URL discovered by the node and about to enter the frontier. Immutable. */
export interface DiscoveredUrl {
  /** Dense id of the URL (see the Contract). */
  readonly id: number;
  /** Normalized absolute URL ('' in a simulation over a graph without URLs). */
  readonly url: string;
  /** Links followed from a seed to reach it (seeds are 0). */
  readonly depth: number;
  /** Id of the page it was found on; undefined for seeds, sitemap entries and URLs another node sent. */
  readonly fromId?: number;
  /** Anchor text of the link (for IS(A, Q) and the hot queue); undefined when there was none or it is unknown. */
  readonly anchorText?: string;
  /** In-links to this URL counted by other nodes (exchanged link summaries, SPEC §4.5), if any. */
  readonly backlinkHint?: number;
  /** Priority the forwarding node computed, if the URL came from another node. */
  readonly priorityHint?: number;
}

/** A page the node fetched, as an ordering policy sees it. Immutable; valid during the call only. */
export interface FetchedPage {
  /** Dense id of the page's URL. */
  readonly id: number;
  /** Normalized URL of the page ('' in a simulation over a graph without URLs). */
  readonly url: string;
  readonly depth: number;
  /** Ids of every out-link target, in document order, duplicates and already-seen targets included. */
  readonly outIds: ArrayLike<number>;
  /** The out-links' URLs, parallel to `outIds`; given when `needs.urls` (otherwise possibly absent). */
  readonly outUrls?: readonly string[];
  /** The out-links' anchor texts ('' for none), parallel to `outIds`; given when `needs.anchors` (otherwise possibly absent). */
  readonly anchors?: readonly string[];
  /** Page title, for policies that judge pages by their content (hot pages), when known. */
  readonly title?: string;
  /** Visible text, for the same policies; given when `needs.text` (otherwise possibly absent). */
  readonly text?: string;
  /**
   * The out-links' extended anchor texts (the words before and after each link, space-joined; ''
   * for none), parallel to `outIds`; given by a crawl when `needs.anchorContext`, never by the
   * simulator (its graphs hold no such words), so a policy must order without them.
   */
  readonly anchorContexts?: readonly string[];
  /**
   * True for a page fetched again (a re-crawl's revisit) whose links changed since the policy's
   * caller last offered them: `outIds` (and the parallel arrays) then hold only the links the page
   * did not have before. A caller never offers a link of a page twice; a revisit of an unchanged
   * page is not observed at all.
   */
  readonly isRevisit?: boolean;
}

/** New priorities for URLs the policy prioritized earlier: `ids[i]` gets `priorities[i]`, i < length. */
export interface PriorityChanges {
  readonly length: number;
  readonly ids: ArrayLike<number>;
  readonly priorities: ArrayLike<number>;
}

/** The shared empty answer of `observe` for policies that never re-prioritize. */
export const NO_PRIORITY_CHANGES: PriorityChanges = Object.freeze({ length: 0, ids: Object.freeze([]), priorities: Object.freeze([]) });

/** What a policy reads beyond ids and the link structure; the simulator checks its graph provides it. */
export interface PolicyNeeds {
  /**
   * Dense URL ids: the policy keeps per-URL state. When false a crawl keeps no id table for it and
   * passes -1 as every id (breadth-first and random need none).
   */
  readonly ids: boolean;
  /** URL strings (`url`, `outUrls`): location rules, query terms in URLs. */
  readonly urls: boolean;
  /** Anchor texts (`anchorText`, `anchors`): anchor similarity, the hot queue. */
  readonly anchors: boolean;
  /** Page titles and text (`title`, `text`): hot pages, idf estimated from crawled pages. */
  readonly text: boolean;
  /**
   * Extended anchor texts (`anchorContexts`): topic ordering. Optional and best effort: a crawl builds
   * them only when asked (an array per page); the simulator has none and does not refuse the policy.
   */
  readonly anchorContext?: boolean;
}

/** A policy that reads nothing but ids and links. */
export const NEEDS_LINKS_ONLY: PolicyNeeds = Object.freeze({ ids: true, urls: false, anchors: false, text: false });
/** A policy that reads nothing at all (discovery order, a seeded random draw). */
export const NEEDS_NOTHING: PolicyNeeds = Object.freeze({ ids: false, urls: false, anchors: false, text: false });

/** The ordering-policy extension point; see the file comment for the Contract. */
export interface OrderingPolicy {
  /** What this policy is, exactly (id and parameters). */
  readonly spec: OrderingPolicySpec;
  /** What it reads besides ids and links. */
  readonly needs: PolicyNeeds;
  /** Priority of a newly discovered URL: finite, higher fetched sooner, ties first-come first-served. */
  prioritize(url: DiscoveredUrl): number;
  /** Learns from a fetched page; returns the URLs whose priority changed because of it (often none). */
  observe(page: FetchedPage): PriorityChanges;
}

/**
 * The optional ability to use links counted by other nodes (SPEC §4.5, link summaries: Cho's remedy
 * for hash partitioning, where a node sees only the links of its own pages).
 */
export interface RemoteLinkObserver {
  /**
   * Learns in-link counts another node saw: `counts[i]` pages of that node link to the URL `ids[i]`
   * (one this node owns) since its previous summary. `shares[i]`, when the sender's policy can
   * value its links ({@link RankShareEstimator}), is the sum of what those links carry: Σ IR′(T)/(b·c_T)
   * over the sender's linking pages T, in units of the sender's b. `outDegrees[i]`, when the
   * sender's policy knows out-degrees ({@link OutDegreeEstimator}), is the largest IF(T) among those
   * pages. Non-finite or negative values are ignored. Returns the priority changes.
   */
  observeRemoteLinks(
    ids: ArrayLike<number>,
    counts: ArrayLike<number>,
    shares?: ArrayLike<number>,
    outDegrees?: ArrayLike<number>,
  ): PriorityChanges;
}

/**
 * The optional ability to say what each link of a fetched page carries to the URL it names: for
 * IR′, y(P)/c_P = IR′(P)/(b·c_P), the page's rank in units of b over its distinct out-links (the
 * share each target gets in the sum of `pagerank.ts`). A collaborative node adds it to the link
 * summaries it sends, so that the owner of a linked URL can rank it with the links this node saw
 * (SPEC §4.5, Cho's remedy for hash partitioning).
 */
export interface RankShareEstimator {
  /** y(P)/c_P of the fetched page `id` (≥ 0, finite); 0 for a page not fetched or without links. */
  rankShare(id: number): number;
}

/**
 * The optional ability to say how many distinct URLs a fetched page links to: IF(P), the value
 * forward-link ordering gives the URLs P links to. A collaborative node adds, per URL of a link
 * summary, the largest IF among its pages linking to that URL, so that the owner of the URL ranks it
 * with the pages other nodes fetched (SPEC §4.5, Cho's remedy for hash partitioning).
 */
export interface OutDegreeEstimator {
  /** IF(P) of the fetched page `id` (an integer ≥ 0); 0 for a page not fetched. */
  outDegree(id: number): number;
}

/** Whether a policy can tell the out-degrees of the pages it fetched. */
export function canTellOutDegree(p: OrderingPolicy): p is OrderingPolicy & OutDegreeEstimator {
  return typeof (p as Partial<OutDegreeEstimator>).outDegree === 'function';
}

/** Whether a policy can value the links of the pages it fetched. */
export function canShareRank(p: OrderingPolicy): p is OrderingPolicy & RankShareEstimator {
  return typeof (p as Partial<RankShareEstimator>).rankShare === 'function';
}

/** Whether a policy can use other nodes' link counts. */
export function canObserveRemoteLinks(p: OrderingPolicy): p is OrderingPolicy & RemoteLinkObserver {
  return typeof (p as Partial<RemoteLinkObserver>).observeRemoteLinks === 'function';
}

/**
 * The optional ability to estimate the importance of a page the policy has seen (fetched or
 * discovered): IB′(P), IR′(P), a similarity... The Limited Buffer model (SPEC §3, PBC) evicts the
 * kept page with the lowest estimate.
 */
export interface ImportanceEstimator {
  /** The current estimate for `id`; finite; 0 for an id the policy knows nothing of. */
  estimate(id: number): number;
}

/** Whether a policy can estimate page importance. */
export function canEstimateImportance(p: OrderingPolicy): p is OrderingPolicy & ImportanceEstimator {
  return typeof (p as Partial<ImportanceEstimator>).estimate === 'function';
}
