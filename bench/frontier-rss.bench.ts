/**
 * `npm run bench:frontier` (node --import tsx bench/frontier-rss.bench.ts [--quick] [--orders bfs,pagerank]):
 * the crawler's memory while its frontier holds a million URLs. Target: peak RSS <= 300 MB on a
 * 2-core machine. Prints figures; fails (exit code 1) only if the frontier never held 1,000,000 URLs.
 *
 * The crawler runs once per ordering policy of `--orders` (default `bfs,pagerank`: breadth-first,
 * then a priority order, whose frontier parks a host's URLs beyond 16 on disk in priority bands),
 * one after the other against the same test web, and a table of peak RSS and speed by order ends the
 * output. Each run prints its own figures and `BENCH_FRONTIER_JSON` line (with its `order`).
 *
 * Three processes, so that the figures are the crawler's alone:
 *  - the test web (this file with `--serve-web`): the `large` preset (10,000 hosts, 1,049,308 pages
 *    with seed 1) without slow hosts. It writes every page URL, in a fixed shuffled order, to a seeds
 *    file (about 96 MB);
 *  - the crawler (`lib/frontier-crawler.mjs`, plain node on the compiled package in dist/, which
 *    this bench builds first: the process users run, without a TypeScript loader thread in it, and
 *    under the node flags and malloc setting the `shoal` command starts node with, from
 *    src/node/process-settings.ts):
 *    `new Crawl({ seeds: { file } })` with the default frontier (persistent: its log on disk) and
 *    URL-seen set (disk: a sorted file), min delay 0, concurrency 64, stopping after 20,000 pages
 *    (10,000 with `--quick`: the seeds are queued while the crawl runs, and fewer pages would end it
 *    before the frontier holds 1M). Everything the crawler does counts: reading and normalizing the seeds,
 *    queueing them, crawling, closing the stores;
 *  - this process, which starts both and prints what the crawler reports.
 *
 * The crawler reports its peak RSS (getrusage), the frontier size from `shoal:crawl:progress` (it
 * must reach 1,000,000 URLs, or the run fails; the progress lines also say how many of them are
 * parked on disk, beyond the 16 URLs per host the frontier holds in memory under breadth-first order), and at a few moments a breakdown of its memory:
 * /proc/self/status (RssAnon: heaps and malloc; RssFile: mapped files), process.memoryUsage() (the
 * crawl thread's V8 heap; the parse worker's heap is in RssAnon only), and the resident bytes of
 * /proc/self/smaps by mapping (files of the crawl directory, other files such as code, anonymous).
 * Also the time to read and queue the seeds, the longest event-loop stall, and pages/s once
 * crawling. The moments: `start` (Node alone), `baseline` (the crawler's modules
 * loaded, nothing built), `seeds-queued` (the first progress event that sees the frontier hold
 * 1,000,000 URLs: the seeds file is queued in batches while the crawl already runs), `mid` and `late`
 * (half and 90 % of the pages), `closed` (the run's last progress event, after every store closed).
 * Memory figures are in MiB (2^20 bytes); the target is checked in MB (10^6 bytes), as stated.
 * Each run's last line: `BENCH_FRONTIER_JSON {...}`.
 *
 * The anonymous memory is split further (Linux, glibc; heuristics on /proc/self/smaps): `brk` is
 * the main thread's malloc heap (the crawl thread's ArrayBuffers are there), `arenas` the malloc
 * arenas of the other threads (parse worker, I/O pool), `v8` the 256 KiB pages of the V8 heaps.
 *
 * Options for finding where memory goes (the figures of such a run are not the benchmark's):
 *   --set JSON           configuration merged into the crawler's, e.g. '{"parse":{"workers":0}}'
 *   --node-flags=FLAGS   node flags of the crawler process, after the shoal command's, e.g. --node-flags=--max-semi-space-size=2
 *   --untuned            the crawler under Node's defaults, without the shoal command's settings
 *   --faults JSON        merged into the test web's faults, e.g. '{"oversizedRate":0,"bombRate":0}' (no 5 MB
 *                        pages, no gzip bombs) or '{"oversizedRate":0.02}' (ten times as many)
 *   --smaps FILE         the crawler's /proc/self/smaps at the `mid` moment
 *   --heap-snapshot FILE a heap snapshot of the crawl thread at `mid` (it pauses the crawl)
 *   --rss-trace FILE     RSS, V8 heap and ArrayBuffers every 50 ms (peaks fall between progress events)
 */
