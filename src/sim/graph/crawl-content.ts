/**
 * Page titles and visible text for a crawl graph (`crawl-graph.ts`), read back from what the crawl
 * archived: each node directory's CDXJ index (`warc/index.cdxj`, `store/warc/cdxj.ts`) says where the
 * page's response record lies; the record's gzip member is read and checked (`store/warc/
 * gzip-members.ts`), its HTTP body decoded (gzip, deflate, br, as the fetcher undoes them) and
 * analysed by the crawl's own page analysis (`parse/page-analysis.ts`: charset, HTML parser), with the
 * crawl's default parser limits. So content-reading policies (hot queue, similarity) and importances
 * (a topic word) see in a replay the title and text the crawl saw.
 *
 * - **Which record**: a page's first indexed `response` (2xx) or `revisit` record, in the first
 *   directory (in the order given) that holds one, as the link graph keeps the links of a page's first
 *   fetch. A revisit (the crawl met the bytes before, under another URL) is read as the page it refers
 *   to (`WARC-Refers-To-Target-URI`).
 * - **No content** (empty title and text): a page the crawl did not fetch, or fetched with another
 *   status, a media type other than HTML, or a body that does not decode.
 *
 * Costs: the indexes are read once, when the graph is loaded (13 bytes per page: file, offset,
 * length); a page is read and parsed on first use (one read, one inflate, one parse: about a
 * millisecond for a 20 KB page), and the last {@link CONTENT_CACHE_PAGES} pages are kept. WARC files
 * are opened on first use and closed by `close()`.
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../../core/errors.js';
import { canDecode, decodeInOneCall, parseContentCodings } from '../../fetch/body-decoder.js';
import { crawlConfigSchema } from '../../config/crawl-config.js';
import { analyzePage, type PageAnalysisOptions } from '../../parse/page-analysis.js';
import { readLines } from '../../store/read-lines.js';
import { parseCdxjLine } from '../../store/warc/cdxj.js';
import { readHttpHead } from '../../store/warc/warc-record.js';
import { readRecordAt, type StoredRecord } from '../../store/warc/warc-reader.js';
import { INDEX_FILE } from '../../store/warc/warc-writer.js';
import type { PageContent } from './sim-graph.js';
import { HTML_MEDIA_TYPES } from '../../parse/html-page.js';

/** Parsed pages kept. */
export const CONTENT_CACHE_PAGES = 512;
/** Media types whose bodies are parsed as HTML (those the crawl parses). */
/** Revisits followed to their original at most (a revisit refers to a response, so 1 is enough). */
const MAX_REVISIT_HOPS = 2;
const EMPTY: PageContent = Object.freeze({ title: '', text: '' });
const NO_FILE = -1;

/** Options of {@link crawlContent}. */
export interface CrawlContentOptions {
  /** Parser limits; default the crawl's defaults (`parse` section of the crawl configuration). */
  readonly parse?: PageAnalysisOptions;
  /** Largest body after content decoding, bytes; default the crawl's `fetch.maxDecodedBytes`. */
  readonly maxDecodedBytes?: number;
}

/** What {@link crawlContent} gives the crawl graph. */
export interface CrawlContent {
  /** Title and visible text of a page ({@link EMPTY} content when the crawl archived none). */
  contentOf(page: number): PageContent;
  /** Pages that have an indexed record. */
  readonly indexedPages: number;
  /** Closes the WARC files opened; idempotent. Later reads reopen them. */
  close(): void;
}

/** The WARC directory of each node directory (`<node>/warc`) that holds an index, in order. */
export function warcDirsOf(nodeDirs: readonly string[]): string[] {
  return nodeDirs.map((d) => join(d, 'warc')).filter((d) => existsSync(join(d, INDEX_FILE)));
}

/**
 * Reads the CDXJ indexes of `warcDirs` and returns the page content reader; see the file comment.
 * `pageIdOf` maps a URL of the index to a page of the graph (−1 for none).
 * @throws ShoalError `GRAPH_FORMAT` when no directory holds an index; `IO` when one is unreadable.
 */
