/**
 * What happens to a URL after its last fetch (SPEC §2 items 9–11): the WARC records (request and
 * response, or revisit for an exact duplicate, and a metadata record), then for HTML pages the
 * analysis (`page-analysis.ts`, in a parse worker: charset → decode → parse → language → SimHash and
 * text digest, links normalized against the page's effective base), the links sent to admission
 * (unless meta robots says nofollow, the link says rel=nofollow, or the page is an exact duplicate),
 * a redirect's target sent to admission like a link; and one crawl-log record per URL, to the
 * `shoal:crawl:fetch` channel and the optional stores.
 */
import { fromUrlOf, type Admission } from './admission.js';
import type { Candidate } from './candidate.js';
import type { Clock } from '../../core/clock.js';
import type { CrawlStats } from '../crawl-stats.js';
import type { DedupIndex } from '../durability/dedup-index.js';
import type { CrawlEvents } from '../../obs/events.js';
import type { Log } from '../../obs/log.js';
import { PAGE_OUTCOMES, type CrawlOutcomeKind, type CrawlSinks, type CrawlLogRecord, type GraphLink } from '../../store/records.js';
import { urlParts } from '../../url/url-parts.js';
import type { PageAnalysis } from '../../parse/page-analysis.js';
import type { TopicLabel } from '../../classify/topic-labeler.js';
import { extractAddresses } from '../../geo/address-extractor.js';
import { GeoPartitioner } from '../../partition/geo/geo.js';
import { releaseMemory } from '../../core/release-memory.js';
import { AnalysisError, type PageAnalyzer } from '../analysis/page-analyzer.js';
import { payloadDigest } from '../../dedup/content-digest.js';
import type { FetchOk, FetchOutcome, FetchRedirect } from '../../fetch/fetcher.js';
import type { Frontier, FrontierEntry } from '../../frontier/frontier.js';
import { applyPriorityChanges } from './priority-changes.js';
import {
  ipFieldOf,
  metadataFields,
  pageRecordOf,
  requestRecordOf,
  writeExchange,
  type WarcPointer,
  type WarcSink,
} from './capture-records.js';
import { SitemapReader } from './sitemap-reader.js';
import type { OrderingPolicy } from '../../order/policy.js';
import type { UrlIds } from '../../url/url-ids.js';
import {
  metadataRecord,
  responseRecord,
  revisitRecord,
  SERVER_NOT_MODIFIED_PROFILE,
  type WarcRecord,
} from '../../store/warc/warc-record.js';
import type { RevisitScheduler } from './revisits.js';
import type { ForwardedPageMessage } from '../../exchange/messages.js';
import { fetchOkOf, forwardBoundaryPage, pagePlacementOf, type BoundaryPages } from '../collaboration/page-forwarding.js';
import type { Placement } from '../../partition/partitioner.js';
import { urlFingerprintInto } from '../../url/fingerprint.js';
import { linkSetOf, onlyNewLinks } from './revisit-links.js';
import { normalizeUrl, type NormalizeOptions } from '../../url/normalize.js';
import { HTML_MEDIA_TYPES } from '../../parse/html-page.js';
import type { NearDuplicateMatch, NearDuplicates } from './near-duplicates.js';

