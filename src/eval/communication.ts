/**
 * What the nodes of a collaborative crawl say to each other, per page downloaded.
 *
 * Communication overhead (SPEC §5; seed 003, Gao, Lee & Miao, §4 "Evaluation models", after Cho &
 * Garcia-Molina, who found it well above 5 for URL hashing on two nodes):
 *
 *     overhead = U / N
 *
 * U = URLs exchanged between nodes, counted once per sending (Σ `urlsSent`: a URL sent to two nodes
 * counts twice, a redelivery does not count again); N = pages downloaded by all nodes. Forwarded
 * pages (seed 000 §4, boundary pages) are counted apart, in pages and bytes, and per downloaded page.
 *
 * Exported / imported data ratio per node (seed 000 §3, Chung & Clarke, hash-based collaboration,
 * where a uniform content hash gives (n − 1)/n for both):
 *
 *     exported = bytesSent / downloadedBytes,   imported = bytesReceived / downloadedBytes
 *
 * with every encoded message byte counted (URL batches, pages, link summaries, control), so the
 * ratio is the node's whole network cost to the collaboration per byte it took from the Web.
 *
 * Departures, on purpose: ratios whose denominator is 0 are null (undefined), not 0 or Infinity, so
 * the result stays JSON.
 */
import type { NodeCrawl } from './collab-input.js';

/** Communication of the whole crawl. */
export interface CommunicationResult {
  /** N: pages downloaded by all nodes, with multiplicity. */
  readonly downloads: number;
  /** Σ Download.bytes over all nodes. */
  readonly downloadedBytes: number;
  /** U: Σ urlsSent. */
  readonly urlsSent: number;
  /** Σ urlsReceived (differs from U by URLs lost or still in flight, or delivered twice). */
  readonly urlsReceived: number;
  /** Communication overhead U / N; null when N = 0. */
  readonly urlsPerPage: number | null;
  /** Σ pagesSent: pages forwarded between nodes. */
  readonly pagesSent: number;
  /** Σ pagesReceived. */
  readonly pagesReceived: number;
  /** Σ pageBytesSent: bytes of the forwarded pages. */
  readonly pageBytesSent: number;
  /** Σ pageBytesReceived. */
  readonly pageBytesReceived: number;
  /** Pages forwarded per page downloaded, Σ pagesSent / N; null when N = 0. */
  readonly pagesForwardedPerPage: number | null;
  /** Σ bytesSent: every encoded message byte. */
  readonly bytesSent: number;
  /** Σ bytesReceived. */
  readonly bytesReceived: number;
  /** Σ bytesSent / Σ downloaded bytes over the crawl; null when nothing was downloaded. */
  readonly exportedRatio: number | null;
  /** Σ bytesReceived / Σ downloaded bytes; null when nothing was downloaded. */
  readonly importedRatio: number | null;
}

/** Exported and imported data ratio of one node. */
export interface NodeExchangeRatio {
  /** Node id. */
  readonly node: string;
  /** Σ Download.bytes of the node. */
  readonly downloadedBytes: number;
  /** bytesSent / downloadedBytes; null when the node downloaded 0 bytes. */
  readonly exportedRatio: number | null;
  /** bytesReceived / downloadedBytes; null when the node downloaded 0 bytes. */
  readonly importedRatio: number | null;
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

function bytesOf(node: Pick<NodeCrawl, 'downloads'>): number {
  let bytes = 0;
  for (const d of node.downloads) bytes += d.bytes;
  return bytes;
}

/** Communication overhead (URLs exchanged per downloaded page) and the forwarded pages of the crawl. */
export function communicationOverhead(nodes: readonly Pick<NodeCrawl, 'downloads' | 'exchange'>[]): CommunicationResult {
  let downloads = 0;
  let downloadedBytes = 0;
  let urlsSent = 0;
  let urlsReceived = 0;
  let pagesSent = 0;
  let pagesReceived = 0;
  let pageBytesSent = 0;
  let pageBytesReceived = 0;
  let bytesSent = 0;
  let bytesReceived = 0;
  for (const node of nodes) {
    const x = node.exchange;
    downloads += node.downloads.length;
    downloadedBytes += bytesOf(node);
    urlsSent += x.urlsSent;
    urlsReceived += x.urlsReceived;
    pagesSent += x.pagesSent;
    pagesReceived += x.pagesReceived;
    pageBytesSent += x.pageBytesSent;
    pageBytesReceived += x.pageBytesReceived;
    bytesSent += x.bytesSent;
    bytesReceived += x.bytesReceived;
  }
  return {
    downloads,
    downloadedBytes,
    urlsSent,
    urlsReceived,
    urlsPerPage: ratio(urlsSent, downloads),
    pagesSent,
    pagesReceived,
    pageBytesSent,
    pageBytesReceived,
    pagesForwardedPerPage: ratio(pagesSent, downloads),
    bytesSent,
    bytesReceived,
    exportedRatio: ratio(bytesSent, downloadedBytes),
    importedRatio: ratio(bytesReceived, downloadedBytes),
  };
}

/** Exported and imported data ratio of one node (seed 000 §3). */
export function exchangeRatio(node: NodeCrawl): NodeExchangeRatio {
  const downloadedBytes = bytesOf(node);
  return {
    node: node.node,
    downloadedBytes,
    exportedRatio: ratio(node.exchange.bytesSent, downloadedBytes),
    importedRatio: ratio(node.exchange.bytesReceived, downloadedBytes),
  };
}
