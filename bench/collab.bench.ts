/**
 * `npm run bench:collab` (node --import tsx bench/collab.bench.ts [--quick]): collaborative
 * crawling (SPEC §4–§5) on the test web, embedded: what n nodes in one process cost, and how much
 * the partitioning strategies make them talk, next to theory; and the same crawl distributed over
 * node processes and NATS.
 *
 * The test web runs in a child process (this same file with `--serve-web`), so its CPU time and
 * memory are its own: the `large` preset (10,000 hosts, 1,049,308 pages with seed 1) without slow
 * hosts and without its render cache (every run then costs the server the same, whichever pages an
 * earlier run already asked for). Building it takes about a second: pages are rendered on request,
 * so the large web costs no more to set up than a small one. Every crawl starts at the web's 50 seeds
 * with min delay 0, concurrency 64 in total (`limits.concurrency` is split over the nodes),
 * `maxPages` shared by the nodes, and every default otherwise: WARC files, the link graph, the
 * crawl log, the parse workers. Each run gets a fresh crawl directory (removed after it).
 *
 * 1. Embedded scaling: host-hash on 1, 2, 4 and 8 nodes, 20,000 pages (4,000 with `--quick`), each
 *    run in its own crawler process (this file with `--crawl`), so its CPU time and peak RSS are its
 *    own. One node is a plain crawl (no exchange). All nodes of an embedded crawl run on the crawl
 *    thread of one process (spreading nodes over worker threads is not measured here), so the CPU per
 *    page beyond the one-node figure is what n nodes and their exchange cost. Per run: pages/s (pages
 *    / crawl time), CPU ms per page (user + system, all threads of the crawler process) over the
 *    whole run and in the steady state (between the progress events at 10 % of the pages and at the
 *    end: without building, opening and closing n nodes, which weigh on short runs), the crawl
 *    thread's part of it (/proc/self/task), how busy the crawl thread was (event-loop utilization),
 *    peak RSS (getrusage), the test web's CPU; URLs sent through the exchange per second, per
 *    page (communication overhead), and the share of routed URLs the sent cache kept from being sent
 *    again (cached / (sent + cached)).
 * 2. Distributed: the 4-node host-hash crawl of section 1 again, as 4 `shoal node` processes joined
 *    only through a private `nats-server -js` (started here on a free loopback port with a fresh
 *    store directory, stopped and removed at the end; never the shared broker on port 4222). Each
 *    node runs from the sources through tsx (bench/lib/shoal-node-child.ts, which runs the CLI as
 *    bin/shoal.js does, so no build is needed and a stale dist/ is never measured) with the same web,
 *    seeds, hosts map, concurrency (64 / 4 each) and page budget (`--max-pages` counts per node in
 *    distributed mode: maxPages / 4 each), the politeness back-off of the e2e test (50–500 ms) and an
 *    ack wait of 10 s. Measured: wall time from spawn to the last exit (every exit code must be 0),
 *    the crawl time (first node's crawl start to the last one's end), pages and pages/s, CPU of the
 *    node processes (each measures itself: all threads, from process start, and in the steady state
 *    as in section 1), the broker's and the test web's CPU, URLs, messages and bytes sent through the
 *    exchange (each node's `exchange.json`), overlap (must be 0, or the bench fails) and p_l from the
 *    nodes' directories; printed next to the embedded 4-node run. Skipped (said so) without
 *    nats-server.
 * 3. Link locality p_l and communication overhead, url-hash vs host-hash, n = 2, 4, 8, 16.
 *    - Graph level, in the test web child (which holds the model): the page graph of every page, built
 *      as the truth export's link pass builds it (`pageLinks`, each target once per linking page, no
 *      self-links: 11,772,631 links, the same p_l as `exportTruth` + `readTruth` give, without their
 *      ~20 s of files, PageRank and parsing); each page placed by the strategy's own `placeUrl` on its
 *      normalized URL, p_l by `linkLocalityOfAssignment`; next to 1/n (url-hash) and s + (1 − s)/n
 *      (host-hash, s = the share of links between two pages of one host: those stay local, the
 *      others land together 1/n of the time).
 *    - Measured: short crawls (3,000 pages, 1,000 with `--quick`) in this process, read back with
 *      `readCrawlForEval` and `collaborationMetrics`: URLs exchanged per downloaded page, p_l over the
 *      distinct links between downloaded pages, overlap (must be 0 for hash strategies, or the bench
 *      fails).
 *    - content-hash (URLs by url-hash, pages by content digest) at n = 2, 4, 8: pages forwarded per
 *      page downloaded (from the nodes' exchange counters) next to (n − 1)/n; only 2xx pages are
 *      placed by content, so the share per 2xx page is printed too.
 * 4. The load average at the start and the end (`os.loadavg()`): the machine's two cores are shared.
 *
 * Last line: `BENCH_COLLAB_JSON {...}` (`distributed` holds section 2's figures, or `skipped` /
 * `failed` with the reason). Nothing is asserted about speed; the exit code is non-zero only when a
 * run fails or overlap is not 0 under a hash strategy.
 */
import { channel } from 'node:diagnostics_channel';
import { setMaxListeners } from 'node:events';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCrawlForEval } from '../src/cluster/read-crawl.js';
import { collaborationMetrics } from '../src/eval/collab-metrics.js';
import { linkLocalityOfAssignment } from '../src/eval/link-locality.js';
import { Crawl } from '../src/crawl/crawl.js';
import type { CrawlSummary } from '../src/node/crawl-stats.js';
import { CrawlChannel, StopReason, type CrawlProgress } from '../src/obs/events.js';
import { readExchangeTotals, type ExchangeTotals } from '../src/node/collaboration/exchange-totals.js';
import { createPartitioner } from '../src/partition/registry.js';
import { normalizeUrl } from '../src/url/normalize.js';
import type { WebConfigInput } from '../src/web/config.js';
import { WEB_PRESETS } from '../src/web/presets.js';
import { startTestWeb } from '../src/web/start.js';
import { pageLinks } from '../src/web/links.js';
import type { WebModel } from '../src/web/model.js';
import type { NodeReport } from './lib/shoal-node-child.js';
import { findNatsServer, freePort } from '../test/helpers/loopback.js';

const SELF = fileURLToPath(import.meta.url);
const isQuick = process.argv.includes('--quick');

/** The test web: the large preset, no slow hosts, no render cache (see the file comment). */
const WEB: WebConfigInput = {
  ...WEB_PRESETS.large,
  latency: { slowHostRate: 0 },
  server: { ...WEB_PRESETS.large.server, renderCacheBytes: 0 },
};
const CONCURRENCY = 64;
const SCALING_NODES = [1, 2, 4, 8] as const;
/** The same crawls with the nodes spread over this many worker threads (`--workers`). */
const SCALING_THREADS = 2;
const SCALING_PAGES = isQuick ? 4_000 : 20_000;
const LOCALITY_NODES = [2, 4, 8, 16] as const;
const LOCALITY_STRATEGIES = ['url-hash', 'host-hash'] as const;
const CONTENT_NODES = [2, 4, 8] as const;
const SHORT_PAGES = isQuick ? 1_000 : 3_000;
/** Node processes of the distributed crawl (section 2): the embedded run of as many nodes is its reference. */
const DIST_NODES = 4;
const REPO = join(dirname(SELF), '..');
const NODE_CHILD = join(dirname(SELF), 'lib', 'shoal-node-child.ts');

