/**
 * Finding the programs the peers bench needs, and the versions it prints beside their figures.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The Debian packages of the site and the server, as an install line. */
export const APT_SITE = 'apt-get install -y --no-install-recommends openjdk-17-doc nginx wget2';

/** Where nginx lives on Debian, outside a normal user's PATH. */
const EXTRA_DIRS = ['/usr/sbin', '/sbin', '/usr/local/sbin'];

/** The full path of an executable `name` on PATH (or in the sbin folders), or null. */
export function which(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter((d) => d !== ''), ...EXTRA_DIRS];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

/** The first line a program prints for `args` (stdout or stderr: nginx writes its version to stderr), or '?'. */
export function firstLine(program: string, args: readonly string[]): string {
  const res = spawnSync(program, args, { encoding: 'utf8' });
  const text = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim();
  return text === '' ? '?' : (text.split('\n')[0] as string);
}

/** The first of `candidates` that can `import scrapy`, with Scrapy's version; null when none can. */
export function pythonWithScrapy(candidates: readonly string[]): { python: string; version: string } | null {
  for (const python of candidates) {
    const res = spawnSync(python, ['-c', 'import scrapy; print(scrapy.__version__)'], { encoding: 'utf8' });
    if (res.status === 0) return { python, version: res.stdout.trim() };
  }
  return null;
}

/**
 * The Pythons to try: the one on PATH, then Debian's own, which is the one `apt-get install
 * python3-scrapy` installs for (a PATH with pyenv or a virtualenv first has another).
 */
export function pythonCandidates(): string[] {
  return [...new Set([which('python3'), '/usr/bin/python3'].filter((p): p is string => p !== null))];
}
