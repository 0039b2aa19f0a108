/**
 * Boundary pages (SPEC §1, §4): a page this node fetched that the partitioner places on another
 * node. With `cluster.forward` `pages` or `both`, the fetching node sends the whole HTTP exchange
 * (request, response head, body as received) to the owners, which store the page and follow its
 * links as if they had fetched it; the fetching node keeps only a crawl-log line for it.
 * With `urls` and a strategy whose URLs follow pages (topic, geo), the page stays where it was fetched
 * and its links go to the page's owners instead (`mode: links`, SPEC §4.2's alternative mode).
 *
 * This file places a fetched page, sends it to its owners when they are other nodes, and converts
 * between a fetch outcome and the exchange's page message; the page processor calls it before it
 * stores a page.
 */
import type { CrawlStats } from '../crawl-stats.js';
import { fromUrlOf } from '../stages/admission.js';
import type { FrontierEntry } from '../../frontier/frontier.js';
import type { FetchOk } from '../../fetch/fetcher.js';
import type { PageAnalysis } from '../../parse/page-analysis.js';
import { hostnameOfKey } from '../../url/url-parts.js';
import type { ForwardedPageMessage } from '../../exchange/messages.js';
import type { PagePlacer, PartitionId, Placement } from '../../partition/partitioner.js';

/** What the page processor needs to forward boundary pages. */
export interface BoundaryPages {
  /** `pages`: send the page itself; `links`: keep the page, send its links to its owners. */
  readonly mode: 'pages' | 'links';
  readonly placer: PagePlacer;
  /** The partition the node asks placements for. */
  readonly self: PartitionId;
  /** Every partition the node owns. */
  readonly own: ReadonlySet<PartitionId>;
  /** Hands a page to the exchange for partition `to`. */
  send(to: PartitionId, page: Omit<ForwardedPageMessage, 'seq'>): void;
  /**
   * Largest page message the transport carries (a NATS broker's `max_payload`), or null for no
   * limit. A bigger page is kept where it was fetched rather than lost.
   */
  readonly maxMessageBytes: number | null;
}

/** Bytes a page message needs at most before compression (its bodies and heads, plus room for the fields). */
export function pageMessageBytes(page: Omit<ForwardedPageMessage, 'seq'>): number {
  return page.rawBody.length + (page.body?.length ?? 0) + page.request.length + page.responseHead.length + page.url.length * 2 + 4096;
}

/** The page message for a page this node fetched. */
export function forwardedPageOf(
  from: string,
  entry: FrontierEntry,
  fromUrl: string | null,
  outcome: FetchOk,
  startedWallMs: number,
): Omit<ForwardedPageMessage, 'seq'> {
  const isDecoded = outcome.contentEncodings.length > 0;
  return {
    kind: 'page',
    from,
    url: entry.url,
    depth: entry.depth,
    fromUrl,
    fetchedAtMs: startedWallMs,
    durationMs: outcome.timings.totalMs,
    ip: outcome.ip,
    request: outcome.request,
    status: outcome.response.status,
    statusText: outcome.response.statusText,
    headers: outcome.response.headers,
    responseHead: outcome.response.raw,
    rawBody: outcome.rawBody,
    ...(isDecoded ? { body: outcome.body } : {}),
    contentEncodings: outcome.contentEncodings,
    contentType: outcome.contentType,
    charset: outcome.charset,
  };
}

const asBuffer = (b: Uint8Array): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The fetch outcome a forwarded page stands for, as the receiving node processes it. */
export function fetchOkOf(m: ForwardedPageMessage): FetchOk {
  const rawBody = asBuffer(m.rawBody);
  return {
    kind: 'ok',
    url: m.url,
    ip: m.ip,
    timings: { dnsMs: 0, totalMs: m.durationMs },
    request: asBuffer(m.request),
    response: { status: m.status, statusText: m.statusText, headers: m.headers, raw: asBuffer(m.responseHead) },
    body: m.body === undefined ? rawBody : asBuffer(m.body),
    rawBody,
    contentType: m.contentType,
    charset: m.charset,
    contentEncodings: m.contentEncodings,
  };
}

/**
 * The partitions a fetched page belongs to. In `links` mode the page stays here either way; its links
 * are placed knowing it (`UrlToPlace.fromPage`), so those of a page another node owns go there.
 */
export function pagePlacementOf(
  b: BoundaryPages,
  entry: FrontierEntry,
  outcome: FetchOk,
  contentDigest: string,
  parsed: PageAnalysis | null,
): Placement {
  return b.placer.placePage(
    {
      url: entry.url,
      hostname: hostnameOfKey(entry.host),
      ip: outcome.ip,
      contentDigest,
      language: parsed?.language ?? null,
      title: parsed?.title ?? null,
      text: parsed?.visibleText ?? null,
      category: parsed?.topic?.category ?? null,
    },
    b.self,
  );
}

/**
 * Sends a boundary page to the partitions that own it besides this node's; returns those partitions
 * when this node does not keep the page itself, or null when it does (it owns the page too, or the
 * page is too big for the transport: kept here, which loses nothing, only locality).
 */
export function forwardBoundaryPage(
  b: BoundaryPages,
  nodeId: string,
  entry: FrontierEntry,
  outcome: FetchOk,
  startedWallMs: number,
  contentDigest: string,
  parsed: PageAnalysis | null,
  stats: CrawlStats,
): readonly PartitionId[] | null {
  const placement = pagePlacementOf(b, entry, outcome, contentDigest, parsed);
  const others = placement.filter((p) => !b.own.has(p));
  if (others.length === 0) return null;
  const message = forwardedPageOf(nodeId, entry, fromUrlOf(entry), outcome, startedWallMs);
  if (b.maxMessageBytes !== null && pageMessageBytes(message) > b.maxMessageBytes) {
    stats.oversizedBoundaryPages++;
    return null;
  }
  for (const p of others) b.send(p, message);
  stats.forwardedPages++;
  return others.length < placement.length ? null : others;
}
