// The crawler child of bench/frontier-rss.bench.ts, in plain JavaScript so that it runs the compiled
// package (dist/, as `shoal crawl` does) under plain node: no TypeScript loader thread, no transpiler
// in the process whose memory is measured. Usage: node bench/lib/frontier-crawler.mjs HOSTS SEEDS MAX_PAGES CONCURRENCY [PROBES]
// PROBES is JSON (see `Probes` in the parent): the ordering policy, configuration merged into the crawl's, and files to
// write at the `mid` moment (heap snapshot, /proc/self/smaps) or all along (an RSS trace).
// Sends one `{ type: 'result', ... }` message (the shape of CrawlResult in the parent) and exits.
import { channel } from 'node:diagnostics_channel';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { dirBytes } from './dir-bytes.mjs';

const MiB = 2 ** 20;
const PROGRESS = 'shoal:crawl:progress';
const [hostsFile, seedsFile, maxPagesArg, concurrencyArg, probesArg] = process.argv.slice(2);
const MAX_PAGES = Number(maxPagesArg);
const CONCURRENCY = Number(concurrencyArg);
const probes = JSON.parse(probesArg ?? '{}');

/** /proc/self/status fields in MiB (0 where the system has none). */
function procStatus() {
  let text = '';
  try {
    text = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // Not Linux: only getrusage and process.memoryUsage() are reported.
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) / 1024;
  return {
    vmRss: field('VmRSS'),
    vmHwm: field('VmHWM'),
    rssAnon: field('RssAnon'),
    rssFile: field('RssFile'),
    rssShmem: field('RssShmem'),
  };
}

/**
 * Resident MiB by mapping: files of the crawl directory, other files (code), and the anonymous
 * memory split by what holds it (Linux, glibc): `brk` (the main thread's malloc heap, where the
 * crawl thread's ArrayBuffers live), `arenas` (the malloc arenas of the other threads: 64 MiB
 * aligned), `v8Pages` (256 KiB mappings: V8 heap pages of both threads) and `otherAnon`.
 */
function residentByMapping(crawlDir) {
  let text;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return null;
  }
  const kb = { crawlFiles: 0, otherFiles: 0, anon: 0, brk: 0, arenas: 0, v8Pages: 0, otherAnon: 0 };
  const ARENA = 64 * 2 ** 20;
  let kind = 'anon';
  let sub = 'otherAnon';
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header !== null) {
      const path = header[3] ?? '';
      const start = Number.parseInt(header[1], 16);
      const size = Number.parseInt(header[2], 16) - start;
      if (path === '[heap]') [kind, sub] = ['anon', 'brk'];
      else if (path === '' || path.startsWith('['))
        [kind, sub] = ['anon', start % ARENA === 0 && size < ARENA ? 'arenas' : size === 256 * 1024 ? 'v8Pages' : 'otherAnon'];
      else if (path.startsWith(crawlDir)) [kind, sub] = ['crawlFiles', null];
      else [kind, sub] = ['otherFiles', null];
    } else if (line.startsWith('Rss:')) {
      const n = Number(/(\d+)/.exec(line)?.[1] ?? 0);
      kb[kind] += n;
      if (sub !== null) kb[sub] += n;
    }
  }
  for (const k of Object.keys(kb)) kb[k] /= 1024;
  return kb;
}

function sample(label, atMs, frontier, pages, crawlDir) {
  const m = process.memoryUsage();
  const h = getHeapStatistics();
  return {
    label,
    atMs,
    frontier,
    pages,
    ...procStatus(),
    v8Malloced: h.malloced_memory / MiB,
    v8PeakMalloced: h.peak_malloced_memory / MiB,
    heapUsed: m.heapUsed / MiB,
    heapTotal: m.heapTotal / MiB,
    external: m.external / MiB,
    arrayBuffers: m.arrayBuffers / MiB,
    maps: crawlDir === null ? null : residentByMapping(crawlDir),
  };
}

/** The wall time of the node's `crawl-started` log line: the seeds are read and normalized, the stores open. */
function crawlStartedAt(crawlDir) {
  try {
    for (const line of readFileSync(join(crawlDir, 'logs', 'node.jsonl'), 'utf8').split('\n')) {
      if (line.includes('"crawl-started"')) return Date.parse(JSON.parse(line).time);
    }
  } catch {
    // No log: the figure is left out.
  }
  return null;
}