import { once } from 'node:events';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WEB_PRESETS } from '../src/web/presets.js';
import type { WebConfigInput } from '../src/web/config.js';
import { crawlerProcess, processSettingsLabel } from './lib/process-settings.js';

const SELF = fileURLToPath(import.meta.url);
const ROOT = join(dirname(SELF), '..');
const CRAWLER = join(dirname(SELF), 'lib', 'frontier-crawler.mjs');
const args = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'serve-web': { type: 'boolean', default: false },
    untuned: { type: 'boolean', default: false },
    set: { type: 'string' },
    'node-flags': { type: 'string' },
    faults: { type: 'string' },
    smaps: { type: 'string' },
    'heap-snapshot': { type: 'string' },
    'rss-trace': { type: 'string' },
    orders: { type: 'string', default: 'bfs,pagerank' },
  },
  allowPositionals: false,
});
const isQuick = args.values.quick;

/** What the crawler child is asked to do besides crawling (see the file comment); its fifth argument. */
interface Probes {
  /** The ordering policy (`order.policy`), with its defaults. */
  readonly order?: string;
  readonly set?: unknown;
  readonly smaps?: string;
  readonly heapSnapshot?: string;
  readonly rssTrace?: string;
}

/** A JSON object given to `option`, or undefined when the option is absent. */
function jsonObject(option: string, text: string | undefined, example: string): object | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`--${option} wants a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`--${option} wants a JSON object, e.g. '${example}'`);
  return value;
}

function probesOf(v: typeof args.values): Probes {
  const set = jsonObject('set', v.set, '{"parse":{"workers":0}}');
  const abs = (f: string | undefined): string | undefined => (f === undefined ? undefined : resolve(f));
  return {
    ...(set === undefined ? {} : { set }),
    smaps: abs(v.smaps),
    heapSnapshot: abs(v['heap-snapshot']),
    rssTrace: abs(v['rss-trace']),
  };
}
const probes = probesOf(args.values);
const nodeFlags = (args.values['node-flags'] ?? '').split(/\s+/).filter((f) => f !== '');
const isUntuned = args.values.untuned;
const faults = jsonObject('faults', args.values.faults, '{"oversizedRate":0,"bombRate":0}');
const isProbed = probes.set !== undefined || nodeFlags.length > 0 || probes.heapSnapshot !== undefined || isUntuned || faults !== undefined;
const ORDERS = (args.values.orders ?? '').split(',').filter((o) => o !== '');
if (ORDERS.length === 0) throw new Error('--orders wants ordering policy ids, e.g. bfs,pagerank');

const WEB: WebConfigInput = { ...WEB_PRESETS.large, latency: { slowHostRate: 0 }, ...(faults === undefined ? {} : { faults }) };
const CONCURRENCY = 64;
const MAX_PAGES = isQuick ? 10_000 : 20_000;
const MIN_FRONTIER = 1_000_000;
const TARGET_RSS_MB = 300;
const MiB = 2 ** 20;

interface WebReady {
  readonly type: 'ready';
  readonly hostsFile: string;
  readonly seedsFile: string;
  readonly seedUrls: number;
  readonly hosts: number;
  readonly buildMs: number;
}

/** Resident memory at one moment, MiB. */
interface MemorySample {
  readonly label: string;
  /** Since the crawl was started, ms. */
  readonly atMs: number;
  readonly frontier: number;
  readonly pages: number;
  readonly vmRss: number;
  readonly vmHwm: number;
  readonly rssAnon: number;
  readonly rssFile: number;
  readonly rssShmem: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Resident MiB of /proc/self/smaps by mapping kind (named moments only). */
  readonly maps: Readonly<Record<MapKind, number>> | null;
}
type MapKind = 'crawlFiles' | 'otherFiles' | 'anon' | 'brk' | 'arenas' | 'v8Pages' | 'otherAnon';

interface CrawlResult {
  readonly type: 'result';
  readonly samples: readonly MemorySample[];
  readonly peakRssMb: number;
  readonly frontierMax: number;
  /** Most URLs parked on disk at a progress event. */
  readonly parkedMax: number;
  readonly frontierAtSeedsQueued: number;
  readonly frontierLeft: number;
  readonly loadSeedsMs: number | null;
  readonly queueSeedsMs: number | null;
  readonly crawlMs: number;
  readonly crawlPages: number;
  readonly runMs: number;
  readonly pages: number;
  /** URLs in the URL-seen set at the end: the seeds and the new URLs the crawl found. */
  readonly seenUrls: number;
  readonly stopReason: string;
  readonly longestStallMs: number;
  readonly diskMb: { readonly frontier: number; readonly seen: number };
}

/** The child: serve the test web; write every page URL, shuffled, to a seeds file. */
async function serveWeb(): Promise<void> {
  const { startTestWeb } = await import('../src/web/start.js');
  const t0 = performance.now();
  const web = await startTestWeb(WEB);
  const n = web.model.pageCount;
  // A fixed shuffle (xorshift32, Fisher-Yates): a seed list in no particular order, not host by host.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let x = 0x9e3779b9;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  const seedsFile = join(mkdtempSync(join(tmpdir(), 'shoal-bench-frontier-seeds-')), 'seeds.txt');
  process.once('exit', () => rmSync(dirname(seedsFile), { recursive: true, force: true }));
  const out = createWriteStream(seedsFile);
  for (let i = 0; i < n; i += 10_000) {
    const lines: string[] = [];
    for (let k = i; k < Math.min(n, i + 10_000); k++) lines.push(web.url(order[k] as number));
    if (!out.write(`${lines.join('\n')}\n`)) await once(out, 'drain');
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  const ready: WebReady = {
    type: 'ready',
    hostsFile: web.hostsFile,
    seedsFile,
    seedUrls: n,
    hosts: web.model.hosts.length,
    buildMs: performance.now() - t0,
  };
  process.send?.(ready);
  process.on('disconnect', () => process.exit(0));
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stop') void web.close().then(() => process.exit(0));
  });
}

const f1 = (n: number): string => n.toFixed(1);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const pad = (s: string, n: number): string => s.padStart(n);

function waitFor<T>(child: ChildProcess, type: string, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { type?: string }): void => {
      if (msg.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg as T);
    };
    const onExit = (code: number | null): void => reject(new Error(`${what} exited (${code}) before sending "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function memoryTable(samples: readonly MemorySample[]): string {
  const head =
    `  ${'moment'.padEnd(13)}${pad('at s', 7)}${pad('frontier', 11)}${pad('VmRSS', 7)}${pad('VmHWM', 7)}${pad('anon', 6)}${pad('file', 6)}${pad('shmem', 6)}` +
    ` |${pad('heapUsed', 9)}${pad('heapTot', 8)}${pad('extern', 7)}${pad('arrBuf', 7)} |${pad('crawl dir', 10)}${pad('code', 6)}${pad('anon', 6)}` +
    ` =${pad('brk', 5)}${pad('arenas', 7)}${pad('v8', 5)}${pad('other', 6)}`;
  const rows = samples
    .filter((s) => s.label !== '')
    .map((s) => {
      const m = s.maps;
      return (
        `  ${s.label.padEnd(13)}${pad(f1(s.atMs / 1000), 7)}${pad(int(s.frontier), 11)}${pad(int(s.vmRss), 7)}${pad(int(s.vmHwm), 7)}` +
        `${pad(int(s.rssAnon), 6)}${pad(int(s.rssFile), 6)}${pad(int(s.rssShmem), 6)} |${pad(int(s.heapUsed), 9)}${pad(int(s.heapTotal), 8)}` +
        `${pad(int(s.external), 7)}${pad(int(s.arrayBuffers), 7)} |` +
        (m === null
          ? '   (no smaps)'
          : `${pad(int(m.crawlFiles), 10)}${pad(int(m.otherFiles), 6)}${pad(int(m.anon), 6)}` +
            ` =${pad(int(m.brk), 5)}${pad(int(m.arenas), 7)}${pad(int(m.v8Pages), 5)}${pad(int(m.otherAnon), 6)}`)
      );
    });
  return [head, ...rows].join('\n');
}