/** Collaborators of {@link PageProcessor}. */
export interface PageProcessorOptions {
  readonly nodeId: string;
  /** Where HTML pages are analysed (worker threads or this thread). */
  readonly analyzer: PageAnalyzer;
  /** Sitemap limits: index levels followed, URLs read per document. */
  readonly sitemaps: { readonly maxDepth: number; readonly maxUrls: number };
  /** The crawl's optional normalization rules, applied to redirect targets; default none. */
  readonly normalize?: NormalizeOptions;
  readonly warc: WarcSink | null;
  readonly dedup: DedupIndex;
  /** Near-duplicates by SimHash (near-duplicates.ts); absent or null: not looked up. */
  readonly nearDuplicates?: NearDuplicates | null;
  readonly admission: Admission;
  readonly policy: OrderingPolicy;
  /** The node's URL ids when its policy keeps per-URL state (`policy.needs.ids`); null: every id is -1. */
  readonly urlIds: UrlIds | null;
  readonly frontier: Frontier;
  readonly sinks: CrawlSinks;
  readonly events: CrawlEvents;
  readonly stats: CrawlStats;
  readonly clock: Clock;
  readonly log: Log;
  /** Boundary pages are forwarded to their owners (collaborative crawls with `cluster.forward` pages or both); null: every page is kept. */
  readonly boundary?: BoundaryPages | null;
  /** Called with each crawl-log record of this node's own (not a page another node forwarded): the budget's recorded tally. */
  readonly onRecord?: (record: CrawlLogRecord) => void;
  /** The re-crawl's schedule (`recrawl.enabled`); null: pages are fetched once. */
  readonly revisits?: RevisitScheduler | null;
  /**
   * Whether pages are analysed with their links' extended anchor text (`Candidate.anchorBefore` and
   * `anchorAfter`); default true. A node whose ordering policy does not read it, in a crawl of one
   * node (no partitioner to place URLs by it), leaves it out: no output holds it.
   */
  readonly wantsAnchorContext?: boolean;
}

/** What processing an outcome yields for its crawl-log record. */
interface Captured {
  readonly bytes: number;
  readonly isDuplicate: boolean;
  readonly redirectTo: string | null;
  readonly warc: WarcPointer;
  readonly digest: string | null;
  readonly simhash: string | null;
  readonly lang: string | null;
  readonly topic: TopicLabel | null;
  /** Target cities whose addresses the page holds (a geo crawl); null otherwise. */
  readonly geoCities?: readonly number[] | null;
  /** The partitions a boundary page was sent to (this node did not keep it); empty otherwise. */
  readonly forwardedTo?: readonly number[];
  /** The earlier page this one resembles (near-duplicates.ts); absent or null otherwise. */
  readonly nearDuplicate?: NearDuplicateMatch | null;
  /** Why a page that was fetched was not archived; absent otherwise. */
  readonly reason?: string;
}

const NOTHING: Captured = Object.freeze({
  bytes: 0,
  isDuplicate: false,
  redirectTo: null,
  warc: null,
  digest: null,
  simhash: null,
  lang: null,
  topic: null,
});

/** The detail of a failure for the crawl log: a code, a timeout phase, a size limit, the window a body fell short in. */
function reasonOf(o: FetchOutcome): string | null {
  switch (o.kind) {
    case 'dns-error':
    case 'connect-error':
    case 'reset':
    case 'protocol-error':
      return o.code;
    case 'timeout':
      return o.phase;
    case 'too-large':
      return `${o.limit} > ${o.limitBytes}`;
    case 'too-slow':
      return `${o.windowBytes} B in ${o.windowMs} ms < ${o.minBytesPerSecond} B/s over ${o.minRateWindowMs} ms; ${o.bodyBytes} B of body`;
    case 'address-denied':
      return o.reason;
    case 'unsupported-encoding':
      return o.encoding;
    default:
      return null;
  }
}

/** Handles each URL's final outcome; see the file comment. */
export class PageProcessor {
  /** Whether the analysis must bring the page's visible text back: the policy or the partitioner reads it. */
  private readonly wantsText: boolean;
  /** Whether the analysis computes extended anchor text (see {@link PageProcessorOptions.wantsAnchorContext}). */
  private readonly wantsAnchorContext: boolean;

  private readonly sitemaps: SitemapReader;

  constructor(private readonly options: PageProcessorOptions) {
    this.sitemaps = new SitemapReader({
      analyzer: options.analyzer,
      admission: options.admission,
      warc: options.warc,
      stats: options.stats,
      log: options.log,
      limits: options.sitemaps,
    });
    this.wantsText = options.policy.needs.text || options.boundary !== null;
    this.wantsAnchorContext = options.wantsAnchorContext ?? true;
  }

  /** Records the end of a URL's crawl without a request for it (robots.txt, a budget, its host given up). */
  endWithoutRequest(
    entry: { readonly url: string; readonly host: string; readonly depth: number },
    fromUrl: string | null,
    kind: CrawlOutcomeKind,
    attempts: number,
    reason: string | null = null,
  ): void {
    this.options.stats.outcome(kind, false);
    this.emit({
      timeMs: this.options.clock.wallMs(),
      url: entry.url,
      host: entry.host,
      depth: entry.depth,
      fromUrl,
      kind,
      status: null,
      contentType: null,
      bytes: 0,
      durationMs: 0,
      ip: null,
      attempts,
      isDuplicate: false,
      redirectTo: null,
      node: this.options.nodeId,
      warc: null,
      digest: null,
      simhash: null,
      lang: null,
      reason,
    });
  }