const out = mkdtempSync(join(tmpdir(), 'shoal-bench-frontier-'));
const samples = [sample('start', 0, 0, 0, out)];
const { Crawl } = await import('../../dist/index.js');
// Already loaded by the package: the deep merge its configuration loader uses.
const { mergeTrees } = await import('../../dist/config/load.js');
samples.push(sample('baseline', 0, 0, 0, out));
const stalls = monitorEventLoopDelay({ resolution: 20 });
stalls.enable();
const t0 = performance.now();
const wall0 = Date.now();
const since = () => performance.now() - t0;
let frontierMax = 0;
let parkedMax = 0;
let frontierAtSeedsQueued = 0;
let seedsQueuedAt = null;
/** When the page count last went up before the crawl stopped (the last fetches may take a while to end). */
let lastGain = { atMs: 0, pages: 0 };
const named = new Set();
const take = (label, frontier, pages) => {
  named.add(label);
  samples.push(sample(label, since(), frontier, pages, out));
};
const f1 = (n) => n.toFixed(1);
const int = (n) => Math.round(n).toLocaleString('en-US');
const onProgress = (p) => {
  const queued = p.frontier.queued + p.frontier.inFlight;
  frontierMax = Math.max(frontierMax, queued);
  parkedMax = Math.max(parkedMax, p.frontier.parked ?? 0);
  if (p.stopReason !== null) {
    take('closed', queued, p.pages);
    return;
  }
  if (queued >= 1_000_000 && !named.has('seeds-queued')) {
    seedsQueuedAt ??= since();
    frontierAtSeedsQueued = queued;
    take('seeds-queued', queued, p.pages);
  } else if (!named.has('mid') && p.pages >= MAX_PAGES / 2) {
    take('mid', queued, p.pages);
    if (probes.smaps) writeFileSync(probes.smaps, readFileSync('/proc/self/smaps'));
    if (probes.heapSnapshot) process.stderr.write(`  heap snapshot of the crawl thread: ${writeHeapSnapshot(probes.heapSnapshot)}\n`);
  } else if (!named.has('late') && p.pages >= MAX_PAGES * 0.9) take('late', queued, p.pages);
  else samples.push(sample('', since(), queued, p.pages, null));
  if (seedsQueuedAt !== null && p.pages > lastGain.pages) lastGain = { atMs: since(), pages: p.pages };
  const s = samples[samples.length - 1];
  process.stderr.write(
    `  ${f1(s.atMs / 1000)} s: frontier ${int(queued)} (${int(p.frontier.parked)} parked on disk), ${int(p.pages)} pages (${int(p.recentPagesPerSecond)}/s); ` +
      `RSS ${int(s.vmRss)} (anon ${int(s.rssAnon)}, file ${int(s.rssFile)}), heap ${int(s.heapUsed)}/${int(s.heapTotal)}, buffers ${int(s.arrayBuffers)}, ` +
      `v8 malloc ${int(s.v8Malloced)} (peak ${int(s.v8PeakMalloced)}), peak ${int(s.vmHwm)}\n`,
  );
};
channel(PROGRESS).subscribe(onProgress);
let traceFd = null;
let traceTimer = null;
if (probes.rssTrace) {
  // One line every 50 ms: ms since the start, RSS, V8 heap (total), ArrayBuffers, MiB. Peaks fall between progress events.
  traceFd = openSync(probes.rssTrace, 'w');
  writeSync(traceFd, 'ms rss heapTotal arrayBuffers\n');
  traceTimer = setInterval(() => {
    const m = process.memoryUsage();
    writeSync(
      traceFd,
      `${Math.round(since())} ${Math.round(m.rss / MiB)} ${Math.round(m.heapTotal / MiB)} ${Math.round(m.arrayBuffers / MiB)}\n`,
    );
  }, 50).unref();
}
const crawl = new Crawl(
  mergeTrees(
    {
      nodeId: 'bench',
      seeds: { file: seedsFile },
      network: { hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 0 },
      limits: { concurrency: CONCURRENCY, maxPages: MAX_PAGES },
      store: { outDir: out },
      progressIntervalMs: 1000,
    },
    mergeTrees(probes.order === undefined ? {} : { order: { policy: probes.order } }, probes.set ?? {}),
  ),
);
let result;
try {
  const summary = await crawl.run();
  const runMs = since();
  stalls.disable();
  const started = crawlStartedAt(out);
  const loadSeedsMs = started === null ? null : started - wall0;
  result = {
    type: 'result',
    samples,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    frontierMax,
    parkedMax,
    frontierAtSeedsQueued,
    frontierLeft: summary.frontierLeft.queued,
    loadSeedsMs,
    queueSeedsMs: seedsQueuedAt === null || loadSeedsMs === null ? null : seedsQueuedAt - loadSeedsMs,
    crawlMs: lastGain.atMs - (seedsQueuedAt ?? 0),
    crawlPages: lastGain.pages,
    runMs,
    pages: summary.pages,
    seenUrls: summary.seenUrls,
    stopReason: summary.stopReason,
    longestStallMs: stalls.max / 1e6,
    diskMb: { frontier: dirBytes(join(out, 'state', 'frontier')) / MiB, seen: dirBytes(join(out, 'state', 'seen')) / MiB },
  };
} finally {
  channel(PROGRESS).unsubscribe(onProgress);
  clearInterval(traceTimer ?? undefined);
  if (traceFd !== null) closeSync(traceFd);
  rmSync(out, { recursive: true, force: true });
}
// Sent once the crawl directory is gone: the parent stops waiting for this process when it has the result.
await new Promise((resolve) => (process.send === undefined ? resolve() : process.send(result, undefined, undefined, () => resolve())));
process.exit(0);
