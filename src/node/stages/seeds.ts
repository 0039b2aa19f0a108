/**
 * Seed URLs (SPEC §2 item 1) from the configuration, a seeds file and sitemaps, normalized like every
 * other URL. A seed that is not an http(s) URL is a configuration error, reported with where it came
 * from. A sitemap seed is read when fetched, and the pages it lists are seeds in their turn.
 *
 * A seeds file may hold millions of URLs, so it is never held in memory: {@link loadSeeds} checks it
 * in one streaming pass before the crawl starts (every bad line reported, up to a hundred, with its
 * line number), keeping only a count and one URL per host (what the `seedsOnly` scope needs), and
 * {@link readSeedsFile} reads it again in batches while the node queues them. Repeats are left to
 * the URL-seen set.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { normalizeUrl, type NormalizeOptions } from '../../url/normalize.js';
import type { CrawlConfig } from '../../config/crawl-config.js';

/** A seed, normalized. */
export interface Seed {
  readonly url: string;
  readonly hostname: string;
  /** A sitemap (from `seeds.sitemaps`), not a page. */
  readonly isSitemap?: boolean;
}

/** The seeds of a crawl: the ones given in the configuration, and the checked seeds file. */
export interface Seeds {
  /** Sitemaps first, then the pages of `seeds.urls`; normalized, without repeats. */
  readonly listed: readonly Seed[];
  /** The seeds file, checked, and how many URLs it names (repeats included); null without one. */
  readonly file: { readonly path: string; readonly count: number } | null;
  /** One seed URL per host, over the listed pages and the file (what a `seedsOnly` scope needs). */
  readonly hostUrls: readonly string[];
  /** Listed seeds plus the file's URLs. */
  readonly count: number;
}

/** Bad seeds reported at most (the rest are counted). */
const MAX_ISSUES = 100;
const CHUNK_BYTES = 1024 * 1024;

/** The URL of a seeds-file line, or null for a blank line or a `#` comment. */
function lineUrl(line: string): string | null {
  const text = line.replace(/(^|\s)#.*$/, '').trim();
  return text === '' ? null : text;
}

/** The lines of a seeds file that name URLs: blank lines and `#` comments skipped, ends trimmed. */
export function parseSeedsFile(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map(lineUrl)
    .filter((l): l is string => l !== null);
}

/** Calls `onLine` with each line of the file at `path` (without its line break), reading 1 MiB at a time. */
function eachLineSync(path: string, onLine: (line: string, lineNo: number) => void): void {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8'); // a character cut at a chunk's end waits for the next
    let rest = '';
    let lineNo = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const text = rest + decoder.write(buf.subarray(0, n));
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line.replace(/\r$/, ''), ++lineNo);
    }
    rest += decoder.end();
    if (rest !== '') onLine(rest.replace(/\r$/, ''), ++lineNo);
  } finally {
    closeSync(fd);
  }
}

/**
 * The seeds of the configuration: the listed ones normalized, the file checked (see the file comment).
 * @throws ConfigError listing bad seeds (up to a hundred, and how many more), an unreadable file, or
 *   no seeds and no sitemaps at all.
 */
export function loadSeeds(
  config: Pick<CrawlConfig['seeds'], 'urls' | 'file'> & { readonly sitemaps?: readonly string[] },
  normalize: NormalizeOptions = {},
): Seeds {
  const issues: ConfigIssue[] = [];
  let more = 0;
  const report = (path: string, text: string, reason: string): void => {
    if (issues.length < MAX_ISSUES) issues.push({ path, message: `not an http(s) URL (${reason}): ${JSON.stringify(text)}` });
    else more++;
  };
  const hosts = new Map<string, string>();
  // Sitemaps first: a URL given both as a page and as a sitemap is read as a sitemap (the URL-seen set takes a URL once).
  const raw: { text: string; path: string; isSitemap?: boolean }[] = (config.sitemaps ?? []).map((text, i) => ({
    text,
    path: `seeds.sitemaps.${i}`,
    isSitemap: true,
  }));
  config.urls.forEach((text, i) => raw.push({ text, path: `seeds.urls.${i}` }));
  const seen = new Set<string>();
  const listed: Seed[] = [];
  for (const { text, path, isSitemap } of raw) {
    const n = normalizeUrl(text, undefined, normalize);
    if (n.kind !== 'ok') {
      report(path, text, n.reason);
      continue;
    }
    if (seen.has(n.url)) continue;
    seen.add(n.url);
    listed.push(isSitemap === true ? { url: n.url, hostname: n.host, isSitemap } : { url: n.url, hostname: n.host });
    if (isSitemap !== true && !hosts.has(n.host)) hosts.set(n.host, n.url);
  }
  let file: Seeds['file'] = null;
  if (config.file !== null) {
    const path = config.file;
    let count = 0;
    try {
      eachLineSync(path, (line, lineNo) => {
        const text = lineUrl(line);
        if (text === null) return;
        const n = normalizeUrl(text, undefined, normalize);
        if (n.kind !== 'ok') {
          report(`seeds.file:${lineNo}`, text, n.reason);
          return;
        }
        count++;
        if (!hosts.has(n.host)) hosts.set(n.host, n.url);
      });
    } catch (err) {
      throw new ConfigError([{ path: 'seeds.file', message: `cannot read ${path}: ${(err as Error).message}` }], {
        cause: err,
        code: 'CONFIG_FILE_UNREADABLE',
      });
    }
    file = { path, count };
  }
  if (more > 0) issues.push({ path: 'seeds', message: `and ${more} more bad seeds` });
  if (issues.length > 0) throw new ConfigError(issues);
  const count = listed.length + (file?.count ?? 0);
  if (count === 0) throw new ConfigError([{ path: 'seeds', message: 'no seed URLs: give --seed URL, --seeds-file FILE or --sitemap URL' }]);
  return { listed, file, hostUrls: [...hosts.values()], count };
}

/**
 * The URLs of a seeds file checked by {@link loadSeeds}, normalized, in file order, `batchSize` at a
 * time; lines that do not hold a URL are skipped. Reads 1 MiB at a time, asynchronously.
 */
export async function* readSeedsFile(path: string, batchSize: number, normalize: NormalizeOptions = {}): AsyncGenerator<Seed[]> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let batch: Seed[] = [];
    const take = (line: string): void => {
      const text = lineUrl(line.replace(/\r$/, ''));
      if (text === null) return;
      const n = normalizeUrl(text, undefined, normalize);
      if (n.kind === 'ok') batch.push({ url: n.url, hostname: n.host });
    };
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const lines = (rest + decoder.write(buf.subarray(0, bytesRead))).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        take(line);
        if (batch.length < batchSize) continue;
        yield batch;
        batch = [];
      }
    }
    rest += decoder.end();
    if (rest !== '') take(rest);
    if (batch.length > 0) yield batch;
  } finally {
    await handle.close();
  }
}
