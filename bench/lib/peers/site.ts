/**
 * The documentation folder the peers bench serves: how many pages it holds (the figure every crawler
 * should reach) and reading it once, so that the first crawler of the first round does not pay for
 * the disk while the others are served from the page cache.
 */
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** HTML files and all files under a folder, with their bytes. */
export interface SiteFiles {
  readonly htmlFiles: number;
  readonly files: number;
  readonly bytes: number;
}

/**
 * Walks `dir` following symlinks (the documentation packages link their folders into others), reads
 * every file, and counts them. A folder reached twice through links is walked once.
 */
export function readSite(dir: string): SiteFiles {
  let htmlFiles = 0;
  let files = 0;
  let bytes = 0;
  const seen = new Set<string>();
  const walk = (path: string): void => {
    const real = realpathSync(path);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      const stat = statSync(child, { throwIfNoEntry: false });
      if (stat === undefined) continue; // a dangling link
      if (stat.isDirectory()) walk(child);
      else if (stat.isFile()) {
        files++;
        bytes += readFileSync(child).length;
        if (/\.html?$/i.test(name)) htmlFiles++;
      }
    }
  };
  walk(dir);
  return { htmlFiles, files, bytes };
}