  /** Writes a robots.txt request's records (no crawl-log line: robots.txt is not a page of the crawl). */
  async robotsRequest(url: string, outcome: FetchOutcome, startedWallMs: number): Promise<void> {
    this.options.stats.request(urlParts(url).hostKey, true);
    if (outcome.kind === 'ok' || outcome.kind === 'http-error' || outcome.kind === 'redirect') {
      this.options.stats.bytes += outcome.rawBody.length;
      this.options.stats.robotsBytes += outcome.rawBody.length;
      await writeExchange(this.options.warc, url, outcome, outcome.rawBody, startedWallMs);
    }
  }

  /** Handles the last fetch of a lease's URL (`outcome` is never `aborted`). */
  async process(
    entry: FrontierEntry,
    outcome: Exclude<FetchOutcome, { kind: 'aborted' }>,
    attempts: number,
    startedWallMs: number,
  ): Promise<void> {
    const o = this.options;
    o.stats.outcome(outcome.kind, PAGE_OUTCOMES.has(outcome.kind));
    let c: Captured = NOTHING;
    if (outcome.kind === 'ok' && entry.isSitemap === true) {
      c = { ...NOTHING, ...(await this.sitemaps.read(entry, outcome, startedWallMs)) };
    } else if (outcome.kind === 'ok') {
      c = await this.page(entry, outcome, startedWallMs);
    } else if (outcome.kind === 'redirect') {
      c = await this.redirect(entry, outcome, startedWallMs);
    } else if (outcome.kind === 'http-error' || outcome.kind === 'unsupported-encoding') {
      c = {
        ...NOTHING,
        bytes: outcome.rawBody.length,
        warc: await writeExchange(this.options.warc, entry.url, outcome, outcome.rawBody, startedWallMs),
      };
    } else if (outcome.kind === 'not-modified') {
      c = { ...NOTHING, warc: await this.notModified(entry.url, outcome, startedWallMs) };
    }
    o.stats.bytes += c.bytes;
    const reason = reasonOf(outcome);
    if (outcome.kind !== 'ok') {
      o.log.warn('fetch-failed', {
        url: entry.url,
        kind: outcome.kind,
        status: outcome.kind === 'http-error' ? outcome.response.status : null,
        reason,
        attempts,
      });
    }
    const head = 'response' in outcome ? outcome.response : null;
    this.emit({
      timeMs: startedWallMs,
      url: entry.url,
      host: entry.host,
      depth: entry.depth,
      fromUrl: fromUrlOf(entry),
      kind: outcome.kind,
      status: head?.status ?? null,
      contentType: outcome.kind === 'ok' ? outcome.contentType : mediaType(head?.headers['content-type']),
      bytes: c.bytes,
      durationMs: outcome.timings.totalMs,
      ip: outcome.ip,
      attempts,
      isDuplicate: c.isDuplicate,
      redirectTo: c.redirectTo,
      node: o.nodeId,
      warc: c.warc,
      digest: c.digest,
      simhash: c.simhash,
      lang: c.lang,
      topic: c.topic,
      geoCities: c.geoCities ?? null,
      reason:
        c.forwardedTo !== undefined && c.forwardedTo.length > 0
          ? `forwarded to partition ${c.forwardedTo.join(', ')}`
          : (c.reason ?? reason),
      ...nearDuplicateFields(c),
    });
    // The page is written and its links followed: nothing reads its bodies any more. Not a page sent
    // to its owner (the exchange holds its body until delivered), nor a sitemap.
    if (outcome.kind === 'ok' && entry.isSitemap !== true && o.boundary == null) releaseBodies(outcome);
  }

