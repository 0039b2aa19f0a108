/**
 * Crash recovery of the work done after the last checkpoint (SPEC §8: after `kill -9`, pages fetched
 * twice are bounded by the in-flight window).
 *
 * Between two checkpoints a node fetches pages whose completions live only in memory: after a crash
 * the frontier gives their URLs back. Their records are on disk, though: each URL's crawl-log line is
 * handed to the kernel before its lease is completed (`store-sinks.ts`), after the page's WARC
 * records, links and metadata (the crawl log depends on those files, so their bytes go first). On
 * restart, before the frontier opens, the node reads the crawl log from `crawlLogFrom`, the offset
 * before which the last checkpoint counted everything (`crawl-budget.ts`), and for each record:
 *
 * - **done**: the URL's crawl ended (a page, an error, a robots.txt or budget decision). The
 *   frontier completes it as it opens, the URL-seen set takes it again (what was staged since the
 *   checkpoint is gone), and the budget counts it;
 * - **followed**: for an HTML page (not a duplicate) and a redirect, the links it sent to admission
 *   are found again: the response record is read back from the WARC file at the offset the line
 *   names, decoded and analysed as it was, and its links (or `Location`) go to admission once the
 *   frontier is open. They were admitted after the checkpoint, so neither the frontier nor the
 *   seen set kept them, unless the page's links had been admitted before (then admission finds
 *   them seen);
 * - **fetched again**: what cannot be followed exactly: a page whose response record cannot be read
 *   back, a page that is not HTML (it may have been a sitemap, whose URLs are seeds), a boundary page
 *   forwarded to another node (the message may be lost), and any URL the frontier holds as a sitemap.
 *
 * Reading a record again is idempotent: a record already counted and completed (a crash between
 * the frontier's flush and the budget's) is completed again for nothing, and its links are found
 * seen. So a crash loses nothing, and refetches only the leases in flight when it came.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Candidate } from '../stages/candidate.js';
import type { BudgetRecord } from './crawl-budget.js';
import { hostnameOfKey, urlParts } from '../../url/url-parts.js';
import type { PageAnalysis } from '../../parse/page-analysis.js';
import type { PageAnalyzer } from '../analysis/page-analyzer.js';
import { FingerprintMap } from '../../core/fingerprint-map.js';
import { canDecode, decodeInOneCall, parseContentCodings } from '../../fetch/body-decoder.js';
import { HTML_MEDIA_TYPES } from '../../parse/html-page.js';
import { readCrawlLogTail, type CrawlLogEntry } from '../../store/crawl-log.js';
import { readRecordAt } from '../../store/warc/warc-reader.js';
import { readHttpHead } from '../../store/warc/warc-record.js';
import { urlFingerprintInto } from '../../url/fingerprint.js';
import { normalizeUrl, type NormalizeOptions } from '../../url/normalize.js';

/** A page whose links are sent to admission again. */
export interface FollowedPage {
  readonly url: string;
  readonly depth: number;
  readonly analysis: PageAnalysis;
}

/** Records left to be fetched again, by why. */
export type RefetchCounts = Readonly<Record<'unreadable' | 'not-html' | 'forwarded' | 'sitemap', number>>;

/**
 * What was found after the last checkpoint: the frontier asks {@link isCompleted} as it opens, then
 * {@link done}, {@link followed} and {@link redirects} say what to apply (a URL the frontier held as a
 * sitemap is left out of them: it is fetched again).
 */
export class RecoveredTail {
  private readonly sitemaps = new Set<number>();
  private readonly refetchCounts: Record<Refetch, number>;

  constructor(
    private readonly entries: readonly CrawlLogEntry[],
    private readonly index: FingerprintMap,
    private readonly pages: ReadonlyMap<number, FollowedPage>,
    private readonly targets: ReadonlyMap<number, Candidate>,
    refetched: Record<Refetch, number>,
  ) {
    this.refetchCounts = refetched;
  }

  /** The frontier's test at open: whether a URL it holds (fingerprint `hi`, `lo`) was done. A sitemap never is. */
  readonly isCompleted = (hi: number, lo: number, isSitemap: boolean): boolean => {
    const i = this.index.get(hi, lo);
    if (i < 0) return false;
    if (!isSitemap) return true;
    if (!this.sitemaps.has(i)) {
      this.sitemaps.add(i);
      this.refetchCounts.sitemap++;
    }
    return false;
  };

  /** Records whose URLs are done (each URL once). */
  get done(): CrawlLogEntry[] {
    return this.entries.filter((_, i) => !this.sitemaps.has(i));
  }

  /** Pages whose links go to admission again. */
  get followed(): FollowedPage[] {
    return [...this.pages].filter(([i]) => !this.sitemaps.has(i)).map(([, p]) => p);
  }

  /** Redirect targets to admit again, as admission takes them. */
  get redirects(): Candidate[] {
    return [...this.targets].filter(([i]) => !this.sitemaps.has(i)).map(([, c]) => c);
  }

  /** Records left to be fetched again, by why. */
  get refetched(): RefetchCounts {
    return { ...this.refetchCounts };
  }
}

