/**
 * What the nodes of a collaborative crawl say to each other (SPEC §4.5): URL batches, forwarded
 * pages, link summaries, SimHash batches and control messages. These are plain immutable values;
 * `codec.ts` turns them into bytes for transports that need bytes (NATS) and checks bytes coming back.
 *
 * Every message names the node that sent it (`from`) and carries the sender's message sequence
 * number (`seq`, from 1, increasing by one per message sent by that node over the crawl's whole life,
 * restarts included). `from` + `seq` identify a message: transports use them to drop copies they
 * already delivered (JetStream's message id), and receivers use them in their counters.
 */

/** A URL handed to the node that owns it. */
export interface ExchangedUrl {
  /** Normalized absolute URL. */
  readonly url: string;
  /** Links followed from a seed to reach it, at the sender. */
  readonly depth: number;
  /** The page it was found on (null for seeds). */
  readonly fromUrl: string | null;
  /** Anchor text of the link, if any. */
  readonly anchorText?: string;
  /** Priority the sender's ordering policy gave it, if any. */
  readonly priorityHint?: number;
}

/** URLs found by the sender that a partition of the receiver owns. */
export interface UrlBatchMessage {
  readonly kind: 'urls';
  readonly from: string;
  readonly seq: number;
  readonly urls: readonly ExchangedUrl[];
}

/**
 * A boundary page (SPEC §1): fetched by the sender, owned by the receiver, who stores it and follows
 * its links as if it had fetched it itself. The HTTP exchange is carried as received.
 */
export interface ForwardedPageMessage {
  readonly kind: 'page';
  readonly from: string;
  readonly seq: number;
  /** Normalized URL of the page. */
  readonly url: string;
  readonly depth: number;
  readonly fromUrl: string | null;
  /** When the fetch started, ms since the epoch (the WARC-Date of its records). */
  readonly fetchedAtMs: number;
  /** Fetch duration, ms. */
  readonly durationMs: number;
  /** The server's address, or null. */
  readonly ip: string | null;
  /** The request as written on the wire (latin1). */
  readonly request: Uint8Array;
  readonly status: number;
  readonly statusText: string;
  /** Headers by lowercase name, as in `ResponseHead.headers`. */
  readonly headers: Readonly<Record<string, string>>;
  /** Status line and header block as received (`ResponseHead.raw`). */
  readonly responseHead: Uint8Array;
  /** The body as received, still content-encoded. */
  readonly rawBody: Uint8Array;
  /** The body after content decoding; absent when no coding was undone (then it is `rawBody`). */
  readonly body?: Uint8Array;
  readonly contentEncodings: readonly string[];
  readonly contentType: string | null;
  readonly charset: string | null;
}

/**
 * In-link counts the sender saw for URLs the receiver owns, since its last summary (Cho's remedy
 * for hash partitioning: backlink, PageRank and forward-link estimates count links found by other
 * nodes; the community strategy's votes).
 */
export interface LinkSummaryMessage {
  readonly kind: 'links';
  readonly from: string;
  readonly seq: number;
  /** Pairs of a normalized target URL and the number of the sender's pages that link to it. */
  readonly counts: readonly (readonly [url: string, inLinks: number])[];
  /**
   * Parallel to `counts`, when the sender's ordering policy values links (`pagerank`): what the
   * sender's pages linking to the URL carry, Σ IR′(T)/(b·c_T) over them, in units of the sender's b
   * (`order/pagerank.ts`). Absent otherwise.
   */
  readonly shares?: readonly number[];
  /**
   * Parallel to `counts`, when the sender's ordering policy knows out-degrees (`forward-links`): the
   * largest number of distinct URLs one of the sender's pages linking to the URL links to (IF,
   * `order/forward-links.ts`), an integer ≥ 0. Merged by max. Absent otherwise, and when every
   * value would be 0.
   */
  readonly outDegrees?: readonly number[];
  /**
   * The partition whose pages the counts are from (the sender's first), when the crawl's strategy
   * reads citations (`community`): the counts are then of every link and go to every other node.
   */
  readonly partition?: number;
}

/**
 * SimHash fingerprints of pages the sender kept as the first of their kind (not near-duplicates),
 * for every other node's near-duplicate index (`dedup.near.isShared`; docs/near-duplicates.md): a
 * page is then found to resemble a page another node fetched.
 */
export interface SimHashBatchMessage {
  readonly kind: 'simhashes';
  readonly from: string;
  readonly seq: number;
  /** Normalized URLs of the pages. */
  readonly urls: readonly string[];
  /** Their 64-bit fingerprints, 8 bytes each, big-endian, in the order of `urls` (never 0). */
  readonly simhashes: Uint8Array;
}

/** Live statistics a node publishes, and requests to stop. */
export interface ControlMessage {
  readonly kind: 'control';
  readonly from: string;
  readonly seq: number;
  readonly control:
    | { readonly kind: 'stats'; readonly pages: number; readonly bytes: number; readonly frontier: number; readonly atMs: number }
    | { readonly kind: 'stop'; readonly reason: string };
}

/** Any message between nodes. */
export type ExchangeMessage = UrlBatchMessage | ForwardedPageMessage | LinkSummaryMessage | SimHashBatchMessage | ControlMessage;

/** A message before the sender numbers it (the exchange assigns `seq` when it is sent). */
export type OutgoingMessage =
  | Omit<UrlBatchMessage, 'seq'>
  | Omit<ForwardedPageMessage, 'seq'>
  | Omit<LinkSummaryMessage, 'seq'>
  | Omit<SimHashBatchMessage, 'seq'>
  | Omit<ControlMessage, 'seq'>;