  /**
   * A page fetched before a crash, after the last checkpoint (tail-recovery.ts): shown to the ordering
   * policy, and its followable links sent to admission again (its records are on disk already).
   */
  async followRecovered(page: { readonly url: string; readonly depth: number }, parsed: PageAnalysis): Promise<void> {
    this.options.stats.links.found += parsed.found;
    this.options.stats.links.invalid += parsed.invalid;
    await this.follow({ url: page.url, host: urlParts(page.url).hostKey, depth: page.depth, priority: 0 }, parsed, true);
  }

  /**
   * A page another node fetched and forwarded because it belongs here: stored and followed as if
   * this node had fetched it (its crawl-log line names the node that fetched it). Delivered again
   * after a crash, it is written again as a revisit of the first copy.
   */
  async receivePage(m: ForwardedPageMessage): Promise<void> {
    const o = this.options;
    const outcome = fetchOkOf(m);
    const entry: FrontierEntry = { url: m.url, host: urlParts(m.url).hostKey, depth: m.depth, priority: 0 };
    // This node must not fetch it again when it finds a link to it.
    await o.admission.markSeen([m.url]);
    o.stats.receivedPages++;
    const c = await this.page(entry, outcome, m.fetchedAtMs, true);
    this.emit({
      timeMs: m.fetchedAtMs,
      url: m.url,
      host: entry.host,
      depth: m.depth,
      fromUrl: m.fromUrl,
      kind: 'ok',
      status: m.status,
      contentType: m.contentType,
      bytes: c.bytes,
      durationMs: m.durationMs,
      ip: m.ip,
      attempts: 1,
      isDuplicate: c.isDuplicate,
      redirectTo: null,
      node: m.from,
      warc: c.warc,
      digest: c.digest,
      simhash: c.simhash,
      lang: c.lang,
      topic: c.topic,
      geoCities: c.geoCities ?? null,
      reason: c.reason ?? null,
      isReceived: true,
      ...nearDuplicateFields(c),
    });
  }