/** What {@link readRecoveredTail} needs. */
export interface TailRecoveryOptions {
  readonly crawlLogPath: string;
  /** The offset the last checkpoint counted to (`crawl-budget.ts`). */
  readonly from: number;
  readonly warcDir: string;
  readonly analyzer: PageAnalyzer;
  /** Largest decoded body (`fetch.maxDecodedBytes`). */
  readonly maxDecodedBytes: number;
  /** Whether the analysis must return the visible text (the ordering policy or the partitioner reads it). */
  readonly wantsText: boolean;
  /** Whether the analysis computes extended anchor text (`PageProcessorOptions.wantsAnchorContext`); default true. */
  readonly wantsAnchorContext?: boolean;
  /** The crawl's optional normalization rules, applied to redirect targets as the crawl did. */
  readonly normalize?: NormalizeOptions;
}

/** Why a record cannot be followed exactly (its URL is then fetched again), or null when it can. */
type Refetch = keyof RecoveredTail['refetched'];

/** A boundary page another node keeps: the crawl log says where it went (page-processor.ts). */
const FORWARDED = /^forwarded to partition /;

/**
 * Reads the crawl log after `from` and everything needed to recover it (see the file comment). Call
 * before the frontier opens; apply the result once it is open.
 */
export async function readRecoveredTail(o: TailRecoveryOptions): Promise<RecoveredTail> {
  const entries = await readCrawlLogTail(o.crawlLogPath, o.from);
  const done: CrawlLogEntry[] = [];
  const pages = new Map<number, FollowedPage>();
  const targets = new Map<number, Candidate>();
  const refetched: Record<Refetch, number> = { unreadable: 0, 'not-html': 0, forwarded: 0, sitemap: 0 };
  const index = new FingerprintMap(Math.max(16, entries.length * 2));
  const fp = new Uint32Array(2);
  const fds = new Map<string, number>();
  try {
    for (const e of entries) {
      urlFingerprintInto(e.url, fp);
      if (index.get(fp[0] as number, fp[1] as number) >= 0) continue; // a URL ends once; a repeat adds nothing
      const kept = await recoverOne(e, o, fds);
      if (typeof kept === 'string') {
        refetched[kept]++;
        continue;
      }
      const i = done.length;
      index.set(fp[0] as number, fp[1] as number, i);
      done.push(e);
      if (kept !== null && 'analysis' in kept) pages.set(i, kept);
      else if (kept !== null) targets.set(i, kept);
    }
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
  return new RecoveredTail(done, index, pages, targets, refetched);
}

/**
 * What one record gives: null (done, nothing to follow), a page or a redirect to follow, or why it
 * must be fetched again.
 */
async function recoverOne(
  e: CrawlLogEntry,
  o: TailRecoveryOptions,
  fds: Map<string, number>,
): Promise<FollowedPage | Candidate | null | Refetch> {
  if (e.reason !== null && FORWARDED.test(e.reason)) return 'forwarded';
  const isPage = e.outcome === 'ok';
  if (isPage && e.contentType !== null && !HTML_MEDIA_TYPES.has(e.contentType)) return 'not-html';
  const needsRecord = (isPage && !e.isDuplicate) || e.outcome === 'redirect';
  if (!needsRecord) return null;
  if (e.warc === null) return 'unreadable';
  let fd = fds.get(e.warc.file);
  try {
    if (fd === undefined) {
      fd = openSync(join(o.warcDir, e.warc.file), 'r');
      fds.set(e.warc.file, fd);
    }
  } catch {
    return 'unreadable';
  }
  const stored = readRecordAt(fd, e.warc.offset);
  if (stored === null || stored.head.fields.get('warc-type') !== 'response') return 'unreadable';
  const http = readHttpHead(stored.block);
  if (http.bodyOffset < 0) return 'unreadable';
  if (e.outcome === 'redirect') {
    if (http.location === null) return null;
    let target: string;
    try {
      target = new URL(http.location, e.url).href;
    } catch {
      return null; // the crawl found no link there either
    }
    const n = normalizeUrl(target, undefined, o.normalize);
    return n.kind === 'ok' ? { url: n.url, hostname: n.host, depth: e.depth + 1, fromUrl: e.url } : null;
  }
  const codings = parseContentCodings(http.contentEncoding ?? undefined);
  const raw = stored.block.subarray(http.bodyOffset);
  const body = codings.length === 0 ? raw : canDecode(codings) ? decodeInOneCall(codings, raw, o.maxDecodedBytes, false) : null;
  if (body === null) return 'unreadable';
  try {
    const analysis = await o.analyzer.analyze({
      url: e.url,
      body,
      contentType: http.contentType ?? undefined,
      wantsText: o.wantsText,
      wantsAnchorContext: o.wantsAnchorContext !== false,
    });
    return { url: e.url, depth: e.depth, analysis };
  } catch {
    return 'unreadable';
  }
}

/** The record's fields the budget counts. */
export function budgetRecordOf(e: CrawlLogEntry): BudgetRecord {
  return { host: urlParts(e.url).hostKey, status: e.status === 0 ? null : e.status, bytes: e.bytes, attempts: e.attempt };
}

/** The URL-seen test's host name of a record's URL. */
export function hostnameOfEntry(e: CrawlLogEntry): string {
  return hostnameOfKey(urlParts(e.url).hostKey);
}
