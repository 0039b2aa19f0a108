/**
 * Crawlee for the peers bench: installed on request into a scratch folder of the user's cache, never
 * into shoal's own dependencies, and used from there whenever it is present.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Crawlee release `--install-crawlee` installs (3.x runs on Node 16 and later). */
export const CRAWLEE_VERSION = '3.18.1';

const SCRIPT = fileURLToPath(new URL('./crawlee-crawl.mjs', import.meta.url));

/** `$XDG_CACHE_HOME/shoal/bench-peers/crawlee`, by default under `~/.cache`. */
export function crawleeDir(): string {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(cache, 'shoal', 'bench-peers', 'crawlee');
}

/** The Crawlee version installed in `dir`, or null. */
export function installedCrawlee(dir: string): string | null {
  const manifest = join(dir, 'node_modules', 'crawlee', 'package.json');
  if (!existsSync(manifest)) return null;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Installs {@link CRAWLEE_VERSION} into `dir` with npm; throws with npm's exit code on failure. */
export function installCrawlee(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = join(dir, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ private: true, type: 'module' }, null, 2) + '\n');
  const res = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `crawlee@${CRAWLEE_VERSION}`], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`npm install crawlee@${CRAWLEE_VERSION} in ${dir} failed (exit ${res.status})`);
}

/** Puts the bench's Crawlee script beside Crawlee's node_modules (where `import 'crawlee'` resolves) and returns its path. */
export function crawleeScript(dir: string): string {
  const target = join(dir, 'crawlee-crawl.mjs');
  copyFileSync(SCRIPT, target);
  return target;
}