export async function crawlContent(
  warcDirs: readonly string[],
  pageCount: number,
  pageIdOf: (url: string) => number,
  options: CrawlContentOptions = {},
): Promise<CrawlContent> {
  if (warcDirs.length === 0) {
    throw new ShoalError(
      'GRAPH_FORMAT',
      `crawl graph content: no WARC index (warc/${INDEX_FILE}) in the crawl directories; page text is read from the crawl's WARC files`,
    );
  }
  const defaults = crawlConfigSchema.shape.parse.parse({});
  const parse = options.parse ?? {
    anchorContextTokens: defaults.anchorContextTokens,
    maxLinks: defaults.maxLinks,
    maxTextChars: defaults.maxTextChars,
  };
  const maxDecodedBytes = options.maxDecodedBytes ?? crawlConfigSchema.shape.fetch.parse({}).maxDecodedBytes;

  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const fileOf = new Int32Array(pageCount).fill(NO_FILE);
  const offsetOf = new Float64Array(pageCount);
  const lengthOf = new Uint32Array(pageCount);
  let indexedPages = 0;
  for (const dir of warcDirs) {
    const indexPath = join(dir, INDEX_FILE);
    try {
      for await (const line of readLines(indexPath)) {
        const e = parseCdxjLine(line.text);
        if (e === null) continue;
        const isRevisit = e.mime === 'warc/revisit';
        if (!isRevisit && (e.status === null || !e.status.startsWith('2'))) continue;
        const page = pageIdOf(e.url);
        if (page < 0 || fileOf[page] !== NO_FILE) continue;
        const path = join(dir, e.filename);
        let f = fileIndex.get(path);
        if (f === undefined) {
          f = files.length;
          files.push(path);
          fileIndex.set(path, f);
        }
        fileOf[page] = f;
        offsetOf[page] = e.offset;
        lengthOf[page] = e.length;
        indexedPages++;
      }
    } catch (err) {
      throw new ShoalError('IO', `crawl graph content: cannot read ${indexPath}: ${(err as Error).message}`, { cause: err });
    }
  }

  const fds = new Map<number, number>();
  const fdOf = (f: number): number => {
    let fd = fds.get(f);
    if (fd === undefined) {
      fd = openSync(files[f] as string, 'r');
      fds.set(f, fd);
    }
    return fd;
  };
  const cache = new Map<number, PageContent>();

  const read = (page: number, hops: number): PageContent => {
    const f = fileOf[page] as number;
    if (f === NO_FILE) return EMPTY;
    let stored: StoredRecord | null;
    try {
      stored = readRecordAt(fdOf(f), offsetOf[page] as number, lengthOf[page] as number);
    } catch (err) {
      throw new ShoalError('IO', `crawl graph content: cannot read ${files[f]} at ${offsetOf[page]}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (stored === null) return EMPTY;
    const { head, block } = stored;
    const url = head.fields.get('warc-target-uri') ?? '';
    if (head.fields.get('warc-type') === 'revisit') {
      const original = pageIdOf(head.fields.get('warc-refers-to-target-uri') ?? '');
      return original >= 0 && original !== page && hops < MAX_REVISIT_HOPS ? contentOf(original, hops + 1) : EMPTY;
    }
    const http = readHttpHead(block);
    if (http.bodyOffset < 0 || (http.mime !== null && !HTML_MEDIA_TYPES.has(http.mime))) return EMPTY;
    const codings = parseContentCodings(http.contentEncoding ?? undefined);
    const raw = block.subarray(http.bodyOffset);
    // The archive keeps bodies as received: undone here as the fetcher undoes them, in one call.
    const body = codings.length === 0 ? raw : canDecode(codings) ? decodeInOneCall(codings, raw, maxDecodedBytes, false) : null;
    if (body === null) return EMPTY;
    const analysis = analyzePage({ url, body, contentType: http.contentType ?? undefined }, parse);
    return { title: analysis.title, text: analysis.visibleText };
  };

  const contentOf = (page: number, hops = 0): PageContent => {
    if (!Number.isInteger(page) || page < 0 || page >= pageCount) throw new RangeError(`crawl graph content: ${page} is not a page`);
    const hit = cache.get(page);
    if (hit !== undefined) return hit;
    const content = read(page, hops);
    if (cache.size >= CONTENT_CACHE_PAGES) cache.delete(cache.keys().next().value as number);
    cache.set(page, content);
    return content;
  };

  return {
    contentOf: (page) => contentOf(page),
    indexedPages,
    close: () => {
      for (const fd of fds.values()) closeSync(fd);
      fds.clear();
      cache.clear();
    },
  };
}
