/**
 * A sitemap document the crawl fetched (SPEC §2 item 1): its WARC records, then its page URLs go to
 * admission as seeds (depth 0, found on the sitemap), or an index's child sitemaps one level down (up
 * to `limits.maxDepth`). Listed URLs meet the URL filter and scope like any link: the sitemaps
 * protocol's location rule is not applied. Parsing runs where pages are analysed (parse workers).
 */
import type { Admission } from './admission.js';
import type { Candidate } from './candidate.js';
import { writeExchange, type WarcPointer, type WarcSink } from './capture-records.js';
import type { CrawlStats } from '../crawl-stats.js';
import { AnalysisError, type PageAnalyzer } from '../analysis/page-analyzer.js';
import { payloadDigest } from '../../dedup/content-digest.js';
import type { FetchOk } from '../../fetch/fetcher.js';
import type { FrontierEntry } from '../../frontier/frontier.js';
import type { Log } from '../../obs/log.js';
import type { SitemapParse } from '../../sitemap/sitemap-parser.js';
import { hostnameOfKey, urlParts } from '../../url/url-parts.js';

/** What a sitemap leaves for its crawl-log record. */
export interface SitemapCapture {
  readonly bytes: number;
  readonly warc: WarcPointer | null;
  readonly digest: string;
}

/** Collaborators of {@link SitemapReader}. */
export interface SitemapReaderOptions {
  readonly analyzer: PageAnalyzer;
  readonly admission: Admission;
  readonly warc: WarcSink | null;
  readonly stats: CrawlStats;
  readonly log: Log;
  /** Index levels followed, URLs read per document. */
  readonly limits: { readonly maxDepth: number; readonly maxUrls: number };
}

/** Sitemap URLs admitted at a time (one URL-seen batch each). */
const SITEMAP_BATCH = 2000;

/** The host name (no port) of a normalized URL (a sitemap's URLs are normalized by its parser). */
function hostnameOf(url: string): string {
  return hostnameOfKey(urlParts(url).hostKey);
}

/** Reads the sitemaps a crawl fetches; see the file comment. */
export class SitemapReader {
  constructor(private readonly options: SitemapReaderOptions) {}

  /** Archives the sitemap and admits what it lists. */
  async read(entry: FrontierEntry, outcome: FetchOk, startedWallMs: number): Promise<SitemapCapture> {
    const o = this.options;
    const written = writeExchange(o.warc, entry.url, outcome, outcome.rawBody, startedWallMs);
    let parsed: SitemapParse;
    try {
      parsed = await o.analyzer.parseSitemap({ url: entry.url, body: outcome.body, maxUrls: o.limits.maxUrls });
    } catch (err) {
      if (!(err instanceof AnalysisError) || err.isFatal) throw err;
      o.stats.sitemaps.documents++;
      o.stats.sitemaps.problems++;
      o.log.warn('sitemap-failed', { url: entry.url, message: err.message });
      return { bytes: outcome.rawBody.length, warc: await written, digest: payloadDigest(outcome.rawBody) };
    }
    o.stats.sitemaps.documents++;
    this.logParsed(entry, parsed);
    const candidates: Candidate[] = [];
    if (parsed.kind === 'urlset' || parsed.kind === 'text') {
      for (const u of parsed.urls) candidates.push({ url: u.url, hostname: hostnameOf(u.url), depth: 0, fromUrl: entry.url });
      o.stats.sitemaps.urls += candidates.length;
    } else if (parsed.kind === 'index' && entry.depth < o.limits.maxDepth) {
      for (const ref of parsed.sitemaps)
        candidates.push({ url: ref.url, hostname: hostnameOf(ref.url), depth: entry.depth + 1, fromUrl: entry.url, isSitemap: true });
      o.stats.sitemaps.children += candidates.length;
    } else if (parsed.kind === 'problem') {
      o.stats.sitemaps.problems++;
    }
    o.stats.links.found += candidates.length;
    for (let i = 0; i < candidates.length; i += SITEMAP_BATCH) await o.admission.admit(candidates.slice(i, i + SITEMAP_BATCH));
    return { bytes: outcome.rawBody.length, warc: await written, digest: payloadDigest(outcome.rawBody) };
  }

  private logParsed(entry: FrontierEntry, parsed: SitemapParse): void {
    const d = parsed.dropped;
    const common = {
      url: entry.url,
      level: entry.depth,
      entries: parsed.entryCount,
      isGzip: parsed.isGzip,
      droppedInvalid: d.invalid,
      droppedDuplicate: d.duplicate,
      droppedOverCap: d.overCap,
    };
    if (parsed.kind === 'problem')
      this.options.log.warn('sitemap-problem', { ...common, problem: parsed.problem, message: parsed.message });
    else if (parsed.kind === 'index' && entry.depth >= this.options.limits.maxDepth)
      this.options.log.warn('sitemap-too-deep', { ...common, children: parsed.sitemaps.length });
    else
      this.options.log.info('sitemap', {
        ...common,
        kind: parsed.kind,
        count: parsed.kind === 'index' ? parsed.sitemaps.length : parsed.urls.length,
      });
  }
}
