/** Events of a crawl made up for tests: a progress event and a crawl-log record, every field filled in. */
import type { CrawlProgress } from '../../src/obs/events.js';
import type { CrawlLogRecord } from '../../src/store/records.js';

/** A progress event of `node`: a second into the run, nothing done yet, unless `fields` say otherwise. */
export function progressEvent(node: string, fields: Partial<CrawlProgress> = {}): CrawlProgress {
  return {
    node,
    elapsedMs: 1_000,
    urls: 0,
    pages: 0,
    pagesPerSecond: 0,
    recentPagesPerSecond: 0,
    bytes: 0,
    bytesPerSecond: 0,
    frontier: { queued: 10, inFlight: 2, activeHosts: 3, parked: 0, readyHosts: 1, waitingHosts: 2, backoffs: 0 },
    robots: { requests: 1, bytes: 10, results: {} },
    hosts: 4,
    errors: {},
    stopReason: null,
    ...fields,
  };
}

/** The record of `url` fetched by `node`: a 200 of 100 bytes in 10 ms, unless `fields` say otherwise. */
export function crawlRecord(node: string, url: string, fields: Partial<CrawlLogRecord> = {}): CrawlLogRecord {
  return {
    timeMs: 1_000,
    url,
    host: new URL(url).host,
    depth: 1,
    fromUrl: null,
    kind: 'ok',
    status: 200,
    contentType: 'text/html',
    bytes: 100,
    durationMs: 10,
    ip: '127.0.0.1',
    attempts: 1,
    isDuplicate: false,
    redirectTo: null,
    node,
    warc: null,
    digest: null,
    simhash: null,
    lang: null,
    reason: null,
    ...fields,
  };
}
