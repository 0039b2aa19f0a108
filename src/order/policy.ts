/**
 * The ordering-policy extension point: the function O(u) that decides which discovered URL a node
 * fetches first (SPEC §3, seed 004 §4).
 *
 * ## Contract
 *
 * - **Given.** `prioritize` receives one URL the node has just discovered and is about to queue (it
 *   passed the URL filter and the URL-seen test): the normalized URL, its depth, the page it was found
 *   on, the anchor text, and any hints another node sent with it. `observe` receives each page the
 *   node fetched, with *all* its out-links, including targets seen before, because counts such as
 *   IB′ grow with links to URLs already queued.
 * - **Returned.** A priority: a finite number, higher fetched sooner. The frontier serves equal
 *   priorities in the order it received them, so a policy with few distinct values (the hot queue:
 *   hot first) gets FIFO queues for free, and breadth-first is the policy that returns a constant.
 * - **Re-prioritizing.** Scores that depend on the graph seen so far (IB′, IR′, distance to a hot page)
 *   change for URLs already queued. `observe` returns those changes as data, `{ url, priority }` pairs
 *   for URLs the policy prioritized earlier; the node applies them to the frontier
 *   (`Reprioritizable.reprioritize`, frontier/frontier.ts), which ignores URLs it no longer holds. A
 *   returned list keeps the policy a pure function of what it was shown: no callbacks into the
 *   frontier, the same code in the crawl and in the simulator, and a policy may batch its changes
 *   (IR′ recomputed every N fetches returns nothing in between).
 * - **Order of calls.** For a fetched page the node calls `observe(page)` first, then `prioritize` for
 *   each out-link that is new, so a new URL's first score already counts the link that found it.
 *   Seeds are prioritized with depth 0 and no discovering page.
 * - **Pure and deterministic.** No I/O, no clock, no timers (lint-enforced in `src/order/`); a policy
 *   that needs randomness (the random baseline) takes a seed in its params. The same calls in the same
 *   order give the same answers, so simulated and real crawls can be compared and replayed.
 * - **Failure.** Priorities are never NaN or infinite (the frontier rejects them with RangeError). A
 *   policy does not throw on odd input (empty anchor text, unknown source page): that is Web data.
 * - **Identity.** `spec` names the policy and its parameters exactly; it is logged with every metric.
 *
 * ## Sources
 *
 * Seed 004 (Cho, Garcia-Molina & Page): ordering metrics §4, the virtual crawler's `reorder_queue`
 * (Figure 2: breadth-first, IB′, IR′ with d = 0.9), the hot queue (§7). SPEC §3 lists the policies.
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
  /** Normalized absolute URL. */
  readonly url: string;
  /** Links followed from a seed to reach it (seeds are 0). */
  readonly depth: number;
  /** The page it was found on; undefined for seeds and sitemap entries. */
  readonly fromUrl?: string;
  /** Anchor text of the link (for IS(A, Q) and the hot queue); undefined when there was none. */
  readonly anchorText?: string;
  /** In-links to this URL counted by other nodes (exchanged link summaries, SPEC §4.5), if any. */
  readonly backlinkHint?: number;
  /** Priority the forwarding node computed, if the URL came from another node. */
  readonly priorityHint?: number;
}

/** One out-link of a fetched page. */
export interface OutLink {
  /** Normalized absolute target URL. */
  readonly url: string;
  readonly anchorText?: string;
}

/** A page the node fetched, as an ordering policy sees it. Immutable. */
export interface FetchedPage {
  /** Normalized URL of the page. */
  readonly url: string;
  readonly depth: number;
  /** Every out-link found on the page, in document order, duplicates and already-seen targets included. */
  readonly links: readonly OutLink[];
  /** Page title, for policies that judge pages by their content (hot pages). */
  readonly title?: string;
  /** Visible text, for the same policies. */
  readonly text?: string;
}

/** A new priority for a URL the policy prioritized earlier. */
export interface PriorityChange {
  readonly url: string;
  readonly priority: number;
}

/** The ordering-policy extension point; see the file comment for the Contract. */
export interface OrderingPolicy {
  /** What this policy is, exactly (id and parameters). */
  readonly spec: OrderingPolicySpec;
  /** Priority of a newly discovered URL: finite, higher fetched sooner, ties first-come first-served. */
  prioritize(url: DiscoveredUrl): number;
  /** Learns from a fetched page; returns the URLs whose priority changed because of it (often none). */
  observe(page: FetchedPage): readonly PriorityChange[];
}

/** The shared empty answer of `observe` for policies that never re-prioritize. */
export const NO_PRIORITY_CHANGES: readonly PriorityChange[] = Object.freeze([]);

/**
 * The optional ability to use links counted by other nodes (SPEC §4.5, link summaries: Cho's remedy
 * for hash partitioning, where a node sees only the links of its own pages).
 */
export interface RemoteLinkObserver {
  /**
   * Learns in-link counts another node saw: pairs of a normalized URL this node owns and the number
   * of that node's pages that link to it since its previous summary. Returns the priority changes.
   */
  observeRemoteLinks(counts: readonly (readonly [url: string, inLinks: number])[]): readonly PriorityChange[];
}

/** Whether a policy can use other nodes' link counts. */
export function canObserveRemoteLinks(p: OrderingPolicy): p is OrderingPolicy & RemoteLinkObserver {
  return typeof (p as Partial<RemoteLinkObserver>).observeRemoteLinks === 'function';
}
