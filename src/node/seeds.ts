/**
 * Seed URLs (SPEC §2 item 1) from the configuration and a seeds file, normalized like every other
 * URL. A seed that is not an http(s) URL is a configuration error, reported with where it came from.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { normalizeUrl } from '../url/normalize.js';
import type { CrawlConfig } from './crawl-config.js';

/** A seed, normalized. */
export interface Seed {
  readonly url: string;
  readonly hostname: string;
}

/** The lines of a seeds file that name URLs: blank lines and `#` comments skipped, ends trimmed. */
export function parseSeedsFile(text: string): string[] {
  return text.split(/\r?\n/).map((l) => l.replace(/(^|\s)#.*$/, '').trim()).filter((l) => l !== '');
}

/**
 * Every seed of the configuration, normalized, without repeats, in order (flags first, then file).
 * @throws ConfigError listing every bad seed, an unreadable file, or no seeds at all.
 */
export function loadSeeds(config: CrawlConfig['seeds']): Seed[] {
  const issues: ConfigIssue[] = [];
  const raw: { text: string; path: string }[] = config.urls.map((text, i) => ({ text, path: `seeds.urls.${i}` }));
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
  for (const { text, path } of raw) {
    const n = normalizeUrl(text);
    if (n.kind !== 'ok') {
      issues.push({ path, message: `not an http(s) URL (${n.reason}): ${JSON.stringify(text)}` });
      continue;
    }
    if (seen.has(n.url)) continue;
    seen.add(n.url);
    seeds.push({ url: n.url, hostname: n.host });
  }
  if (issues.length > 0) throw new ConfigError(issues);
  if (seeds.length === 0) throw new ConfigError([{ path: 'seeds', message: 'no seed URLs: give --seed URL or --seeds-file FILE' }]);
  return seeds;
}
