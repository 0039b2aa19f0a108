/**
 * Graph (b) of `npm run experiment:cho`: real HTML. Three Debian documentation packages are served
 * by the test web's replay mode (one virtual host per folder, on loopback) and crawled for real by
 * shoal, breadth-first, with no delay; the crawl directory is kept in the cache and reused while it
 * is complete. The web listens on a fixed port when it is free, so that the crawled URLs, and the
 * seeds the report prints, are the same from one run to the next.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../../src/core/errors.js';
import { Crawl } from '../../src/crawl/crawl.js';
import { CrawlChannel, type CrawlProgress } from '../../src/obs/events.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';

/** One documentation folder served as a host. */
export interface DocsSite {
  readonly host: string;
  readonly root: string;
  readonly debianPackage: string;
}

/** The packages and the folders they install. */
export const DOCS_SITES: readonly DocsSite[] = [
  { host: 'docs.python.test', root: '/usr/share/doc/python3.11/html', debianPackage: 'python3.11-doc' },
  { host: 'docs.postgresql.test', root: '/usr/share/doc/postgresql-doc-15/html', debianPackage: 'postgresql-doc-15' },
  { host: 'httpd.apache.test', root: '/usr/share/doc/apache2-doc/manual', debianPackage: 'apache2-doc' },
];

/** The command that installs them (never nodejs-doc: it depends on Debian's nodejs). */
export const DOCS_INSTALL = `apt-get install -y --no-install-recommends ${DOCS_SITES.map((s) => s.debianPackage).join(' ')}`;

/** Stops with a message naming the apt command when a folder is missing. */
export function checkDocsFolders(): void {
  const missing = DOCS_SITES.filter((s) => !existsSync(s.root) || !statSync(s.root).isDirectory());
  if (missing.length === 0) return;
  const list = missing.map((s) => `  ${s.root} (package ${s.debianPackage})`).join('\n');
  throw new Error(`the documentation folders of graph (b) are missing:\n${list}\ninstall them as root with:\n  ${DOCS_INSTALL}`);
}

/** What the crawl of the documentation did, kept beside it. */
export interface DocsCrawlFacts {
  readonly seeds: readonly string[];
  readonly urls: number;
  readonly pages: number;
  readonly elapsedMs: number;
  readonly outcomes: Readonly<Record<string, number>>;
}

const MARKER = 'experiment-crawl.json';

/** Port the documentation is served on, fixed so that its URLs repeat from run to run. */
export const DOCS_PORT = 18_004;

/** The replay web of {@link DOCS_SITES} on {@link DOCS_PORT}, or on a free port when that one is taken. */
async function startDocsWeb(log: (line: string) => void): Promise<TestWeb> {
  const replay = DOCS_SITES.map((s) => ({ host: s.host, root: s.root }));
  try {
    return await startTestWeb({ hosts: 0, pages: 0, replay, server: { port: DOCS_PORT } });
  } catch (err) {
    if (!(err instanceof ShoalError) || err.code !== 'PORT_UNAVAILABLE') throw err;
    log(`  port ${DOCS_PORT} is taken (${err.message}); serving on a free port, so the URLs name that port`);
    return startTestWeb({ hosts: 0, pages: 0, replay });
  }
}

/**
 * The seeds of `graph` (a graph of the documentation crawl) one per site in {@link DOCS_SITES} order.
 * The crawl graph lists them in crawl-log order, which the crawl's fetch slots shuffle from run to
 * run, and a simulated crawl's visits depend on the order of its seeds.
 * @throws Error when a site has no seed (a cache directory of another crawl).
 */
export function seedsInSiteOrder(graph: SimGraph): Uint32Array {
  return Uint32Array.from(DOCS_SITES, (site) => {
    const seed = Array.from(graph.seeds).find((s) => new URL(graph.urlOf(s)).hostname === site.host);
    if (seed === undefined) throw new Error(`the documentation crawl has no seed on ${site.host}; delete its cache directory`);
    return seed;
  });
}

/**
 * The crawl directory of the documentation, crawled now unless `dir` holds a complete earlier crawl.
 * `log` receives progress lines.
 */
export async function docsCrawl(
  dir: string,
  log: (line: string) => void,
): Promise<{ readonly facts: DocsCrawlFacts; readonly isCached: boolean }> {
  const marker = join(dir, MARKER);
  if (existsSync(marker)) return { facts: JSON.parse(readFileSync(marker, 'utf8')) as DocsCrawlFacts, isCached: true };
  rmSync(dir, { recursive: true, force: true });
  const web = await startDocsWeb(log);
  const onProgress = (message: unknown): void => {
    const p = message as CrawlProgress;
    log(
      `  crawl: ${p.pages.toLocaleString('en-US')} pages, ${p.frontier.queued.toLocaleString('en-US')} queued, ${(p.elapsedMs / 1000).toFixed(0)} s`,
    );
  };
  subscribe(CrawlChannel.progress, onProgress);
  try {
    const summary = await new Crawl({
      seeds: { urls: [...web.seeds] },
      scope: { seedsOnly: 'host' },
      network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 0, delayFactor: 0 },
      limits: { concurrency: DOCS_SITES.length },
      order: { policy: 'bfs' },
      store: { outDir: dir },
      progressIntervalMs: 5000,
    }).run();
    const facts: DocsCrawlFacts = {
      seeds: [...web.seeds],
      urls: summary.urls,
      pages: summary.pages,
      elapsedMs: summary.elapsedMs,
      outcomes: { ...summary.outcomes } as Record<string, number>,
    };
    writeFileSync(marker, `${JSON.stringify(facts, null, 2)}\n`);
    return { facts, isCached: false };
  } finally {
    unsubscribe(CrawlChannel.progress, onProgress);
    await web.close();
  }
}
