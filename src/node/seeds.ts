/**
 * Seed URLs (SPEC §2 item 1) from the configuration, a seeds file and sitemaps, normalized like every
 * other URL. A seed that is not an http(s) URL is a configuration error, reported with where it came
 * from. A sitemap seed is read when fetched, and the pages it lists are seeds in their turn.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { normalizeUrl } from '../url/normalize.js';
import type { CrawlConfig } from './crawl-config.js';

/** A seed, normalized. */
export interface Seed {
  readonly url: string;
  readonly hostname: string;
  /** A sitemap (from `seeds.sitemaps`), not a page. */
  readonly isSitemap?: boolean;
}

/** The lines of a seeds file that name URLs: blank lines and `#` comments skipped, ends trimmed. */
export function parseSeedsFile(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.replace(/(^|\s)#.*$/, '').trim()).filter((l) => l !== '');
}

/**
 * Every seed of the configuration, normalized, without repeats, in order (sitemaps, then flags, then
 * the file).
 * @throws ConfigError listing every bad seed, an unreadable file, or no seeds and no sitemaps at all.
 */
export function loadSeeds(config: Pick<CrawlConfig['seeds'], 'urls' | 'file'> & { readonly sitemaps?: readonly string[] }): Seed[] {
  const issues: ConfigIssue[] = [];
  // Sitemaps first: a URL given both as a page and as a sitemap is read as a sitemap (the URL-seen set takes a URL once).
  const raw: { text: string; path: string; isSitemap?: boolean }[] = (config.sitemaps ?? []).map((text, i) => ({ text, path: `seeds.sitemaps.${i}`, isSitemap: true }));
  config.urls.forEach((text, i) => raw.push({ text, path: `seeds.urls.${i}` }));
  if (config.file !== null) {
    let text: string;
    try {
      text = readFileSync(config.file, 'utf8');
    } catch (err) {
      throw new ConfigError([{ path: 'seeds.file', message: `cannot read ${config.file}: ${(err as Error).message}` }], {
        cause: err, code: 'CONFIG_FILE_UNREADABLE',
      });
    }
    parseSeedsFile(text).forEach((line, i) => raw.push({ text: line, path: `seeds.file:${i + 1}` }));
  }
  const seen = new Set<string>();
  const seeds: Seed[] = [];
  for (const { text, path, isSitemap } of raw) {
    const n = normalizeUrl(text);
    if (n.kind !== 'ok') {
      issues.push({ path, message: `not an http(s) URL (${n.reason}): ${JSON.stringify(text)}` });
      continue;
    }
    if (seen.has(n.url)) continue;
    seen.add(n.url);
    seeds.push(isSitemap === true ? { url: n.url, hostname: n.host, isSitemap } : { url: n.url, hostname: n.host });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  if (seeds.length === 0) throw new ConfigError([{ path: 'seeds', message: 'no seed URLs: give --seed URL, --seeds-file FILE or --sitemap URL' }]);
  return seeds;
}