  /** A 2xx page: WARC, dedup, analysis, links; a boundary page goes to its owners first. */
  private async page(entry: FrontierEntry, outcome: FetchOk, startedWallMs: number, isReceived = false): Promise<Captured> {
    const o = this.options;
    const url = entry.url;
    const rawDigest = payloadDigest(outcome.rawBody);
    const contentDigest = outcome.contentEncodings.length === 0 ? rawDigest : payloadDigest(outcome.body);
    const isHtml = outcome.contentType === null || HTML_MEDIA_TYPES.has(outcome.contentType);
    let analysed: PageAnalysis | null | undefined;
    let pagePlacement: Placement | null = null;
    if (o.boundary != null && o.boundary.mode === 'links' && !isReceived) {
      analysed = isHtml ? await this.analyze(url, outcome) : null;
      pagePlacement = pagePlacementOf(o.boundary, entry, outcome, contentDigest, analysed);
      if (!pagePlacement.some((p) => o.boundary?.own.has(p) === true)) o.stats.boundaryLinkPages++;
    } else if (o.boundary != null && !isReceived) {
      // The owner may be decided by the content (topic): the analysis comes first.
      analysed = isHtml ? await this.analyze(url, outcome) : null;
      const forwardedTo = forwardBoundaryPage(o.boundary, o.nodeId, entry, outcome, startedWallMs, contentDigest, analysed, o.stats);
      if (forwardedTo !== null) {
        return {
          ...NOTHING,
          bytes: outcome.rawBody.length,
          digest: rawDigest,
          simhash: analysed?.simhash ?? null,
          lang: analysed?.language ?? null,
          topic: analysed?.topic ?? null,
          forwardedTo,
        };
      }
    }
    const near = o.nearDuplicates?.action === 'off' ? null : (o.nearDuplicates ?? null);
    // A page to skip must be known before its exact-duplicate capture is remembered: no revisit may point at it.
    // From here the decoded body is analysed at most once and read by nothing else.
    const isBodyGiven = !isReceived && o.boundary == null && isOwnDecodedBody(outcome);
    if (near?.action === 'skip' && isHtml && analysed === undefined) analysed = await this.analyze(url, outcome, isBodyGiven);
    const request = requestRecordOf(url, outcome, startedWallMs);
    // Looked up and remembered in one step, before any await: of two equal pages in flight, one is the original.
    // A revisited page whose content has not changed refers to its last capture even when the duplicate index has forgotten it.
    const first = o.dedup.find(contentDigest) ?? (isReceived ? undefined : this.unchangedCapture(url, contentDigest));
    const isDuplicate = first !== undefined;
    let resembled: NearDuplicateMatch | null = null;
    if (near?.action === 'skip' && !isDuplicate && analysed != null) {
      resembled = near.check(url, analysed.simhash);
      if (resembled !== null) {
        o.stats.nearDuplicates++;
        return this.skipNearDuplicate(url, outcome, startedWallMs, rawDigest, contentDigest, analysed, resembled);
      }
    }
    let response: WarcRecord;
    if (first !== undefined && first.payloadDigest === rawDigest) {
      o.stats.revisits++;
      response = revisitRecord({
        date: startedWallMs,
        targetUri: url,
        payloadDigest: rawDigest,
        refersTo: first.recordId,
        refersToTargetUri: first.url,
        refersToDate: first.warcDate,
        httpHead: outcome.response.raw,
        ...ipFieldOf(outcome),
        concurrentTo: [request.id],
      });
    } else {
      response = responseRecord({
        date: startedWallMs,
        targetUri: url,
        httpHead: outcome.response.raw,
        body: outcome.rawBody,
        payloadDigest: rawDigest,
        ...ipFieldOf(outcome),
        concurrentTo: [request.id],
      });
    }
    const capture = first === undefined ? { url, payloadDigest: rawDigest, recordId: response.id, warcDate: response.date } : null;
    if (capture !== null) o.dedup.remember(contentDigest, capture);
    else o.stats.duplicates++;
    const revisits = isReceived ? null : (o.revisits ?? null);
    // Read before this visit is recorded: what the last one found.
    const revisit = revisits === null ? null : { previousLinks: revisits.lastVisit(url)?.links };
    const parsed = !isHtml || isDuplicate ? null : analysed !== undefined ? analysed : await this.analyze(url, outcome, isBodyGiven);
    if (parsed !== null && near !== null && near.action !== 'skip') resembled = near.check(url, parsed.simhash);
    if (resembled !== null) o.stats.nearDuplicates++;
    // Links of a near-duplicate are followed only when the action says so, like none of an exact duplicate's.
    const isFollowed = resembled === null || near?.action === 'archive';
    const fields = metadataFields(entry, outcome, contentDigest, first?.url ?? null, parsed);
    if (resembled !== null) fields.push(['nearDuplicateOf', resembled.url], ['nearDuplicateDistance', String(resembled.distance)]);
    // Records are placed in the file in call order, now; the slot waits for them below.
    const written =
      o.warc === null
        ? null
        : Promise.all([
            o.warc.write(request),
            o.warc.write(response),
            o.warc.write(metadataRecord({ date: startedWallMs, targetUri: url, fields, concurrentTo: [response.id] })),
          ]);
    const pageRecord = pageRecordOf(url, outcome, startedWallMs, rawDigest, contentDigest, first?.url ?? null, parsed);
    o.sinks.pageMetadata?.append({
      ...pageRecord,
      geo: this.geoScopeOf(url, outcome, parsed),
      ...nearDuplicateFields({ nearDuplicate: resembled }),
    });
    const links = parsed !== null && isFollowed ? await this.follow(entry, parsed, false, pagePlacement, revisit) : null;
    if (revisits !== null) {
      const held = first ?? capture;
      revisits.visited({
        url,
        host: entry.host,
        depth: entry.depth,
        payloadDigest: rawDigest,
        contentDigest,
        etag: outcome.response.headers['etag'] ?? null,
        lastModified: outcome.response.headers['last-modified'] ?? null,
        capture:
          o.warc === null || held === undefined || held === null
            ? null
            : { recordId: held.recordId, warcDate: held.warcDate, url: held.url },
        ...(links === null ? {} : { links }),
      });
    }
    const at = written === null ? null : (await written)[1];
    // Its response record is in the WARC file now: the capture may outlive the run (dedup-index.ts).
    if (capture !== null && at !== null) o.dedup.confirm(contentDigest, capture);
    return {
      bytes: outcome.rawBody.length,
      // In the crawl log: its links were not followed because it repeats a page (tail-recovery.ts reads it so).
      isDuplicate: isDuplicate || !isFollowed,
      nearDuplicate: resembled,
      redirectTo: null,
      warc: at === null ? null : { file: at.filename, offset: at.offset },
      digest: rawDigest,
      simhash: parsed?.simhash ?? null,
      lang: parsed?.language ?? null,
      topic: parsed?.topic ?? null,
      geoCities: this.geoCitiesOf(parsed),
    };
  }