type Strategy = (typeof LOCALITY_STRATEGIES)[number] | 'content-hash';

// ---------------------------------------------------------------------------------------------
// Messages between this process and its children.

interface Ready {
  readonly type: 'ready';
  readonly hostsFile: string;
  readonly seeds: readonly string[];
  readonly port: number;
  readonly buildMs: number;
  readonly hosts: number;
  readonly pages: number;
}
interface ServerStats {
  readonly type: 'stats';
  readonly cpuUs: number;
  readonly maxRssKb: number;
  readonly requests: number;
}
interface TheoryDone {
  readonly type: 'theory-done';
  readonly theory: Theory;
}
/** One crawl to run. */
interface CrawlJob {
  readonly nodes: number;
  /** Worker threads the nodes are spread over (`cluster.workers`); 0 = all on the crawl thread. */
  readonly workers?: number;
  readonly strategy: Strategy;
  readonly maxPages: number;
  readonly hostsFile: string;
  readonly seeds: readonly string[];
  readonly outDir: string;
}
/** What the nodes sent each other, added over the nodes (endpoint and router counters). */
interface ExchangeFigures {
  readonly messagesSent: number;
  readonly bytesSent: number;
  readonly urlBatchesSent: number;
  readonly urlsSent: number;
  readonly urlsReceived: number;
  readonly pagesSent: number;
  readonly pageBytesSent: number;
  readonly linkSummariesSent: number;
  /** Router: URLs kept by the node that found them, handed to the exchange, not sent again (sent cache). */
  readonly kept: number;
  readonly routed: number;
  readonly cached: number;
}
/** What one crawl measured, in the process that ran it. */
interface CrawlFigures {
  readonly nodes: number;
  readonly strategy: Strategy;
  readonly stopReason: string;
  readonly pages: number;
  /** Pages answered 2xx. */
  readonly okPages: number;
  readonly bytes: number;
  readonly seconds: number;
  readonly cpuMs: number;
  /**
   * Steady state: CPU (all threads, and the crawl thread alone) and pages between the first progress
   * event past 10 % of maxPages and the last one before the crawl stopped, so without the cost of
   * building, opening and closing the nodes; null when fewer than two such events came.
   */
  readonly steady: { readonly cpuMs: number; readonly crawlThreadCpuMs: number; readonly pages: number } | null;
  readonly crawlThreadBusy: number;
  readonly peakRssMb: number;
  readonly exchange: ExchangeFigures | null;
}

// ---------------------------------------------------------------------------------------------
// The test web child.

async function serveWeb(): Promise<void> {
  const t0 = performance.now();
  const web = await startTestWeb(WEB);
  const ready: Ready = {
    type: 'ready',
    hostsFile: web.hostsFile,
    seeds: web.seeds,
    port: web.port,
    buildMs: performance.now() - t0,
    hosts: web.model.hosts.length,
    pages: web.model.pageCount,
  };
  process.send?.(ready);
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stats') {
      const cpu = process.cpuUsage();
      const stats: ServerStats = {
        type: 'stats',
        cpuUs: cpu.user + cpu.system,
        maxRssKb: process.resourceUsage().maxRSS,
        requests: web.log.count,
      };
      process.send?.(stats);
    } else if (msg.type === 'theory') {
      const done: TheoryDone = { type: 'theory-done', theory: graphTheory(web.model, web.port) };
      process.send?.(done);
    } else if (msg.type === 'stop') {
      void web.close().then(() => process.exit(0));
    }
  });
}

/** Sends `message` (unless null) and resolves to the first answer of type `answer`; rejects if the child exits first. */
function ask<T>(child: ChildProcess, message: object | null, answer: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => {
      child.off('message', onMessage);
      reject(new Error(`child ${child.pid} exited (${code}) before answering ${answer}`));
    };
    const onMessage = (msg: { type?: string }): void => {
      if (msg.type !== answer) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(msg as T);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (message !== null) child.send(message);
  });
}

// ---------------------------------------------------------------------------------------------
// Crawling.

/** CPU time of this process's threads so far, ms: the crawl thread (the process's own id) and all the others. */
function threadCpuMs(): { crawlThread: number; others: number } {
  let crawlThread = 0;
  let others = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // A thread that ended meanwhile.
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(f[11]) + Number(f[12])) * (1000 / 100); // utime + stime, in clock ticks of 1/100 s
    if (Number(tid) === process.pid) crawlThread += ms;
    else others += ms;
  }
  return { crawlThread, others };
}

function exchangeOf(summary: CrawlSummary): ExchangeFigures | null {
  const nodes = summary.cluster?.nodes;
  if (nodes === undefined) return null;
  const x = {
    messagesSent: 0,
    bytesSent: 0,
    urlBatchesSent: 0,
    urlsSent: 0,
    urlsReceived: 0,
    pagesSent: 0,
    pageBytesSent: 0,
    linkSummariesSent: 0,
    kept: 0,
    routed: 0,
    cached: 0,
  };
  for (const s of nodes) {
    const e = s.exchange;
    if (e === undefined) continue;
    x.messagesSent += e.endpoint.sent.messages;
    x.bytesSent += e.endpoint.sent.bytes;
    x.urlBatchesSent += e.endpoint.sent.urlBatches;
    x.urlsSent += e.endpoint.sent.urls;
    x.urlsReceived += e.endpoint.received.urls;
    x.pagesSent += e.endpoint.sent.pages;
    x.pageBytesSent += e.endpoint.sent.pageBytes;
    x.linkSummariesSent += e.endpoint.sent.linkSummaries;
    x.kept += e.router.kept;
    x.routed += e.router.sent;
    x.cached += e.router.cached;
  }
  return x;
}

