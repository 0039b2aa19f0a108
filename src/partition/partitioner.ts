/**
 * The partitioner extension point: how the nodes of a collaborative crawl split the Web (SPEC §4).
 *
 * A crawl has `partitionCount` partitions, numbered 0 .. n − 1; each node owns one or more of them
 * (embedded: node i owns partition i; distributed: `shoal node --partitions`). A partitioner answers
 * two questions:
 *
 * - **before fetch** ({@link Partitioner.placeUrl}): which partitions should fetch URL u. A node
 *   queues u itself when its own partition is among them, and sends u to the others through the
 *   exchange. Hash strategies name exactly one partition; strategies that keep URLs where they were
 *   found (topic, SPEC §4.2) return the asking node's own partition.
 * - **after fetch** ({@link PagePlacer.placePage}, optional): which partitions fetched page p belongs
 *   to. A page whose placement leaves out the node that fetched it is a *boundary page*; depending on
 *   the crawl's `partition.forward` mode it is forwarded to its owners, who treat it as if they had
 *   fetched it themselves.
 *
 * Both answers may name several partitions (Policy B of seed 003: send to every node whose city has
 * pr(c | p) ≠ 0).
 *
 * ## Contract
 *
 * - **Returned.** A {@link Placement}: partition ids, each an integer in [0, partitionCount), without
 *   repeats, never empty. The same inputs always give the same placement, on every machine and in
 *   every process: hashes are fixed functions of the bytes (no `Math.random`, no per-process seed),
 *   so nodes that never talk agree on who owns what.
 * - **Pure.** No I/O, no clock, no timers (lint-enforced in `src/partition/`). What a strategy needs
 *   beyond the URL or page — a resolved address (`ip-hash`, {@link Partitioner.needsIp}), a
 *   classifier model, a table of true labels — comes in as an argument, at construction or in the
 *   facts passed.
 * - **Failure.** Web data never makes a partitioner throw: a URL with an odd host, a page with no
 *   text, an unknown address (`ip: null`) get a placement all the same (each strategy documents its
 *   fallback). Bad parameters throw at construction (the registry reports them as configuration
 *   errors).
 * - **Identity.** `spec` names the strategy and every parameter that changes a placement; it is
 *   logged with every metric and report.
 *
 * ## Sources
 *
 * Seed 000 §3 (hash partitioning of URLs and hosts, the X4 topic crawler), seed 003 §3.3 (URL,
 * host, IP and content hashing; Policies A and B), SPEC §4.
 */

/** A partition number, 0 .. partitionCount − 1. */
export type PartitionId = number;

/** Where a URL or a page goes: partition ids in [0, n), no repeats, never empty. */
export type Placement = readonly PartitionId[];

/** The identity of a strategy: the configuration id and its parameters, as logged with results. */
export interface PartitionerSpec {
  /** Configuration id, also the file name in `src/partition/` (`host-hash`, `consistent-hash`, ...). */
  readonly id: string;
  /** Every parameter that changes a placement, with its effective value. */
  readonly params: Readonly<Record<string, string | number | boolean | readonly string[]>>;
}

/** A URL to place before it is fetched. Immutable. */
export interface UrlToPlace {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Its host name, without port, as normalization returned it. */
  readonly hostname: string;
  /** The host's resolved address when known (always given when `needsIp` is true and resolution worked); else null. */
  readonly ip: string | null;
  /** Anchor text of the link that found it, if any (geo and topic strategies read it). */
  readonly anchorText?: string;
  /** The words before and after the anchor on the page (the extended anchor text), if any. */
  readonly anchorBefore?: string;
  readonly anchorAfter?: string;
  /** The page it was found on; undefined for seeds. */
  readonly fromUrl?: string;
  /**
   * Where the page it was found on belongs (`placePage` of that page), when the node computed it:
   * given to strategies whose URLs follow pages ({@link PagePlacer.urlsFollowPages}), for every
   * link of the page, and absent for seeds and URLs from other nodes.
   */
  readonly fromPage?: Placement;
  /** What the node knows of the URL's community (strategies that read citations: `community`). */
  readonly community?: CommunityFacts;
}

/** What a node knows of a URL's community when it places it; `community/community.ts`. */
export interface CommunityFacts {
  /** Per partition, links to the URL from pages of that partition's community (counted so far). */
  readonly citedBy: ArrayLike<number>;
  /** Whether the asking node took the URL before. */
  readonly isKept: boolean;
}

/** A fetched page to place. Immutable. */
export interface PageToPlace {
  /** Normalized URL of the page. */
  readonly url: string;
  readonly hostname: string;
  /** Address the page was fetched from, or null (proxy). */
  readonly ip: string | null;
  /** Digest of the decoded body (`sha1:` + base32, dedup/content-digest.ts): the key of content hashing. */
  readonly contentDigest: string;
  /** Detected language code, or null when the page was not analysed. */
  readonly language: string | null;
  readonly title: string | null;
  /** Visible text, or null when the page was not analysed. */
  readonly text: string | null;
  /** The page's topic category as its node's classifier gave it; null or absent when none. */
  readonly category?: string | null;
}

/** The partitioner extension point; see the file comment for the Contract. */
export interface Partitioner {
  /** What this strategy is, exactly (id and parameters). */
  readonly spec: PartitionerSpec;
  /** Number of partitions n. */
  readonly partitionCount: number;
  /** Whether {@link placeUrl} reads `ip`: the node then resolves a URL's host before placing it. */
  readonly needsIp: boolean;
  /** Before fetch: the partitions that should fetch `url`; `self` is the partition of the node asking. */
  placeUrl(url: UrlToPlace, self: PartitionId): Placement;
}

/** The optional ability to place fetched pages (content hash, topic, geo). */
export interface PagePlacer {
  /**
   * True when where a URL goes depends on the page it was found on (topic and geo strategies): in
   * the `urls` forward mode the node places each page it fetches and gives that placement to
   * `placeUrl` as `fromPage` for every link of the page; the page itself stays where it was fetched.
   */
  readonly urlsFollowPages?: boolean;
  /** After fetch: the partitions `page` belongs to; `self` is the partition of the node that fetched it. */
  placePage(page: PageToPlace, self: PartitionId): Placement;
}

/** Whether a partitioner can also place fetched pages. */
export function canPlacePages(p: Partitioner): p is Partitioner & PagePlacer {
  return typeof (p as Partial<PagePlacer>).placePage === 'function';
}