  /**
   * A 304 to a revisit's conditional request: request and `revisit` record (server-not-modified)
   * referring to the page's last capture, which is scheduled again; without a last capture (not a
   * revisit of this crawl) the exchange as it came.
   */
  private async notModified(
    url: string,
    outcome: Extract<FetchOutcome, { kind: 'not-modified' }>,
    startedWallMs: number,
  ): Promise<Captured['warc']> {
    const o = this.options;
    const last = o.revisits?.lastVisit(url);
    o.revisits?.notModified(url);
    if (last === undefined || last.capture === null || o.warc === null) {
      return await writeExchange(o.warc, url, outcome, Buffer.alloc(0), startedWallMs);
    }
    const request = requestRecordOf(url, outcome, startedWallMs);
    const revisit = revisitRecord({
      date: startedWallMs,
      targetUri: url,
      profile: SERVER_NOT_MODIFIED_PROFILE,
      payloadDigest: last.payloadDigest,
      refersTo: last.capture.recordId,
      refersToTargetUri: last.capture.url,
      refersToDate: last.capture.warcDate,
      httpHead: outcome.response.raw,
      ...ipFieldOf(outcome),
      concurrentTo: [request.id],
    });
    const [, at] = await Promise.all([o.warc.write(request), o.warc.write(revisit)]);
    return { file: at.filename, offset: at.offset };
  }

  /** The last capture of a revisited page whose content is the one seen last time; undefined otherwise. */
  private unchangedCapture(
    url: string,
    contentDigest: string,
  ): { url: string; payloadDigest: string; recordId: string; warcDate: string } | undefined {
    const last = this.options.revisits?.lastVisit(url);
    if (last === undefined || last.capture === null || last.contentDigest !== contentDigest) return undefined;
    return { ...last.capture, payloadDigest: last.payloadDigest };
  }

  /**
   * A near-duplicate under `dedup.near.action: skip`: no WARC records, no links, no link graph; its
   * line in pages.jsonl and the crawl log's say which page it resembles.
   */
  private skipNearDuplicate(
    url: string,
    outcome: FetchOk,
    startedWallMs: number,
    rawDigest: string,
    contentDigest: string,
    parsed: PageAnalysis,
    resembled: NearDuplicateMatch,
  ): Captured {
    const o = this.options;
    const pageRecord = pageRecordOf(url, outcome, startedWallMs, rawDigest, contentDigest, null, parsed);
    o.sinks.pageMetadata?.append({
      ...pageRecord,
      geo: this.geoScopeOf(url, outcome, parsed),
      ...nearDuplicateFields({ nearDuplicate: resembled }),
    });
    return {
      ...NOTHING,
      bytes: outcome.rawBody.length,
      isDuplicate: true,
      digest: rawDigest,
      simhash: parsed.simhash,
      lang: parsed.language,
      topic: parsed.topic,
      geoCities: this.geoCitiesOf(parsed),
      nearDuplicate: resembled,
      reason: 'near-duplicate, not archived',
    };
  }

  /** In a geo crawl whose strategy reads pages, the page's city as the strategy sees it (pages.jsonl `geo`); else null. */
  private geoScopeOf(url: string, outcome: FetchOk, parsed: PageAnalysis | null): string | null {
    const placer = this.options.boundary?.placer;
    if (!(placer instanceof GeoPartitioner) || !placer.strategy.readsPages) return null;
    const city = placer.cityOfPage({ url, title: parsed?.title ?? null, text: parsed?.visibleText ?? null, ip: outcome.ip });
    return placer.gazetteer.targets[city]?.label ?? null;
  }