/** Runs one crawl in this process and measures it. */
async function runCrawl(job: CrawlJob, progressEveryMs: number): Promise<CrawlFigures> {
  const label = `${job.strategy} × ${job.nodes}`;
  // CPU sampled at the progress events of the whole crawl, for the steady state (see CrawlFigures.steady).
  interface Sample {
    readonly cpuMs: number;
    readonly crawlThreadMs: number;
    readonly pages: number;
  }
  let first: Sample | null = null;
  let last: Sample | null = null;
  let lastPrintMs = 0;
  const onProgress = (m: unknown): void => {
    const p = m as CrawlProgress;
    if (p.node !== 'bench') return; // A node of a collaborative crawl; its combined event comes under the crawl's id.
    if (p.stopReason === null && p.pages >= job.maxPages / 10) {
      const cpu = process.cpuUsage();
      const sample = { cpuMs: (cpu.user + cpu.system) / 1000, crawlThreadMs: threadCpuMs().crawlThread, pages: p.pages };
      first ??= sample;
      last = sample;
    }
    if (progressEveryMs > 0 && p.elapsedMs - lastPrintMs >= progressEveryMs) {
      lastPrintMs = p.elapsedMs;
      process.stderr.write(
        `  [${label}] ${int(p.elapsedMs / 1000)} s: ${int(p.pages)} pages, ${int(p.recentPagesPerSecond)}/s, frontier ${int(p.frontier.queued)}\n`,
      );
    }
  };
  channel(CrawlChannel.progress).subscribe(onProgress);
  const crawl = new Crawl({
    nodeId: 'bench',
    seeds: { urls: [...job.seeds] },
    network: { hostsFile: job.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0 },
    store: { outDir: job.outDir },
    limits: { concurrency: CONCURRENCY, maxPages: job.maxPages },
    progressIntervalMs: 1000,
    ...(job.nodes > 1 ? { cluster: { nodes: job.nodes, workers: job.workers ?? 0, partition: { strategy: job.strategy } } } : {}),
  });
  // Every node of an embedded crawl listens on the signal: 16 nodes are more than Node's default warning threshold of 10 listeners.
  const signal = new AbortController().signal;
  setMaxListeners(4 * job.nodes + 10, signal);
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  let summary: CrawlSummary;
  try {
    summary = await crawl.run(signal);
  } finally {
    channel(CrawlChannel.progress).unsubscribe(onProgress);
  }
  const cpu = process.cpuUsage(cpu0);
  const busy = performance.eventLoopUtilization(elu0).utilization;
  if (summary.stopReason === StopReason.interrupted) throw new Error(`${label}: the crawl was interrupted`);
  const a = first as Sample | null;
  const b = last as Sample | null;
  return {
    nodes: job.nodes,
    strategy: job.strategy,
    stopReason: summary.stopReason,
    pages: summary.pages,
    okPages: summary.outcomes.ok ?? 0,
    bytes: summary.bytes,
    seconds: summary.elapsedMs / 1000,
    cpuMs: (cpu.user + cpu.system) / 1000,
    steady:
      a === null || b === null || b.pages <= a.pages
        ? null
        : { cpuMs: b.cpuMs - a.cpuMs, crawlThreadCpuMs: b.crawlThreadMs - a.crawlThreadMs, pages: b.pages - a.pages },
    crawlThreadBusy: busy,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    exchange: exchangeOf(summary),
  };
}

/** The crawler child: one job from the parent, its figures back, exit. */
function crawlChild(): void {
  process.once('message', (job: CrawlJob) => {
    runCrawl(job, 5000).then(
      (figures) => {
        process.send?.({ type: 'result', figures }, () => process.exit(0));
      },
      (err: unknown) => {
        process.stderr.write(`crawl failed: ${(err as Error).stack ?? String(err)}\n`);
        process.exit(1);
      },
    );
  });
}

