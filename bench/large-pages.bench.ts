/**
 * `npm run bench:large-pages` (node --import tsx bench/large-pages.bench.ts [--mb N] [--pages N]
 * [--concurrency N] [--runs N] [--no-build]): what a burst of large pages costs the crawler's memory.
 *
 * A site on loopback (served by this process) whose every page is `--mb` MiB of HTML (default 8)
 * with 50 links to further pages, and the `shoal` command (the built `dist/` through
 * `bin/shoal.js`, its process settings and its defaults: WARC, CDXJ, crawl log, link graph,
 * pages.jsonl) crawling `--pages` pages of it (default 64) with `--concurrency` fetches at once
 * (default 64) and no politeness delay: every fetch slot holds a large page, faster than one core
 * can analyse them. Each run goes once with the parse workers of the machine (`parse.workers`
 * null) and once with pages analysed in the crawl thread (`parse.workers: 0`, the default on one
 * core), alternating, `--runs` rounds (default 2). A wrapper (lib/peers/measure.py) measures each run
 * from outside: wall time, CPU time and peak RSS of the crawler's process tree.
 *
 * Prints a progress line per run, the medians per variant (pages, pages/s, MB/s, CPU s, peak RSS,
 * and peak RSS over the bytes of the pages the fetch slots can hold at once), then a last line
 * `BENCH_LARGE_PAGES_JSON {...}`. Not part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fastCrawlArgs } from './lib/peers/crawlers.js';
import { killRunning, runMeasured, type Usage } from './lib/peers/measure.js';
import { pythonCandidates } from './lib/peers/programs.js';
import { median } from './lib/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LINKS_PER_PAGE = 50;
const RUN_TIMEOUT_MS = 10 * 60_000;

const { values: args } = parseArgs({
  options: {
    mb: { type: 'string', default: '8' },
    pages: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '64' },
    runs: { type: 'string', default: '2' },
    'no-build': { type: 'boolean', default: false },
  },
});

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number, got ${value}`);
  return n;
}

const pageBytes = Math.round(positive('mb', args.mb) * 2 ** 20);
const maxPages = Math.round(positive('pages', args.pages));
const concurrency = Math.round(positive('concurrency', args.concurrency));
const runs = Math.round(positive('runs', args.runs));

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(message: string): never {
  process.stderr.write(`bench:large-pages: ${message}\n`);
  process.exit(1);
}

/** A page's name: letters only, so that no trap filter takes the site for an endless numbered space. */
function nameOf(n: number): string {
  let s = '';
  let k = n;
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26);
  } while (k > 0);
  return s;
}

function numberOf(name: string): number {
  let n = 0;
  for (const c of name) n = n * 26 + (c.charCodeAt(0) - 97);
  return n;
}

/**
 * The site: `/p/<name>` is a page of `pageBytes` bytes, its links first, then paragraphs of words;
 * the paragraphs are one buffer shared by every page (written, not built, per request).
 */