  /** In a geo crawl, the target cities whose street addresses a page holds (the live geo metrics). */
  private geoCitiesOf(parsed: PageAnalysis | null): readonly number[] | null {
    const placer = this.options.boundary?.placer;
    if (!(placer instanceof GeoPartitioner) || parsed === null || parsed.visibleText === null) return null;
    const cities = new Set<number>();
    for (const a of extractAddresses(parsed.visibleText, placer.gazetteer)) if (a.target >= 0) cities.add(a.target);
    return [...cities];
  }

  /** A 3xx: WARC, and the target goes to admission like a link (the seen test decides). */
  private async redirect(entry: FrontierEntry, outcome: FetchRedirect, startedWallMs: number): Promise<Captured> {
    const o = this.options;
    const written = writeExchange(this.options.warc, entry.url, outcome, outcome.rawBody, startedWallMs);
    const target = outcome.location === null ? null : normalizeUrl(outcome.location, undefined, o.normalize);
    if (target !== null && target.kind !== 'ok') o.stats.links.invalid++;
    let redirectTo: string | null = null;
    if (target !== null && target.kind === 'ok') {
      redirectTo = target.url;
      o.stats.links.found++;
      o.sinks.linkGraph?.append(entry.url, [
        { url: target.url, kind: 'redirect', anchorText: '', before: '', after: '', isNofollow: false },
      ]);
      // A sitemap that moved is still a sitemap, at the same index level.
      await o.admission.admit([
        entry.isSitemap === true
          ? { url: target.url, hostname: target.host, depth: entry.depth, fromUrl: entry.url, isSitemap: true }
          : { url: target.url, hostname: target.host, depth: entry.depth + 1, fromUrl: entry.url },
      ]);
    }
    return { ...NOTHING, bytes: outcome.rawBody.length, redirectTo, warc: await written };
  }

  /**
   * The page's analysis, or null when it could not be analysed (logged; the records are kept without
   * it). `isBodyGiven`: nothing reads `outcome.body` afterwards (see `PageAnalysisInput.isBodyGiven`).
   */
  private async analyze(url: string, outcome: FetchOk, isBodyGiven = false): Promise<PageAnalysis | null> {
    const o = this.options;
    try {
      const parsed = await o.analyzer.analyze({
        url,
        body: outcome.body,
        isBodyGiven,
        contentType: outcome.response.headers['content-type'],
        wantsText: this.wantsText,
        wantsAnchorContext: this.wantsAnchorContext,
      });
      o.stats.links.found += parsed.found;
      o.stats.links.invalid += parsed.invalid;
      return parsed;
    } catch (err) {
      if (!(err instanceof AnalysisError) || err.isFatal) throw err;
      o.stats.analysisFailures++;
      o.log.warn('analysis-failed', { url, message: err.message });
      return null;
    }
  }