/** One order's figures, for the table that ends the run. */
interface OrderRun {
  readonly order: string;
  readonly frontierMax: number;
  readonly parkedMax: number;
  readonly peakRssMb: number;
  readonly isWithinTarget: boolean;
  readonly isFrontierFull: boolean;
  readonly seedsPerSecond: number | null;
  readonly pagesPerSecond: number;
}

/** Runs the crawler child with `order` against the web child's seeds; prints its figures and JSON line. */
async function crawlWith(order: string, ready: WebReady, seedsMb: number, load0: number, children: ChildProcess[]): Promise<OrderRun> {
  const crawler = fork(
    CRAWLER,
    [ready.hostsFile, ready.seedsFile, String(MAX_PAGES), String(CONCURRENCY), JSON.stringify({ ...probes, order })],
    {
      ...crawlerProcess(isUntuned, nodeFlags),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  children.push(crawler);
  process.stdout.write(`\ncrawler, order ${order}: pid ${crawler.pid}, process settings ${processSettingsLabel(isUntuned)}\n`);
  process.stdout.write(`  concurrency ${CONCURRENCY}, stops after ${int(MAX_PAGES)} pages; progress (MiB):\n`);
  if (isProbed) {
    process.stdout.write(
      `  PROBED RUN, not the benchmark's figures: ${isUntuned ? '--untuned ' : ''}${probes.set === undefined ? '' : `--set ${JSON.stringify(probes.set)} `}` +
        `${nodeFlags.length === 0 ? '' : `node flags ${nodeFlags.join(' ')} `}${faults === undefined ? '' : `--faults ${JSON.stringify(faults)} `}` +
        `${probes.heapSnapshot === undefined ? '' : 'heap snapshot at mid'}\n`,
    );
  }
  const r = await waitFor<CrawlResult>(crawler, 'result', 'crawler child');
  if (crawler.exitCode === null) await once(crawler, 'exit');
  const isFrontierFull = r.frontierMax >= MIN_FRONTIER;
  const isWithinTarget = (r.peakRssMb * MiB) / 1e6 <= TARGET_RSS_MB;
  const pagesPerSecond = r.crawlMs > 0 ? r.crawlPages / (r.crawlMs / 1000) : 0;
  const seedsPerSecond = r.queueSeedsMs === null || r.queueSeedsMs <= 0 ? null : ready.seedUrls / (r.queueSeedsMs / 1000);
  const peakAnon = Math.max(...r.samples.map((s) => s.rssAnon));
  const peakFile = Math.max(...r.samples.map((s) => s.rssFile));
  const ms = (v: number | null): string => (v === null ? 'n/a' : `${f1(v / 1000)} s`);
  process.stdout.write(
    [
      '',
      `frontier: max ${int(r.frontierMax)} URLs held (${int(r.frontierAtSeedsQueued)} when it first held 1M, ${int(r.frontierLeft)} left); ` +
        `>= ${int(MIN_FRONTIER)}: ${isFrontierFull ? 'yes' : 'NO'}`,
      `  seeds read, normalized, stores opened   ${ms(r.loadSeedsMs)}`,
      `  seeds queued to 1M URLs (while crawling) ${ms(r.queueSeedsMs)}${seedsPerSecond === null ? '' : ` (${int(seedsPerSecond)} URLs/s)`}`,
      `  longest event-loop stall                ${ms(r.longestStallMs)}`,
      `  crawl                                   ${int(r.crawlPages)} pages in ${ms(r.crawlMs)} after the seeds were queued: ${int(pagesPerSecond)} pages/s`,
      `  whole run                               ${ms(r.runMs)}, ${int(r.pages)} pages, stop: ` +
        `${r.stopReason}; ${int(r.seenUrls)} URLs seen (${int(r.seenUrls - ready.seedUrls)} beyond the seeds)`,
      `  peak RSS                                ${int(r.peakRssMb)} MiB = ${int((r.peakRssMb * MiB) / 1e6)} ` +
        `MB (target <= ${TARGET_RSS_MB} MB: ${isWithinTarget ? 'met' : 'MISSED'}); ` +
        `highest sampled anon ${int(peakAnon)}, file ${int(peakFile)}`,
      `  on disk                                 frontier ${int(r.diskMb.frontier)} MiB, seen set ${int(r.diskMb.seen)} MiB`,
      '',
      "crawler memory, MiB (VmHWM: peak so far; anon/file/shmem: RssAnon/RssFile/RssShmem; heap*: the crawl thread's V8 heap;",
      'crawl dir/code/anon: resident bytes of /proc/self/smaps by mapping: files of the crawl directory mapped in, other files, anonymous;',
      "anon = brk (the main thread's malloc heap: crawl-thread ArrayBuffers) + arenas (other threads' malloc) + v8 (V8 heap pages) + other):",
      memoryTable(r.samples),
      '',
    ].join('\n'),
  );
  const json = {
    order,
    isQuick,
    isProbed,
    probes: isProbed ? { set: probes.set ?? null, nodeFlags, isUntuned, faults: faults ?? null } : null,
    seedUrls: ready.seedUrls,
    seedsFileMb: seedsMb,
    hosts: ready.hosts,
    concurrency: CONCURRENCY,
    maxPages: MAX_PAGES,
    peakRssMb: r.peakRssMb,
    targetRssMb: TARGET_RSS_MB,
    isWithinTarget,
    frontierMax: r.frontierMax,
    isFrontierFull,
    frontierAtSeedsQueued: r.frontierAtSeedsQueued,
    frontierLeft: r.frontierLeft,
    loadSeedsMs: r.loadSeedsMs,
    queueSeedsMs: r.queueSeedsMs,
    seedsPerSecond,
    longestStallMs: r.longestStallMs,
    crawlPages: r.crawlPages,
    crawlMs: r.crawlMs,
    pagesPerSecond,
    runMs: r.runMs,
    pages: r.pages,
    seenUrls: r.seenUrls,
    stopReason: r.stopReason,
    diskMb: r.diskMb,
    peakSampledAnonMb: peakAnon,
    peakSampledFileMb: peakFile,
    moments: Object.fromEntries(r.samples.filter((s) => s.label !== '').map(({ label, ...rest }) => [label, rest])),
    machine: { loadAvg1mStart: load0, loadAvg1mEnd: loadavg()[0] ?? 0 },
  };
  process.stdout.write(`BENCH_FRONTIER_JSON ${JSON.stringify(json)}\n`);
  if (!isFrontierFull) process.stderr.write(`the frontier never held ${int(MIN_FRONTIER)} URLs: this run does not measure the target\n`);
  return {
    order,
    frontierMax: r.frontierMax,
    parkedMax: r.parkedMax,
    peakRssMb: r.peakRssMb,
    isWithinTarget,
    isFrontierFull,
    seedsPerSecond,
    pagesPerSecond,
  };
}

async function main(): Promise<number> {
  const load0 = loadavg()[0] ?? 0;
  const children: ChildProcess[] = [];
  const killAll = (): void => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  process.stdout.write('building dist/ (the crawler child runs the compiled package, as `shoal crawl` does)...\n');
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
    stdio: 'inherit',
  });
  const execArgv = ['--import', 'tsx'];
  const web = fork(SELF, ['--serve-web'], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(web);
  let seedsDir: string | null = null;
  try {
    const ready = await waitFor<WebReady>(web, 'ready', 'test web child');
    seedsDir = dirname(ready.seedsFile);
    const seedsMb = statSync(ready.seedsFile).size / 1e6;
    process.stdout.write(
      `test web: ${int(ready.hosts)} hosts, ${int(ready.seedUrls)} page URLs in the seeds file (${f1(seedsMb)} MB), ` +
        `built in ${int(ready.buildMs)} ms (child pid ${web.pid})\n`,
    );
    const runs: OrderRun[] = [];
    for (const order of ORDERS) runs.push(await crawlWith(order, ready, seedsMb, load0, children));
    process.stdout.write(
      [
        '',
        `peak RSS and speed by order (target <= ${TARGET_RSS_MB} MB; ${isQuick ? '--quick, ' : ''}${int(MAX_PAGES)} pages at concurrency ${CONCURRENCY}):`,
        `  ${'order'.padEnd(12)}${pad('frontier max', 14)}${pad('parked', 11)}${pad('peak MiB', 10)}${pad('peak MB', 9)}` +
          `${pad('target', 8)}${pad('URLs/s queued', 15)}${pad('pages/s', 9)}`,
        ...runs.map(
          (r) =>
            `  ${r.order.padEnd(12)}${pad(int(r.frontierMax), 14)}${pad(int(r.parkedMax), 11)}${pad(int(r.peakRssMb), 10)}${pad(int((r.peakRssMb * MiB) / 1e6), 9)}` +
            `${pad(r.isWithinTarget ? 'met' : 'MISSED', 8)}${pad(r.seedsPerSecond === null ? 'n/a' : int(r.seedsPerSecond), 15)}${pad(int(r.pagesPerSecond), 9)}`,
        ),
        '',
      ].join('\n'),
    );
    return runs.every((r) => r.isFrontierFull) ? 0 : 1;
  } finally {
    if (web.exitCode === null && web.signalCode === null) {
      web.send({ type: 'stop' });
      await Promise.race([once(web, 'exit'), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    }
    killAll();
    if (seedsDir !== null) rmSync(seedsDir, { recursive: true, force: true });
  }
}

if (args.values['serve-web']) {
  await serveWeb();
} else {
  process.exitCode = await main();
}
