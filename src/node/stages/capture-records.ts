/**
 * The records a fetched URL leaves in the crawl directory, built here so that the page processor only
 * decides which: the WARC request and response records of an exchange, the metadata record's fields
 * of a page, and its line of page metadata.
 */
import { fromUrlOf } from './admission.js';
import type { FetchOk, FetchOutcome } from '../../fetch/fetcher.js';
import type { FrontierEntry } from '../../frontier/frontier.js';
import type { PageAnalysis } from '../../parse/page-analysis.js';
import type { CrawlLogRecord, PageRecord } from '../../store/records.js';
import type { WarcWriteResult } from '../../store/warc/warc-writer.js';
import { requestRecord, responseRecord, type WarcField, type WarcRecord } from '../../store/warc/warc-record.js';
import { hostKeyOf } from '../../url/url-parts.js';

/** Where WARC records go (a `WarcWriter`). */
export interface WarcSink {
  write(record: WarcRecord): Promise<WarcWriteResult>;
}

/** Where a record went in the WARC files. */
export type WarcPointer = CrawlLogRecord['warc'];

/** The `WARC-IP-Address` field of an outcome, when its address is known. */
export function ipFieldOf(outcome: { readonly ip: string | null }): { ipAddress?: string } {
  return outcome.ip === null ? {} : { ipAddress: outcome.ip };
}

/** The request record of an exchange, as written on the wire. */
export function requestRecordOf(
  url: string,
  outcome: { readonly request: Buffer; readonly ip: string | null },
  startedWallMs: number,
): WarcRecord {
  return requestRecord({ date: startedWallMs, targetUri: url, httpHead: outcome.request, ...ipFieldOf(outcome) });
}

/** Request and response records of an exchange that is not a page (error, redirect, robots.txt, sitemap); where the response went. */
export async function writeExchange(
  warc: WarcSink | null,
  url: string,
  outcome: Extract<FetchOutcome, { request: Buffer; response: unknown }>,
  body: Buffer,
  startedWallMs: number,
): Promise<WarcPointer | null> {
  if (warc === null) return null;
  const request = requestRecordOf(url, outcome, startedWallMs);
  const response = responseRecord({
    date: startedWallMs,
    targetUri: url,
    httpHead: outcome.response.raw,
    body,
    ...ipFieldOf(outcome),
    concurrentTo: [request.id],
  });
  const [, at] = await Promise.all([warc.write(request), warc.write(response)]);
  return { file: at.filename, offset: at.offset };
}

/** The fields of a page's WARC metadata record: fetch time, hops, where it was found, digests, and what the analysis found. */
export function metadataFields(
  entry: FrontierEntry,
  outcome: FetchOk,
  contentDigest: string,
  duplicateOf: string | null,
  parsed: PageAnalysis | null,
): WarcField[] {
  const fields: WarcField[] = [
    ['fetchTimeMs', String(Math.round(outcome.timings.totalMs))],
    ['hopsFromSeed', String(entry.depth)],
  ];
  const from = fromUrlOf(entry);
  if (from !== null) fields.push(['via', from]);
  fields.push(['contentDigest', contentDigest]);
  if (duplicateOf !== null) fields.push(['duplicateOf', duplicateOf]);
  if (parsed !== null) {
    fields.push(['charset', parsed.charset], ['language', parsed.language], ['simhash', parsed.simhash], ['textDigest', parsed.textDigest]);
    if (parsed.robotsDirectives.length > 0) fields.push(['metaRobots', parsed.robotsDirectives.join(', ')]);
    if (parsed.canonical !== null) fields.push(['canonical', parsed.canonical]);
    fields.push(['outlinks', String(parsed.links.length)]);
  }
  return fields;
}

/** A page's line of page metadata (`pages.jsonl`). */
export function pageRecordOf(
  url: string,
  outcome: FetchOk,
  timeMs: number,
  payload: string,
  content: string,
  duplicateOf: string | null,
  parsed: PageAnalysis | null,
): PageRecord {
  return {
    url,
    timeMs,
    status: outcome.response.status,
    contentType: outcome.contentType,
    payloadDigest: payload,
    contentDigest: content,
    duplicateOf,
    charset: parsed?.charset ?? null,
    language: parsed?.language ?? null,
    title: parsed?.title ?? null,
    textDigest: parsed?.textDigest ?? null,
    simhash: parsed?.simhash ?? null,
    isNoindex: parsed?.isNoindex ?? false,
    isNofollow: parsed?.isNofollow ?? false,
    canonical: parsed?.canonical ?? null,
    topic: parsed?.topic ?? null,
    linkCounts: linkCountsOf(url, parsed),
  };
}

/** A page's link counts: found (duplicates counted), distinct, nofollow, to its own host. */
function linkCountsOf(url: string, parsed: PageAnalysis | null): PageRecord['linkCounts'] {
  if (parsed === null) return { total: 0, unique: 0, nofollow: 0, sameHost: 0 };
  const host = hostKeyOf(url);
  let sameHost = 0;
  const unique = new Set<string>();
  for (const l of parsed.links) {
    if (hostKeyOf(l.url) === host) sameHost++;
    unique.add(l.url);
  }
  return { total: parsed.found, unique: unique.size, nofollow: parsed.nofollow, sameHost };
}
