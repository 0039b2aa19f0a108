/**
 * The crawlers the peers bench compares: how each is found, started and counted.
 *
 * Every crawler starts from the same seed with 8 connections (wget: its only one), no delay between
 * requests, robots.txt not read, and stays on the seed's host (wget and wget2: below the seed's
 * folder, `--no-parent`). Each runs in fresh directories of its own (RunDirs).
 *
 * "Pages" are 2xx responses of type HTML; "other" the 2xx responses of any other type (stylesheets,
 * scripts, images: wget and wget2 follow `<img>`, `<link>` and `<script>` too, the others only links).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crawleeScript } from './crawlee.js';
import type { Command } from './measure.js';

export const PEER_IDS = ['shoal', 'wget2', 'wget', 'crawlee', 'scrapy'] as const;
export type PeerId = (typeof PEER_IDS)[number];

/** What a run fetched, read from the crawler's own output. */
export interface PeerCounts {
  readonly pages: number;
  readonly other: number;
}

/**
 * The directories of one run: `work`, the crawler's working directory, where it writes what it
 * fetched; `extra`, its other output (wget's WARC file, kept out of the files it counts); `meta`, the
 * bench's own files (the crawler's log and counts, the usage). Output bytes are `work`'s and `extra`'s.
 */
export interface RunDirs {
  readonly work: string;
  readonly extra: string;
  readonly meta: string;
}

/** One crawler, ready to run. */
export interface Peer {
  readonly id: PeerId;
  /** Name and version, as printed. */
  readonly version: string;
  readonly connections: number;
  /** What it writes, as printed. */
  readonly writes: string;
  /** The command that crawls from `seedUrl` into `dirs` (empty). */
  command(seedUrl: string, dirs: RunDirs): Command;
  /** Its counts once the run has ended. */
  count(dirs: RunDirs): PeerCounts;
  /** Exit codes of a successful run: wget and wget2 exit 8 when some response was an error (the site's few 404s). */
  readonly okExitCodes: readonly number[];
}

const SCRAPY_SPIDER = fileURLToPath(new URL('./scrapy-spider.py', import.meta.url));
const COUNTS_FILE = 'counts.json';
const HTML_FILE = /\.html?$/i;

/** HTML and other files under `dir`: wget and wget2 save each 2xx response as a file. */
function countFiles(dir: string): PeerCounts {
  let pages = 0;
  let other = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    if (HTML_FILE.test(entry.name)) pages++;
    else other++;
  }
  return { pages, other };
}

function readCounts(meta: string): PeerCounts {
  const counts = JSON.parse(readFileSync(join(meta, COUNTS_FILE), 'utf8')) as PeerCounts;
  return { pages: counts.pages, other: counts.other };
}

/** shoal's pages: the crawl log's 2xx lines, by content type. */
function countShoal(crawlDir: string): PeerCounts {
  let pages = 0;
  let other = 0;
  for (const line of readFileSync(join(crawlDir, 'crawl-log.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    const entry = JSON.parse(line) as { status: number; contentType: string | null };
    if (entry.status < 200 || entry.status >= 300) continue;
    if (entry.contentType?.startsWith('text/html') === true) pages++;
    else other++;
  }
  return { pages, other };
}

/**
 * The arguments of `shoal crawl` (after the launcher) for a crawl as fast as a loopback site allows:
 * no politeness delay, `connections` fetches at once, as many connections per host and per IP.
 */
export function fastCrawlArgs(seedUrl: string, out: string, connections: number): string[] {
  return [
    'crawl',
    '--seed',
    seedUrl,
    '--out',
    out,
    '--allow-loopback',
    '--min-delay-ms',
    '0',
    '--set',
    'politeness.delayFactor=0',
    '--set',
    `politeness.maxConnectionsPerHost=${connections}`,
    '--set',
    `politeness.maxConnectionsPerIp=${connections}`,
    '--concurrency',
    String(connections),
  ];
}

/** shoal, the built package run through its launcher (`bin/shoal.js`, a shell script that starts node with the process settings). */
export function shoalPeer(launcher: string, version: string): Peer {
  return {
    id: 'shoal',
    version,
    connections: 8,
    writes: 'WARC + CDXJ, crawl log, link graph, pages.jsonl',
    okExitCodes: [0],
    command: (seedUrl, { work }) => ({
      argv: [launcher, ...fastCrawlArgs(seedUrl, join(work, 'crawl'), 8), '--set', 'scope.seedsOnly=host'],
      cwd: work,
      env: process.env,
    }),
    count: ({ work }) => countShoal(join(work, 'crawl')),
  };
}

export function wget2Peer(wget2: string, version: string): Peer {
  return {
    id: 'wget2',
    version,
    connections: 8,
    writes: 'files',
    okExitCodes: [0, 8],
    command: (seedUrl, { work }) => ({
      argv: [wget2, '-r', '-l', 'inf', '--no-parent', '--max-threads=8', '-e', 'robots=off', '-q', seedUrl],
      cwd: work,
      env: process.env,
    }),
    count: ({ work }) => countFiles(work),
  };
}

export function wgetPeer(wget: string, version: string): Peer {
  return {
    id: 'wget',
    version,
    connections: 1,
    writes: 'files + WARC',
    okExitCodes: [0, 8],
    command: (seedUrl, { work, extra }) => ({
      argv: [wget, '-r', '-l', 'inf', '--no-parent', '-e', 'robots=off', '-q', `--warc-file=${join(extra, 'crawl')}`, seedUrl],
      cwd: work,
      env: process.env,
    }),
    count: ({ work }) => countFiles(work),
  };
}

/** Crawlee's CheerioCrawler, from the scratch folder it was installed into (crawlee.ts). */
export function crawleePeer(node: string, crawleeDir: string, version: string): Peer {
  const script = crawleeScript(crawleeDir);
  return {
    id: 'crawlee',
    version,
    connections: 8,
    writes: 'request queue (its storage folder)',
    okExitCodes: [0],
    command: (seedUrl, { work, meta }) => ({
      argv: [node, script, seedUrl, join(meta, COUNTS_FILE)],
      cwd: work,
      env: { ...process.env, CRAWLEE_STORAGE_DIR: join(work, 'storage') },
    }),
    count: ({ meta }) => readCounts(meta),
  };
}

/** Scrapy's CrawlSpider (scrapy-spider.py), run by a Python that has Scrapy. */
export function scrapyPeer(python: string, version: string): Peer {
  return {
    id: 'scrapy',
    version,
    connections: 8,
    writes: 'nothing',
    okExitCodes: [0],
    command: (seedUrl, { work, meta }) => ({
      argv: [python, '-m', 'scrapy', 'runspider', SCRAPY_SPIDER, '-a', `seed=${seedUrl}`, '-a', `counts_file=${join(meta, COUNTS_FILE)}`],
      cwd: work,
      env: process.env,
    }),
    count: ({ meta }) => readCounts(meta),
  };
}
