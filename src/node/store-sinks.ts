/**
 * The stores of `src/store/` behind the node's sink shapes (`store/records.ts`): the crawl log
 * (`crawl-log.jsonl`), the page metadata (`pages.jsonl`, with URL ids of the link graph) and the link
 * graph (`links/`), in the crawl directory. Each adapter maps one node record to one store record;
 * the stores do their own validation, buffering, fsync and torn-tail repair.
 */
import { join } from 'node:path';
import type { CrawlSinks, CrawlLogRecord, GraphLink, LinkGraphSink, PageRecord, RecordSink } from '../store/records.js';
import { CRAWL_LOG_FILE, CrawlLog } from '../store/crawl-log.js';
import { LINK_GRAPH_DIR, LinkFlag, LinkGraphWriter, type LinkToWrite } from '../store/link-graph.js';
import { PAGE_METADATA_FILE, PageMetadataLog } from '../store/page-metadata.js';

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The crawl log: one line per URL whose crawl ended. `written()` hands the lines of this turn of the
 * event loop to the kernel in one write (after the files the log depends on), once the turn is over:
 * a node completes a lease only after its line is written, which is what crash recovery reads
 * (`tail-recovery.ts`).
 */
export function crawlLogSink(log: CrawlLog): RecordSink<CrawlLogRecord> {
  let writing: Promise<void> | null = null;
  return {
    start: async () => {
      await log.start();
    },
    written: () => {
      writing ??= new Promise((resolve) => {
        setImmediate(() => {
          writing = null;
          try {
            log.writeOut();
          } catch {
            // The log's I/O failure is kept and thrown by its next append or flush, which stops the node.
          }
          resolve();
        });
      });
      return writing;
    },
    get size() {
      return log.size;
    },
    append: (r) =>
      log.append({
        ts: iso(r.timeMs + r.durationMs),
        url: r.url,
        status: r.status ?? 0,
        outcome: r.kind,
        bytes: r.bytes,
        contentType: r.contentType,
        durationMs: r.durationMs,
        ip: r.ip,
        discoveredFrom: r.fromUrl,
        depth: r.depth,
        node: r.node,
        attempt: r.attempts,
        warc: r.warc,
        digest: r.digest,
        isDuplicate: r.isDuplicate,
        simhash: r.simhash,
        lang: r.lang === '' ? null : r.lang,
        reason: r.reason,
        category: r.topic?.category ?? null,
        categoryProbability: r.topic?.probability ?? null,
        categoryReason: r.topic?.reason ?? null,
        nearDuplicateOf: r.nearDuplicateOf ?? null,
        nearDuplicateDistance: r.nearDuplicateDistance ?? null,
      }),
    flush: () => log.flush(),
    close: () => log.close(),
  };
}

/** Page metadata: one line per 2xx page. */
export function pageMetadataSink(log: PageMetadataLog): RecordSink<PageRecord> {
  return {
    start: async () => {
      await log.start();
    },
    append: (p) => {
      log.append({
        ts: iso(p.timeMs),
        url: p.url,
        payloadDigest: p.payloadDigest,
        textDigest: p.textDigest,
        simhash: p.simhash,
        lang: p.language === null || p.language === '' ? null : p.language,
        title: p.title,
        linkCounts: p.linkCounts,
        isNoindex: p.isNoindex,
        isNofollow: p.isNofollow,
        canonical: p.canonical,
        category: p.topic?.category ?? null,
        categoryProbability: p.topic?.probability ?? null,
        categoryReason: p.topic?.reason ?? null,
        geo: p.geo ?? null,
        nearDuplicateOf: p.nearDuplicateOf ?? null,
        nearDuplicateDistance: p.nearDuplicateDistance ?? null,
      });
    },
    flush: () => log.flush(),
    close: () => log.close(),
  };
}

function flagsOf(l: GraphLink): number {
  let flags = l.isNofollow ? LinkFlag.nofollow : 0;
  if (l.kind === 'redirect') flags |= LinkFlag.redirect;
  if (l.kind === 'frame') flags |= LinkFlag.frame;
  return flags;
}

/** The link graph: every link of every parsed page, and every redirect, with anchor text and flags. */
export function linkGraphSink(graph: LinkGraphWriter): LinkGraphSink {
  return {
    start: async () => {
      await graph.start();
    },
    append: (fromUrl, links, fingerprints) => {
      graph.addLinks(
        fromUrl,
        links.map((l): LinkToWrite => ({ target: l.url, anchorText: l.anchorText, flags: flagsOf(l) })),
        fingerprints,
      );
    },
    flush: () => graph.flush(),
    close: () => graph.close(),
  };
}

/** Which stores a crawl keeps. */
export interface StoreChoice {
  readonly hasCrawlLog: boolean;
  readonly hasPageMetadata: boolean;
  readonly hasLinkGraph: boolean;
}

/** The stores of a crawl directory, as sinks (the page metadata names link-graph URL ids when both are kept). */
export function crawlDirSinks(root: string, choice: StoreChoice): CrawlSinks {
  const graph = choice.hasLinkGraph ? new LinkGraphWriter({ dir: join(root, LINK_GRAPH_DIR) }) : null;
  const pages = choice.hasPageMetadata
    ? new PageMetadataLog({ path: join(root, PAGE_METADATA_FILE), ...(graph === null ? {} : { linkGraph: graph }) })
    : null;
  // A URL's line reaches the disk after its page's links and metadata: a crawl-log line read back
  // after a crash vouches for them too.
  const dependsOn = [...(graph === null ? [] : [graph.linksFile]), ...(pages === null ? [] : [pages.appendFile])];
  return {
    ...(choice.hasCrawlLog ? { crawlLog: crawlLogSink(new CrawlLog({ path: join(root, CRAWL_LOG_FILE), dependsOn })) } : {}),
    ...(graph === null ? {} : { linkGraph: linkGraphSink(graph) }),
    ...(pages === null ? {} : { pageMetadata: pageMetadataSink(pages) }),
  };
}