/** Runs `job` in a new crawler process. */
async function crawlInChild(job: CrawlJob): Promise<CrawlFigures> {
  const child = fork(SELF, ['--crawl'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const kill = (): void => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', kill);
  try {
    const { figures } = await ask<{ figures: CrawlFigures }>(child, job, 'result');
    return figures;
  } finally {
    process.off('exit', kill);
  }
}

// ---------------------------------------------------------------------------------------------
// Graph-level locality on the test web's page graph (computed in the test web child, which holds the model).

interface TheoryRow {
  readonly strategy: string;
  readonly n: number;
  readonly pl: number;
  /** 1/n for url-hash; s + (1 − s)/n for host-hash. */
  readonly predicted: number;
}

interface Theory {
  readonly pages: number;
  /** Links of the graph (distinct per linking page, no self-links). */
  readonly links: number;
  /** Pages whose URL did not normalize (unassigned; none expected). */
  readonly unplaced: number;
  /** s: share of the links between two pages of one host. */
  readonly sameHostShare: number;
  readonly graphMs: number;
  readonly placeMs: number;
  readonly rows: readonly TheoryRow[];
}

/**
 * The page graph as the truth export has it (`exportTruth`'s link pass): every page's links from
 * `pageLinks`, each target once per linking page, self-links dropped.
 */
function pageGraph(model: WebModel): { from: Uint32Array; to: Uint32Array } {
  const n = model.pageCount;
  let from: Uint32Array = new Uint32Array(n * 12);
  let to: Uint32Array = new Uint32Array(n * 12);
  let m = 0;
  const stamp = new Int32Array(n).fill(-1);
  for (let g = 0; g < n; g++) {
    for (const link of pageLinks(model, g)) {
      const t = link.target;
      if (t === g || stamp[t] === g) continue;
      stamp[t] = g;
      if (m === from.length) {
        const grow = (a: Uint32Array): Uint32Array => {
          const b = new Uint32Array(a.length * 2);
          b.set(a);
          return b;
        };
        from = grow(from);
        to = grow(to);
      }
      from[m] = g;
      to[m] = t;
      m++;
    }
  }
  return { from: from.subarray(0, m), to: to.subarray(0, m) };
}

/** p_l of url-hash and host-hash over the whole page graph, each page placed by `placeUrl` on its normalized URL. */
function graphTheory(model: WebModel, port: number): Theory {
  const t0 = performance.now();
  const links = pageGraph(model);
  const graphMs = performance.now() - t0;
  const t1 = performance.now();
  const n = model.pageCount;
  const urls = new Array<string>(n);
  const hostnames = new Array<string>(n);
  let unplaced = 0;
  for (let g = 0; g < n; g++) {
    const r = normalizeUrl(model.url(g, port));
    urls[g] = r.kind === 'ok' ? r.url : '';
    hostnames[g] = r.kind === 'ok' ? r.host : '';
    if (r.kind !== 'ok') unplaced++;
  }
  // s over the pairs p_l counts (both ends placed).
  let pairs = 0;
  let sameHost = 0;
  for (let i = 0; i < links.from.length; i++) {
    const u = links.from[i] as number;
    const v = links.to[i] as number;
    if (urls[u] === '' || urls[v] === '') continue;
    pairs++;
    if (model.pageHost[u] === model.pageHost[v]) sameHost++;
  }
  const s = pairs === 0 ? 0 : sameHost / pairs;
  const rows: TheoryRow[] = [];
  const partitionOf = new Int32Array(n);
  for (const strategy of LOCALITY_STRATEGIES) {
    for (const k of LOCALITY_NODES) {
      const partitioner = createPartitioner({ strategy }, k);
      for (let g = 0; g < n; g++) {
        const url = urls[g] as string;
        partitionOf[g] = url === '' ? -1 : (partitioner.placeUrl({ url, hostname: hostnames[g] as string, ip: null }, 0)[0] as number);
      }
      const r = linkLocalityOfAssignment(links, partitionOf);
      rows.push({ strategy, n: k, pl: r.pl ?? Number.NaN, predicted: strategy === 'url-hash' ? 1 / k : s + (1 - s) / k });
    }
  }
  return { pages: n, links: links.from.length, unplaced, sameHostShare: s, graphMs, placeMs: performance.now() - t1, rows };
}

// ---------------------------------------------------------------------------------------------
// Short measured crawls, read back for the §5 metrics.

interface MeasuredRow {
  readonly strategy: Strategy;
  readonly n: number;
  readonly pages: number;
  readonly okPages: number;
  readonly seconds: number;
  readonly urlsPerPage: number | null;
  readonly pl: number | null;
  readonly pairs: number;
  readonly overlap: number;
  readonly sentCacheShare: number | null;
  readonly pagesForwarded: number;
  /** Pages forwarded / pages downloaded, and / 2xx pages. */
  readonly forwardedPerPage: number | null;
  readonly forwardedPerOkPage: number | null;
  readonly exportedRatio: number | null;
  readonly loadMaxOverMean: number | null;
}

async function measuredCrawl(strategy: Strategy, n: number, ready: Ready): Promise<MeasuredRow> {
  const outDir = mkdtempSync(join(tmpdir(), 'shoal-bench-collab-'));
  try {
    const f = await runCrawl({ nodes: n, strategy, maxPages: SHORT_PAGES, hostsFile: ready.hostsFile, seeds: ready.seeds, outDir }, 0);
    const read = await readCrawlForEval(outDir);
    const m = collaborationMetrics({ nodes: read.nodes, links: read.links });
    const x = f.exchange;
    const row: MeasuredRow = {
      strategy,
      n,
      pages: f.pages,
      okPages: f.okPages,
      seconds: f.seconds,
      urlsPerPage: m.communication.urlsPerPage,
      pl: m.linkLocality?.pl ?? null,
      pairs: m.linkLocality?.pairs ?? 0,
      overlap: m.overlap.overlap ?? 0,
      sentCacheShare: x === null || x.routed + x.cached === 0 ? null : x.cached / (x.routed + x.cached),
      pagesForwarded: x?.pagesSent ?? 0,
      forwardedPerPage: x === null || f.pages === 0 ? null : x.pagesSent / f.pages,
      forwardedPerOkPage: x === null || f.okPages === 0 ? null : x.pagesSent / f.okPages,
      exportedRatio: m.communication.exportedRatio,
      loadMaxOverMean: m.loadBalance.pages.maxOverMean ?? null,
    };
    process.stderr.write(`  [${strategy} × ${n}] ${int(f.pages)} pages in ${f1(f.seconds)} s\n`);
    return row;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Distributed: DIST_NODES `shoal node` processes joined only through a private nats-server.

/** What the distributed crawl measured (section 2). */
interface DistributedFigures {
  readonly nodes: number;
  readonly maxPagesPerNode: number;
  readonly concurrencyPerNode: number;
  readonly launcher: string;
  readonly natsServer: string;
  /** Σ of each node's last progress event's pages (the summary's count, as the embedded runs report it). */
  readonly pages: number;
  /** Downloads read back from the crawl logs (status ≠ 0, fetched by the node itself), with repeats. */
  readonly downloads: number;
  readonly uniquePages: number;
  readonly overlap: number;
  readonly pl: number | null;
  readonly loadMaxOverMean: number | null;
  /** Spawn of the first node until the last one exited. */
  readonly wallSeconds: number;
  /** From the first node's crawl start to the last one's end (startup and exit of the processes left out). */
  readonly crawlSeconds: number;
  /** Spawn until the first node's crawl started (tsx, the sources, joining the crawl). */
  readonly startupSeconds: number;
  readonly pagesPerSecond: number;
  readonly wallPagesPerSecond: number;
  /** The node processes, all threads, whole process lives. */
  readonly cpuMs: number;
  /** Of it, before the CLI ran: Node, tsx and the sources loading, over every node process. */
  readonly loadCpuMs: number;
  readonly cpuMsPerPage: number;
  readonly steadyCpuMsPerPage: number | null;
  readonly crawlerCores: number;
  readonly brokerCpuMsPerPage: number | null;
  readonly brokerCores: number | null;
  readonly serverCpuMsPerPage: number;
  readonly serverCores: number;
  readonly peakRssMb: number;
  readonly peakRssMbSum: number;
  readonly urlsSent: number;
  readonly urlsReceived: number;
  readonly messagesSent: number;
  readonly bytesSent: number;
  readonly urlsSentPerSecond: number;
  readonly urlsPerPage: number;
  readonly messagesPerPage: number;
  readonly exchangeBytesPerPage: number;
  readonly perNode: readonly {
    readonly node: string;
    readonly pages: number;
    readonly stopReason: string | null;
    readonly crawlSeconds: number | null;
    readonly exitSeconds: number;
    readonly cpuMs: number;
    readonly peakRssMb: number;
    readonly crawlThreadBusy: number;
    readonly urlsSent: number;
  }[];
}

/** User + system CPU of process `pid` so far (all its threads), ms; null once it is gone. */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * (1000 / 100); // utime + stime, in clock ticks of 1/100 s
  } catch {
    return null;
  }
}

/** Waits for `child` to exit, at most `ms`; true when it did. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** A private broker: `nats-server -js` on a free loopback port with a fresh store directory. */
interface Broker {
  readonly url: string;
  readonly process: ChildProcess;
  /** SIGTERM (SIGKILL after 5 s), then removes the store directory. */
  stop(): Promise<void>;
}

async function startBroker(binary: string): Promise<Broker> {
  const storeDir = mkdtempSync(join(tmpdir(), 'shoal-bench-nats-'));
  const port = await freePort();
  const child = spawn(binary, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { stdio: ['ignore', 'ignore', 'pipe'] });
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(storeDir, { recursive: true, force: true });
  };
  process.once('exit', kill);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      if (!(await exited(child, 5000))) child.kill('SIGKILL');
    }
    process.off('exit', kill);
    rmSync(storeDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const timer = setTimeout(() => finish(new Error(`nats-server not ready after 15 s:\n${log}`)), 15_000);
      const onData = (chunk: Buffer): void => {
        log += chunk.toString();
        if (log.includes('Server is ready')) finish(null);
      };
      const onExit = (code: number | null, signal: string | null): void =>
        finish(new Error(`nats-server exited (${code ?? signal}) before it was ready:\n${log}`));
      const onError = (err: Error): void => finish(err);
      function finish(err: Error | null): void {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        child.off('exit', onExit);
        child.off('error', onError);
        child.stderr?.resume(); // Drained from now on, so a chatty server never blocks on a full pipe.
        if (err === null) resolve();
        else reject(err);
      }
      child.stderr?.on('data', onData);
      child.once('exit', onExit);
      child.once('error', onError);
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `nats://127.0.0.1:${port}`, process: child, stop };
}

/**
 * The crawl of the embedded DIST_NODES-node host-hash run, by DIST_NODES `shoal node` processes
 * over a private broker: the same web, seeds, hosts map, page budget (maxPages / nodes each: max
 * pages counts per node in distributed mode) and concurrency (the embedded total split the same way).
 */