  /**
   * Shows the page to the ordering policy, then sends its followable links to admission. Each
   * link's URL is hashed here once: its fingerprint gives its id, names it in the link graph and
   * goes with the candidate to the URL-seen test, and its id goes with it to the policy's `prioritize`.
   * With `revisit` (a re-crawl keeps the page's link set, `revisit-links.ts`), a page revisited
   * offers only the links it did not have at its last visit (all of them on its first visit, or
   * when the last one's are not known); @returns the page's whole link set then, else null.
   */
  private async follow(
    entry: FrontierEntry,
    parsed: PageAnalysis,
    isRecovered = false,
    fromPage: Placement | null = null,
    revisit: { readonly previousLinks: string | undefined } | null = null,
  ): Promise<string | null> {
    const o = this.options;
    const ids = o.urlIds;
    const graph = o.sinks.linkGraph;
    const pageId = ids === null ? -1 : ids.idOf(entry.url);
    let links = parsed.links;
    let hostnames = parsed.hostnames;
    let fingerprints: Uint32Array = new Uint32Array(2 * links.length);
    for (let i = 0; i < links.length; i++) {
      // A link that is not followed needs its fingerprint only for its id, the link graph and the link set.
      if (revisit === null && ids === null && graph === undefined && (links[i] as GraphLink).isNofollow) continue;
      urlFingerprintInto((links[i] as GraphLink).url, fingerprints, 2 * i);
    }
    const linkSet = revisit === null ? null : linkSetOf(fingerprints, links.length);
    if (revisit?.previousLinks !== undefined) {
      const fresh = onlyNewLinks(revisit.previousLinks, links, hostnames, fingerprints);
      // The links it had last time were seen then: counted so, which keeps the links' sum whole.
      o.stats.links.seenBefore += links.length - fresh.links.length;
      ({ links, hostnames, fingerprints } = fresh);
    }
    const n = links.length;
    const outIds = new Int32Array(n).fill(-1);
    if (ids !== null)
      for (let i = 0; i < n; i++) outIds[i] = ids.idOfFingerprint(fingerprints[2 * i] as number, fingerprints[2 * i + 1] as number);
    // A recovered page's links reached the link graph before its crawl-log line did (store-sinks.ts).
    if (!isRecovered) graph?.append(entry.url, links, fingerprints);
    const needs = o.policy.needs;
    const changes = o.policy.observe({
      id: pageId,
      url: entry.url,
      depth: entry.depth,
      outIds,
      ...(revisit?.previousLinks === undefined ? {} : { isRevisit: true }),
      ...(needs.urls ? { outUrls: links.map((l) => l.url) } : {}),
      ...(needs.anchors ? { anchors: links.map((l) => l.anchorText) } : {}),
      ...(needs.anchorContext === true ? { anchorContexts: links.map((l) => (l.after === '' ? l.before : `${l.before} ${l.after}`)) } : {}),
      title: parsed.title,
      text: parsed.visibleText,
    });
    if (changes.length > 0) applyPriorityChanges(changes, ids, o.frontier);
    const candidates: Candidate[] = [];
    for (let i = 0; i < n; i++) {
      const l = links[i] as GraphLink;
      if (l.isNofollow) {
        o.stats.links.notFollowed++;
        continue;
      }
      // One shape for every candidate, absent fields undefined: conditional spreads would allocate an
      // object per field and give a page's candidates several shapes for admission to read.
      candidates.push({
        url: l.url,
        hostname: hostnames[i] as string,
        depth: entry.depth + 1,
        fromUrl: entry.url,
        anchorText: l.anchorText,
        anchorBefore: l.before === '' ? undefined : l.before,
        anchorAfter: l.after === '' ? undefined : l.after,
        fingerprintHi: fingerprints[2 * i] as number,
        fingerprintLo: fingerprints[2 * i + 1] as number,
        fromId: pageId < 0 ? undefined : pageId,
        id: pageId < 0 ? undefined : (outIds[i] as number),
      });
    }
    await o.admission.admit(candidates, fromPage === null ? {} : { fromPage });
    return linkSet;
  }

  private emit(record: CrawlLogRecord): void {
    this.options.events.fetch(record);
    this.options.sinks.crawlLog?.append(record);
    if (record.node === this.options.nodeId) this.options.onRecord?.(record);
  }

  /** Resolves once the crawl-log records emitted so far have reached the kernel (see `RecordSink.written`). */
  written(): Promise<void> {
    return this.options.sinks.crawlLog?.written?.() ?? Promise.resolve();
  }
}

/**
 * Whether the page's decoded body is memory of its own, made by the fetcher's decoder: a body
 * fetched with a content coding, not sharing the memory of the body as received.
 */
function isOwnDecodedBody(outcome: FetchOk): boolean {
  return outcome.contentEncodings.length > 0 && outcome.body.buffer !== outcome.rawBody.buffer;
}

/** Gives back the memory of a fetched page's bodies (`core/release-memory.ts`): both are its own. */
function releaseBodies(outcome: FetchOk): void {
  releaseMemory(outcome.rawBody);
  if (isOwnDecodedBody(outcome)) releaseMemory(outcome.body);
}

/** The near-duplicate fields of a crawl-log or page record. */
function nearDuplicateFields(c: Pick<Captured, 'nearDuplicate'>): { nearDuplicateOf: string | null; nearDuplicateDistance: number | null } {
  return { nearDuplicateOf: c.nearDuplicate?.url ?? null, nearDuplicateDistance: c.nearDuplicate?.distance ?? null };
}

function mediaType(value: string | undefined): string | null {
  if (value === undefined) return null;
  const t = (value.split(';', 1)[0] ?? '').trim().toLowerCase();
  return t === '' ? null : t;
}
