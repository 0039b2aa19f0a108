/**
 * What the collaboration metrics of SPEC §5 are computed from: for each node of a collaborative
 * crawl, the pages it downloaded itself and the counters of what it exchanged with the other nodes.
 * Plain immutable values, so the same functions serve a finished crawl read from its directories,
 * a live crawl and the simulator.
 */

/** One page a node downloaded itself: fetched over HTTP and got a response. */
export interface Download {
  /** Normalized URL of the page; two downloads of the same page carry the same string. */
  readonly url: string;
  /** Host name of the URL, as the crawl normalized it (lower case); compared as given. */
  readonly host: string;
  /** Bytes downloaded for this page (the response body as received). */
  readonly bytes: number;
}

/**
 * Exchange counters of one node over the whole crawl. "Sent" counts each item once per sending,
 * whatever the number of deliveries (at-least-once) it took.
 */
export interface NodeExchangeCounts {
  /** URLs this node sent to other nodes (URL batches; each URL sent once counts once). */
  readonly urlsSent: number;
  /** URLs this node received from other nodes. */
  readonly urlsReceived: number;
  /** Pages this node forwarded to other nodes (boundary pages, SPEC §4.2). */
  readonly pagesSent: number;
  /** Pages this node received from other nodes. */
  readonly pagesReceived: number;
  /** Bytes of the pages forwarded (as encoded in the messages). */
  readonly pageBytesSent: number;
  /** Bytes of the pages received. */
  readonly pageBytesReceived: number;
  /** All encoded message bytes sent: URL batches, pages, link summaries and control. */
  readonly bytesSent: number;
  /** All encoded message bytes received. */
  readonly bytesReceived: number;
}

/**
 * One node's share of a crawl. Pages it received from other nodes are not in `downloads`: they
 * count for the node that fetched them.
 */
export interface NodeCrawl {
  /** Node id (as in the crawl's configuration). */
  readonly node: string;
  /** Every download, in any order; a page fetched twice by this node appears twice. */
  readonly downloads: readonly Download[];
  /** What the node exchanged with the others. */
  readonly exchange: NodeExchangeCounts;
}