async function runDistributed(nats: string, ready: Ready, web: ChildProcess, maxPages: number): Promise<DistributedFigures> {
  const n = DIST_NODES;
  const perNode = Math.ceil(maxPages / n);
  const concurrency = CONCURRENCY / n;
  const root = mkdtempSync(join(tmpdir(), 'shoal-bench-collab-dist-'));
  const broker = await startBroker(nats);
  const children: ChildProcess[] = [];
  const killChildren = (): void => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', killChildren);
  try {
    const crawlId = `bench-collab-${process.pid}-${Date.now().toString(36)}`;
    const env = {
      ...process.env,
      // As the embedded runs: the web's hosts map, no system DNS.
      SHOAL_CRAWL_NETWORK_HOSTS_FILE: ready.hostsFile,
      SHOAL_CRAWL_NETWORK_IS_SYSTEM_DNS_ALLOWED: 'false',
      SHOAL_CRAWL_CLUSTER_NATS_ACK_WAIT_MS: '10000',
      // Short politeness back-off and robots.txt retry, as in test/e2e/distributed-crawl.test.ts.
      SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
      SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
      SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
      SHOAL_BENCH_STEADY_FROM: String(perNode / 10),
    };
    const brokerCpu0 = processCpuMs(broker.process.pid);
    const before = await ask<ServerStats>(web, { type: 'stats' }, 'stats');
    const t0 = performance.now();
    const runs = Array.from({ length: n }, (_, i) => {
      const out = join(root, `node${i}`);
      const report = join(root, `report${i}.json`);
      const args = [
        '--import',
        'tsx',
        NODE_CHILD,
        'node',
        '--nats',
        broker.url,
        '--crawl',
        crawlId,
        '--nodes',
        String(n),
        '--partition',
        'host-hash',
        '--partitions',
        String(i),
        '--node-id',
        `node${i}`,
        '--out',
        out,
        ...ready.seeds.flatMap((s) => ['--seed', s]),
        '--allow-loopback',
        '--min-delay-ms',
        '0',
        '--max-pages',
        String(perNode),
        '--concurrency',
        String(concurrency),
      ];
      const child = spawn(process.execPath, args, {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...env, SHOAL_BENCH_REPORT: report },
      });
      children.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      // Progress lines every 5 s: only the tail is kept, for the error message.
      child.stderr?.on('data', (c: Buffer) => {
        stderr = (stderr + c.toString()).slice(-4000);
      });
      const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) => {
        child.on('exit', (code, signal) => resolve({ code, signal, atMs: performance.now() }));
      });
      return { i, out, report, child, done, stdout: (): string => stdout, stderr: (): string => stderr };
    });
    // A node that fails takes the run down (the others would crawl on to their own limits for nothing).
    const ends = await Promise.all(
      runs.map(async (r) => {
        const end = await r.done;
        if (end.code !== 0) killChildren();
        return end;
      }),
    );
    const wallMs = Math.max(...ends.map((e) => e.atMs)) - t0;
    const brokerCpu1 = processCpuMs(broker.process.pid);
    const after = await ask<ServerStats>(web, { type: 'stats' }, 'stats');
    const failed = runs.filter((r, k) => (ends[k] as { code: number | null }).code !== 0);
    if (failed.length > 0) {
      throw new Error(
        `distributed: ${failed
          .map((r) => {
            const e = ends[r.i] as { code: number | null; signal: string | null };
            return `node${r.i} exited ${e.code ?? e.signal}:\n${r.stderr()}`;
          })
          .join('\n')}`,
      );
    }
    const reports = runs.map((r) => JSON.parse(readFileSync(r.report, 'utf8')) as NodeReport);
    const totals = runs.map((r) => readExchangeTotals(r.out));
    const crawls = [];
    for (const r of runs) crawls.push(await readCrawlForEval(r.out));
    const m = collaborationMetrics({ nodes: crawls.flatMap((c) => c.nodes), links: crawls.flatMap((c) => c.links) });
    const starts = reports.map((r) => r.crawlStartMs).filter((x): x is number => x !== null);
    const endsMs = reports.map((r) => r.crawlEndMs).filter((x): x is number => x !== null);
    const t0Epoch = Date.now() - (performance.now() - t0);
    const crawlMs = starts.length === n && endsMs.length === n ? Math.max(...endsMs) - Math.min(...starts) : wallMs;
    const pages = reports.reduce((a, r) => a + r.pages, 0);
    const cpuMs = reports.reduce((a, r) => a + r.cpuMs, 0);
    const loadCpuMs = reports.reduce((a, r) => a + r.loadCpuMs, 0);
    const steadyParts = reports.map((r) => r.steady);
    const steady = steadyParts.every((s) => s !== null)
      ? steadyParts.reduce((a, s) => ({ cpuMs: a.cpuMs + s.cpuMs, pages: a.pages + s.pages }), { cpuMs: 0, pages: 0 })
      : null;
    const sum = (key: keyof ExchangeTotals): number => totals.reduce((a, t) => a + t[key], 0);
    const seconds = crawlMs / 1000;
    const brokerCpuMs = brokerCpu0 === null || brokerCpu1 === null ? null : brokerCpu1 - brokerCpu0;
    const serverCpuMs = (after.cpuUs - before.cpuUs) / 1000;
    return {
      nodes: n,
      maxPagesPerNode: perNode,
      concurrencyPerNode: concurrency,
      launcher: 'node --import tsx bench/lib/shoal-node-child.ts node ... (the sources through tsx, as bin/shoal.js runs dist/)',
      natsServer: nats,
      pages,
      downloads: m.overlap.downloads,
      uniquePages: m.overlap.uniquePages,
      overlap: m.overlap.overlap,
      pl: m.linkLocality?.pl ?? null,
      loadMaxOverMean: m.loadBalance.pages.maxOverMean ?? null,
      wallSeconds: wallMs / 1000,
      crawlSeconds: seconds,
      startupSeconds: starts.length === 0 ? Number.NaN : (Math.min(...starts) - t0Epoch) / 1000,
      pagesPerSecond: pages / seconds,
      wallPagesPerSecond: pages / (wallMs / 1000),
      cpuMs,
      loadCpuMs,
      cpuMsPerPage: cpuMs / pages,
      steadyCpuMsPerPage: steady === null || steady.pages === 0 ? null : steady.cpuMs / steady.pages,
      crawlerCores: cpuMs / wallMs,
      brokerCpuMsPerPage: brokerCpuMs === null ? null : brokerCpuMs / pages,
      brokerCores: brokerCpuMs === null ? null : brokerCpuMs / wallMs,
      serverCpuMsPerPage: serverCpuMs / pages,
      serverCores: serverCpuMs / wallMs,
      peakRssMb: Math.max(...reports.map((r) => r.peakRssKb)) / 1024,
      peakRssMbSum: reports.reduce((a, r) => a + r.peakRssKb, 0) / 1024,
      urlsSent: sum('urlsSent'),
      urlsReceived: sum('urlsReceived'),
      messagesSent: sum('messagesSent'),
      bytesSent: sum('bytesSent'),
      urlsSentPerSecond: sum('urlsSent') / seconds,
      urlsPerPage: sum('urlsSent') / pages,
      messagesPerPage: sum('messagesSent') / pages,
      exchangeBytesPerPage: sum('bytesSent') / pages,
      perNode: runs.map((r, k) => {
        const rep = reports[k] as NodeReport;
        return {
          node: `node${r.i}`,
          pages: rep.pages,
          stopReason: rep.stopReason,
          crawlSeconds: rep.crawlStartMs === null || rep.crawlEndMs === null ? null : (rep.crawlEndMs - rep.crawlStartMs) / 1000,
          exitSeconds: ((ends[k] as { atMs: number }).atMs - t0) / 1000,
          cpuMs: rep.cpuMs,
          peakRssMb: rep.peakRssKb / 1024,
          crawlThreadBusy: rep.crawlThreadBusy,
          urlsSent: (totals[k] as ExchangeTotals).urlsSent,
        };
      }),
    };
  } finally {
    killChildren();
    await Promise.all(children.map((c) => exited(c, 5000)));
    process.off('exit', killChildren);
    await broker.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Printing.

const f1 = (n: number): string => n.toFixed(1);
const f3 = (n: number | null): string => (n === null || Number.isNaN(n) ? '—' : n.toFixed(3));
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (n: number | null): string => (n === null || Number.isNaN(n) ? '—' : `${(n * 100).toFixed(1)} %`);

/** A plain text table: the first column left-aligned, the others right-aligned. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const t0 = performance.now();
  const loadStart = loadavg();
  const out = (s: string): boolean => process.stdout.write(`${s}\n`);
  out(`load average at start: ${load()} (1, 5, 15 min; 2 shared cores)`);
  const web = fork(SELF, ['--serve-web'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const killWeb = (): void => {
    if (web.exitCode === null) web.kill('SIGKILL');
  };
  process.once('exit', killWeb);
  let isBroken = false;
  try {
    const ready = await ask<Ready>(web, null, 'ready');
    out(
      `test web: the large preset, ${int(ready.hosts)} hosts, ${int(ready.pages)} pages, ${ready.seeds.length} ` +
        `seeds, no slow hosts, no render cache; built in ${int(ready.buildMs)} ms (child pid ${web.pid})`,
    );

    // 1. Embedded scaling.
    const phase0 = performance.now();
    const scaling = [];
    const runs = [
      ...SCALING_NODES.map((n) => [n, 0] as const),
      ...SCALING_NODES.filter((n) => n > 1).map((n) => [n, SCALING_THREADS] as const),
    ];
    for (const [n, threads] of runs) {
      const outDir = mkdtempSync(join(tmpdir(), 'shoal-bench-collab-'));
      try {
        const before = await ask<ServerStats>(web, { type: 'stats' }, 'stats');
        const f = await crawlInChild({
          nodes: n,
          workers: threads,
          strategy: 'host-hash',
          maxPages: SCALING_PAGES,
          hostsFile: ready.hostsFile,
          seeds: ready.seeds,
          outDir,
        });
        const after = await ask<ServerStats>(web, { type: 'stats' }, 'stats');
        const x = f.exchange;
        scaling.push({
          nodes: n,
          threads,
          pages: f.pages,
          seconds: f.seconds,
          pagesPerSecond: f.pages / f.seconds,
          stopReason: f.stopReason,
          cpuMsPerPage: f.cpuMs / f.pages,
          steadyCpuMsPerPage: f.steady === null ? null : f.steady.cpuMs / f.steady.pages,
          steadyCrawlThreadCpuMsPerPage: f.steady === null ? null : f.steady.crawlThreadCpuMs / f.steady.pages,
          crawlThreadBusy: f.crawlThreadBusy,
          crawlerCores: f.cpuMs / 1000 / f.seconds,
          peakRssMb: f.peakRssMb,
          serverCpuMsPerPage: (after.cpuUs - before.cpuUs) / 1000 / f.pages,
          serverCores: (after.cpuUs - before.cpuUs) / 1e6 / f.seconds,
          urlsSentPerSecond: x === null ? null : x.urlsSent / f.seconds,
          urlsPerPage: x === null ? null : x.urlsSent / f.pages,
          messagesPerPage: x === null ? null : x.messagesSent / f.pages,
          exchangeBytesPerPage: x === null ? null : x.bytesSent / f.pages,
          keptShare: x === null || x.kept + x.routed + x.cached === 0 ? null : x.kept / (x.kept + x.routed + x.cached),
          sentCacheShare: x === null || x.routed + x.cached === 0 ? null : x.cached / (x.routed + x.cached),
          exchange: x,
        });
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    }
    const one = scaling[0] as (typeof scaling)[number];
    out('');
    out(
      `1. embedded scaling: host-hash, ${int(SCALING_PAGES)} pages per run, concurrency ${CONCURRENCY} in total, each run in its own crawler process`,
    );
    out(
      `   threads 0: every node on the crawl thread of that one process, so CPU per page beyond the 1-node figure is the cost of n nodes`,
    );
    out(
      `   and their exchange (1 node is a plain crawl, no exchange); threads ${SCALING_THREADS}: ` +
        `the same crawls with the nodes spread over ${SCALING_THREADS} worker threads (--workers)`,
    );
    out(
      table(
        [
          'nodes',
          'threads',
          'pages/s',
          'CPU ms/page',
          'steady',
          'crawl thread',
          'thread busy',
          'crawler cores',
          'web cores',
          'peak RSS MB',
          'URLs sent/s',
          'URLs sent/page',
          'kept locally',
          'sent cache',
        ],
        scaling.map((r) => [
          String(r.nodes),
          String(r.threads),
          int(r.pagesPerSecond),
          f3(r.cpuMsPerPage),
          f3(r.steadyCpuMsPerPage),
          f3(r.steadyCrawlThreadCpuMsPerPage),
          pct(r.crawlThreadBusy),
          r.crawlerCores.toFixed(2),
          r.serverCores.toFixed(2),
          int(r.peakRssMb),
          r.urlsSentPerSecond === null ? '—' : int(r.urlsSentPerSecond),
          f3(r.urlsPerPage),
          pct(r.keptShare),
          pct(r.sentCacheShare),
        ]),
      ),
    );
    out('   (CPU ms/page: the whole run, building, opening and closing the nodes included; steady: CPU ms per page between the progress');
    out(
      '    events at 10 % of the pages and at the end, all threads, then the crawl thread alone; web cores: the test web child, CPU s per',
    );
    out(
      '    crawl second; kept locally: routed URLs placed on the node that found them; sent cache: cached / (sent + cached), URLs not sent again)',
    );
    const signed = (x: number | null, format: (v: number) => string): string => (x === null ? '—' : `${x >= 0 ? '+' : ''}${format(x)}`);
    const minus = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : x - y);
    for (const r of scaling.slice(1)) {
      if (r.threads > 0) {
        const same = scaling.find((x) => x.nodes === r.nodes && x.threads === 0);
        out(
          `   ${r.nodes} nodes over ${r.threads} threads vs on one thread: pages/s ${signed(same === undefined ? null : r.pagesPerSecond / same.pagesPerSecond - 1, pct)}, ` +
            `crawler cores ${r.crawlerCores.toFixed(2)} vs ${same?.crawlerCores.toFixed(2) ?? '—'}`,
        );
        continue;
      }
      const steady = minus(r.steadyCpuMsPerPage, one.steadyCpuMsPerPage);
      out(
        `   ${r.nodes} nodes vs 1: steady CPU ${signed(steady, f3)} ms per page (${signed(steady === null ? null : steady / (one.steadyCpuMsPerPage as number), pct)}), ` +
          `crawl thread ${signed(minus(r.steadyCrawlThreadCpuMsPerPage, one.steadyCrawlThreadCpuMsPerPage), f3)}; whole run ${signed(r.cpuMsPerPage - one.cpuMsPerPage, f3)}; ` +
          `pages/s ${signed(r.pagesPerSecond / one.pagesPerSecond - 1, pct)}; ${f1((r.exchangeBytesPerPage ?? 0) / 1024)} KiB and ${f3(r.messagesPerPage)} messages sent per page`,
      );
    }
    const last = scaling.filter((r) => r.threads === 0).at(-1) as (typeof scaling)[number];
    const growth =
      last.steadyCpuMsPerPage === null || one.steadyCpuMsPerPage === null
        ? last.cpuMsPerPage / one.cpuMsPerPage - 1
        : last.steadyCpuMsPerPage / one.steadyCpuMsPerPage - 1;
    const isExchangeBound = growth > 0.2 && last.pagesPerSecond < one.pagesPerSecond;
    out(
      `   bottleneck: the crawl thread is ${pct(one.crawlThreadBusy)} busy with 1 node, ${pct(last.crawlThreadBusy)} with ${last.nodes} (every node and the exchange run on it); ` +
        `crawler + test web use ${(last.crawlerCores + last.serverCores).toFixed(2)} of 2 cores at ${last.nodes} nodes;`,
    );
    out(
      `   steady CPU per page ${signed(growth, pct)} from 1 to ${last.nodes} nodes: ${
        isExchangeBound
          ? 'n nodes and their exchange cost enough CPU per page to slow the crawl'
          : 'the exchange is not the bottleneck (the per-page work of fetching, parsing and storing is)'
      }`,
    );

    // 2. Distributed: the 4-node host-hash crawl again, as 4 `shoal node` processes over NATS.
    const phaseDist = performance.now();
    out('');
    out(
      `2. distributed: ${DIST_NODES} \`shoal node\` processes joined only through a private nats-server (JetStream), vs the same crawl embedded`,
    );
    const natsBinary = findNatsServer();
    let distributed: DistributedFigures | { readonly skipped: string } | { readonly failed: string };
    if (natsBinary === null) {
      distributed = { skipped: 'nats-server is not installed (not on PATH nor in /usr/sbin, /usr/local/sbin, /usr/local/bin, /usr/bin)' };
      out(`   skipped: ${distributed.skipped}; install it (\`apt-get install -y nats-server\`) to measure this part`);
    } else {
      try {
        distributed = await runDistributed(natsBinary, ready, web, SCALING_PAGES);
      } catch (err) {
        distributed = { failed: (err as Error).message };
        isBroken = true;
        process.stderr.write(`DISTRIBUTED RUN FAILED: ${(err as Error).stack ?? String(err)}\n`);
        out(`   FAILED: ${distributed.failed.split('\n')[0] ?? ''}`);
      }
    }
    const embedded = scaling.find((r) => r.nodes === DIST_NODES && r.threads === 0);
    if ('pages' in distributed && embedded !== undefined) {
      const d = distributed;
      out(
        `   host-hash, ${int(SCALING_PAGES)} pages (--max-pages ${int(d.maxPagesPerNode)} on each node: it counts per node in distributed mode), ` +
          `concurrency ${d.concurrencyPerNode} per node, the web, seeds and hosts map of section 1;`,
      );
      out(
        `   each node a process of its own with its own parse worker, run from the sources through tsx (bench/lib/shoal-node-child.ts); ` +
          `politeness back-off 50–500 ms, ack wait 10 s`,
      );
      const kib = (x: number | null): string => (x === null ? '—' : f1(x / 1024));
      out(
        table(
          [
            'run',
            'pages',
            'crawl s',
            'pages/s',
            'CPU ms/page',
            'steady',
            'peak RSS MB',
            'URLs sent/s',
            'URLs sent/page',
            'messages/page',
            'KiB sent/page',
          ],
          [
            [
              `embedded, 1 process`,
              int(embedded.pages),
              f1(embedded.seconds),
              int(embedded.pagesPerSecond),
              f3(embedded.cpuMsPerPage),
              f3(embedded.steadyCpuMsPerPage),
              int(embedded.peakRssMb),
              embedded.urlsSentPerSecond === null ? '—' : int(embedded.urlsSentPerSecond),
              f3(embedded.urlsPerPage),
              f3(embedded.messagesPerPage),
              kib(embedded.exchangeBytesPerPage),
            ],
            [
              `distributed, ${d.nodes} processes`,
              int(d.pages),
              f1(d.crawlSeconds),
              int(d.pagesPerSecond),
              f3(d.cpuMsPerPage),
              f3(d.steadyCpuMsPerPage),
              int(d.peakRssMbSum),
              int(d.urlsSentPerSecond),
              f3(d.urlsPerPage),
              f3(d.messagesPerPage),
              kib(d.exchangeBytesPerPage),
            ],
          ],
        ),
      );
      out(
        "   (distributed: crawl s from the first node's crawl start to the last one's end; CPU of the node processes, all threads, from process",
      );
      out(
        '    start, so loading tsx and the sources counts, the broker not; steady as in section 1, added over the nodes; peak RSS: Σ of the processes)',
      );
      out(
        `   wall ${f1(d.wallSeconds)} s from spawn to the last exit (${int(d.wallPagesPerSecond)} pages/s over it), the first crawl started ${f1(d.startupSeconds)} s after spawn;`,
      );
      out(
        `   loading Node, tsx and the sources: ${int(d.loadCpuMs)} ms CPU over the ${d.nodes} processes (${f3(d.loadCpuMs / d.pages)} ms/page of the CPU ms/page);`,
      );
      out(
        `   over the wall time: node processes ${d.crawlerCores.toFixed(2)} cores, broker ${d.brokerCores === null ? '—' : d.brokerCores.toFixed(2)}, ` +
          `test web ${d.serverCores.toFixed(2)}; broker CPU ${f3(d.brokerCpuMsPerPage)} ms/page`,
      );
      out(
        `   overlap ${f3(d.overlap)} (${int(d.downloads)} downloads, ${int(d.uniquePages)} distinct), p_l ${f3(d.pl)}, load max/mean ${f3(d.loadMaxOverMean)}, ` +
          `${int(d.urlsSent)} URLs sent, ${int(d.urlsReceived)} received`,
      );
      for (const p of d.perNode) {
        out(
          `   ${p.node}: ${int(p.pages)} pages (${p.stopReason ?? '—'}) in ${p.crawlSeconds === null ? '—' : f1(p.crawlSeconds)} s, exit at ${f1(p.exitSeconds)} s, ` +
            `${int(p.cpuMs)} ms CPU, peak RSS ${int(p.peakRssMb)} MB, crawl thread ${pct(p.crawlThreadBusy)} busy, ${int(p.urlsSent)} URLs sent`,
        );
      }
      const rel = (x: number | null, y: number | null): string =>
        x === null || y === null ? '—' : `${x >= y ? '+' : ''}${pct(x / y - 1)}`;
      out(
        `   distributed vs embedded: pages/s ${rel(d.pagesPerSecond, embedded.pagesPerSecond)}, CPU ms/page ${rel(d.cpuMsPerPage, embedded.cpuMsPerPage)} ` +
          `(${rel(d.cpuMsPerPage + (d.brokerCpuMsPerPage ?? 0), embedded.cpuMsPerPage)} with the broker), steady ${rel(d.steadyCpuMsPerPage, embedded.steadyCpuMsPerPage)}, ` +
          `URLs sent/page ${rel(d.urlsPerPage, embedded.urlsPerPage)}`,
      );
      if (d.overlap !== 0) {
        isBroken = true;
        process.stderr.write(`INVARIANT BROKEN: overlap ${d.overlap} in the distributed host-hash crawl (must be 0)\n`);
      }
    }

    // 3. Link locality: graph level, then measured.
    const phase1 = performance.now();
    const { theory } = await ask<TheoryDone>(web, { type: 'theory' }, 'theory-done');
    const phase2 = performance.now();
    out('');
    out(`3. link locality p_l and communication overhead, url-hash vs host-hash`);
    out(
      `   graph level: the test web's page graph, ${int(theory.pages)} pages, ${int(theory.links)} links (the truth ` +
        `export's: distinct per page, no self-links${theory.unplaced > 0 ? `; ${int(theory.unplaced)} pages unplaced` : ''});`,
    );
    out(
      `   s = ${pct(theory.sameHostShare)} of the links stay on their host; graph built in ` +
        `${f1(theory.graphMs / 1000)} s, pages placed and links counted in ${f1(theory.placeMs / 1000)} s`,
    );
    const measured: MeasuredRow[] = [];
    for (const strategy of LOCALITY_STRATEGIES) for (const n of LOCALITY_NODES) measured.push(await measuredCrawl(strategy, n, ready));
    const contentHash: MeasuredRow[] = [];
    for (const n of CONTENT_NODES) contentHash.push(await measuredCrawl('content-hash', n, ready));
    const phase3 = performance.now();
    out(
      `   measured: crawls of ${int(SHORT_PAGES)} pages; p_l over the distinct links between downloaded pages. A short crawl's pages cluster`,
    );
    out("   on the seeds' hosts, and a node follows the links it keeps sooner than those it sends, so p_l runs above the graph's");
    out(
      table(
        [
          'strategy',
          'n',
          'p_l graph',
          'p_l theory',
          'p_l crawl',
          'URLs/page',
          'sent cache',
          'overlap',
          'load max/mean',
          'pages',
          'crawl s',
        ],
        LOCALITY_STRATEGIES.flatMap((strategy) =>
          LOCALITY_NODES.map((n) => {
            const t = theory.rows.find((r) => r.strategy === strategy && r.n === n) as TheoryRow;
            const m = measured.find((r) => r.strategy === strategy && r.n === n) as MeasuredRow;
            return [
              strategy,
              String(n),
              f3(t.pl),
              f3(t.predicted),
              f3(m.pl),
              f3(m.urlsPerPage),
              pct(m.sentCacheShare),
              f3(m.overlap),
              f3(m.loadMaxOverMean),
              int(m.pages),
              f1(m.seconds),
            ];
          }),
        ),
      ),
    );
    out(
      `   (p_l theory: 1/n for url-hash, s + (1 − s)/n for host-hash; URLs/page: URLs exchanged per downloaded page, after the sent cache)`,
    );
    out('');
    out(`   content-hash (URLs by url-hash, then every 2xx page to the node of its content digest): exported share of pages`);
    out(
      table(
        [
          'n',
          'forwarded/page',
          'forwarded/2xx page',
          '(n − 1)/n',
          'pages forwarded',
          'pages',
          '2xx pages',
          'URLs/page',
          'exported bytes ratio',
          'overlap',
        ],
        contentHash.map((m) => [
          String(m.n),
          f3(m.forwardedPerPage),
          f3(m.forwardedPerOkPage),
          f3((m.n - 1) / m.n),
          int(m.pagesForwarded),
          int(m.pages),
          int(m.okPages),
          f3(m.urlsPerPage),
          f3(m.exportedRatio),
          f3(m.overlap),
        ]),
      ),
    );
    out('   (exported bytes ratio: every encoded message byte sent, URL batches included / body bytes downloaded; forwarded pages travel');
    out("    compressed, and whether one of the test web's few huge, very compressible pages was fetched swings it from run to run)");
    for (const m of [...measured, ...contentHash]) {
      if (m.overlap !== 0) {
        isBroken = true;
        process.stderr.write(`INVARIANT BROKEN: overlap ${m.overlap} under ${m.strategy} with ${m.n} nodes (must be 0)\n`);
      }
    }

    const loadEnd = loadavg();
    const seconds = (performance.now() - t0) / 1000;
    out('');
    const phases = {
      scaling: (phaseDist - phase0) / 1000,
      distributed: (phase1 - phaseDist) / 1000,
      theory: (phase2 - phase1) / 1000,
      measured: (phase3 - phase2) / 1000,
    };
    out(`4. load average at start ${loadStart.map((x) => x.toFixed(2)).join(' ')}, at end ${load()}`);
    out(
      `   bench ran ${f1(seconds)} s: scaling ${f1(phases.scaling)} s, distributed ${f1(phases.distributed)} ` +
        `s, graph level ${f1(phases.theory)} s, short crawls ${f1(phases.measured)} s`,
    );
    out('');
    out(
      `BENCH_COLLAB_JSON ${JSON.stringify({
        isQuick,
        seconds,
        phases,
        concurrency: CONCURRENCY,
        web: { preset: 'large', hosts: ready.hosts, pages: ready.pages, seeds: ready.seeds.length, buildMs: ready.buildMs },
        scaling,
        distributed,
        theory,
        measured,
        contentHash,
        loadavg: { start: loadStart, end: loadEnd },
        isBroken,
      })}`,
    );
    web.send({ type: 'stop' });
  } finally {
    setTimeout(killWeb, 5000).unref();
  }
  if (isBroken) process.exitCode = 1;
}

if (process.argv.includes('--serve-web')) await serveWeb();
else if (process.argv.includes('--crawl')) crawlChild();
else await main();