function startSite(): Promise<Server> {
  const words = 'crawler frontier politeness archive harvest partition exchange collection page host link text'.split(' ');
  let paragraphs = '';
  for (let i = 0; paragraphs.length < pageBytes; i++) {
    paragraphs += `<p>${Array.from({ length: 60 }, (_, k) => words[(i * 7 + k * k) % words.length]).join(' ')}.</p>\n`;
  }
  const body = Buffer.from(paragraphs);
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (!path.startsWith('/p/')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const n = numberOf(path.slice(3));
    const links = Array.from({ length: LINKS_PER_PAGE }, (_, i) => {
      const to = nameOf(n * LINKS_PER_PAGE + i + 1);
      return `<a href="/p/${to}">page ${to} of the large site</a>`;
    }).join('\n');
    const head = Buffer.from(`<!doctype html><html><head><title>Large page ${path.slice(3)}</title></head><body><nav>${links}</nav>\n`);
    const tail = Buffer.from('</body></html>\n');
    const filler = body.subarray(0, Math.max(0, pageBytes - head.length - tail.length));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': head.length + filler.length + tail.length });
    res.write(head);
    res.write(filler);
    res.end(tail);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

interface Variant {
  readonly id: string;
  readonly label: string;
  readonly set: readonly string[];
}

const VARIANTS: readonly Variant[] = [
  { id: 'workers', label: 'parse workers (parse.workers null)', set: [] },
  { id: 'inline', label: 'crawl thread (parse.workers 0)', set: ['--set', 'parse.workers=0'] },
];

interface RunResult {
  readonly variant: string;
  readonly pages: number;
  readonly bytes: number;
  readonly usage: Usage;
}

/** 2xx pages and their bytes, from the crawl log. */
function pagesOf(out: string): { pages: number; bytes: number } {
  let pages = 0;
  let bytes = 0;
  for (const line of readFileSync(join(out, 'crawl-log.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue;
    const r = JSON.parse(line) as { status?: number; outcome?: string; bytes?: number };
    if (r.outcome === 'ok' && r.status !== undefined && r.status >= 200 && r.status < 300) {
      pages++;
      bytes += r.bytes ?? 0;
    }
  }
  return { pages, bytes };
}

async function runOnce(python: string, port: number, v: Variant): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-bench-large-'));
  try {
    const out = join(dir, 'crawl');
    const argv = [
      join(ROOT, 'bin/shoal.js'),
      ...fastCrawlArgs(`http://127.0.0.1:${port}/p/${nameOf(0)}`, out, concurrency),
      '--max-pages',
      String(maxPages),
      ...v.set,
    ];
    const usage = await runMeasured(
      python,
      { argv, cwd: ROOT, env: process.env },
      join(dir, 'usage.json'),
      join(dir, 'crawl.log'),
      RUN_TIMEOUT_MS,
    );
    if (usage.exitCode !== 0)
      fail(`the ${v.id} run exited with ${usage.exitCode}: ${readFileSync(join(dir, 'crawl.log'), 'utf8').slice(-2000)}`);
    return { variant: v.id, ...pagesOf(out), usage };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    spawnSync('sync', { stdio: 'ignore' });
  }
}

const mib = (kb: number): number => kb / 1024;

async function main(): Promise<void> {
  const python = pythonCandidates()[0];
  if (python === undefined) fail('no python3 to measure the crawler with: apt-get install -y python3');
  if (!args['no-build']) {
    say('building shoal (npm run build): the bench runs the built dist/ through bin/shoal.js');
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) fail(`npm run build failed (exit ${build.status})`);
  }
  const server = await startSite();
  process.once('exit', killRunning);
  const port = (server.address() as AddressInfo).port;
  // What the fetch slots can hold at once: a page each, and no more pages than the crawl fetches.
  const slotMiB = (Math.min(concurrency, maxPages) * pageBytes) / 2 ** 20;
  say(
    `site: http://127.0.0.1:${port}/p/, pages of ${(pageBytes / 2 ** 20).toFixed(1)} MiB with ${LINKS_PER_PAGE} links each; ` +
      `crawl: ${maxPages} pages, concurrency ${concurrency} (the fetch slots can hold ${slotMiB.toFixed(0)} MiB of pages), ${runs} round(s)`,
  );
  const results: RunResult[] = [];
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < VARIANTS.length; k++) {
      const v = VARIANTS[(k + round) % VARIANTS.length] as Variant;
      const r = await runOnce(python, port, v);
      results.push(r);
      say(
        `  round ${round + 1}, ${v.id}: ${r.pages} pages in ${(r.usage.wallMs / 1000).toFixed(1)} s, ` +
          `CPU ${((r.usage.userMs + r.usage.systemMs) / 1000).toFixed(1)} s, peak RSS ${mib(r.usage.maxRssKb).toFixed(0)} MiB`,
      );
    }
  }
  server.close();
  await once(server, 'close');

  const rows = VARIANTS.map((v) => {
    const mine = results.filter((r) => r.variant === v.id);
    const peak = mine.map((r) => mib(r.usage.maxRssKb));
    return {
      variant: v.id,
      label: v.label,
      pages: median(mine.map((r) => r.pages)),
      pagesPerSecond: median(mine.map((r) => r.pages / (r.usage.wallMs / 1000))),
      megabytesPerSecond: median(mine.map((r) => r.bytes / 1e6 / (r.usage.wallMs / 1000))),
      cpuSeconds: median(mine.map((r) => (r.usage.userMs + r.usage.systemMs) / 1000)),
      peakRssMiB: median(peak),
      peakRssRange: [Math.min(...peak), Math.max(...peak)],
      peakOverSlots: median(peak) / slotMiB,
    };
  });
  say('');
  say('| parsed in | pages | pages/s | MB/s | CPU s | peak RSS, MiB (range) | peak RSS ÷ pages the slots hold |');
  say('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    say(
      `| ${r.label} | ${r.pages} | ${r.pagesPerSecond.toFixed(1)} | ${r.megabytesPerSecond.toFixed(0)} | ${r.cpuSeconds.toFixed(1)} | ` +
        `${r.peakRssMiB.toFixed(0)} (${r.peakRssRange.map((x) => x.toFixed(0)).join('–')}) | ${r.peakOverSlots.toFixed(2)} |`,
    );
  }
  say(`BENCH_LARGE_PAGES_JSON ${JSON.stringify({ pageBytes, maxPages, concurrency, runs, rows, results })}`);
}

await main();
