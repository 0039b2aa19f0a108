/**
 * `npm run bench:crawl` (node --import tsx bench/crawl.bench.ts [--quick] [--untuned]): one node
 * crawling the test web on loopback as fast as politeness allows, with everything a real crawl writes.
 * The crawler runs under the shoal command's process settings (src/node/process-settings.ts; this
 * script starts itself again under them), or under Node's defaults with `--untuned`.
 *
 * The test web runs in a child process (this same file with `--serve-web`), so its CPU time and
 * memory are its own: 1,000 hosts on 64 addresses, no slow hosts, every other default (faults,
 * compression, robots.txt files, mirrors, traps). The crawler runs here with min delay 0, k = 5,
 * one connection per host and per IP, concurrency 64, WARC files with a CDXJ index, the on-disk
 * URL-seen set, exact-duplicate detection and the parser; it stops after a number of pages.
 *
 * Prints pages/s, MB/s (body bytes as received), the crawler's CPU ms per page (user + system, this
 * process only; also split between the crawl thread and the others, from /proc/self/task), how busy
 * the crawl thread's event loop was, the crawler's peak RSS (getrusage), the server's CPU per page,
 * and a final line `BENCH_CRAWL_JSON {...}` for scripts (its `*Mb` memory figures are MiB).
 */
import { channel } from 'node:diagnostics_channel';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Crawl } from '../src/crawl/crawl.js';
import type { CrawlSummary } from '../src/node/crawl-stats.js';
import { CrawlChannel, type CrawlProgress } from '../src/obs/events.js';
import type { WebConfigInput } from '../src/web/config.js';
import { startTestWeb } from '../src/web/start.js';
import { dirBytes } from './lib/dir-bytes.mjs';
import { nonCrawlerEnv, processSettingsLabel, rerunUnderProcessSettings } from './lib/process-settings.js';

const SELF = fileURLToPath(import.meta.url);
const isQuick = process.argv.includes('--quick');
const isUntuned = process.argv.includes('--untuned');

/** The test web the crawler is measured against. */
const WEB: WebConfigInput = {
  seed: 1,
  hosts: 1000,
  pages: 200_000,
  seeds: 100,
  server: { addressCount: 64, renderCacheBytes: 0 },
  latency: { slowHostRate: 0 },
};
const CONCURRENCY = 64;
const MAX_PAGES = isQuick ? 5_000 : 30_000;

interface Ready {
  readonly type: 'ready';
  readonly hostsFile: string;
  readonly seeds: readonly string[];
  readonly buildMs: number;
}
interface Stats {
  readonly type: 'stats';
  readonly cpuUs: number;
  readonly maxRssKb: number;
  readonly requests: number;
}

/** The child: serve the test web until asked to stop. */
async function serveWeb(): Promise<void> {
  const t0 = performance.now();
  const web = await startTestWeb(WEB);
  const ready: Ready = { type: 'ready', hostsFile: web.hostsFile, seeds: web.seeds, buildMs: performance.now() - t0 };
  process.send?.(ready);
  process.on('message', (msg: { type?: string }) => {
    if (msg.type === 'stats') {
      const cpu = process.cpuUsage();
      const stats: Stats = {
        type: 'stats',
        cpuUs: cpu.user + cpu.system,
        maxRssKb: process.resourceUsage().maxRSS,
        requests: web.log.count,
      };
      process.send?.(stats);
    } else if (msg.type === 'stop') {
      void web.close().then(() => process.exit(0));
    }
  });
}

function ask<T>(child: ChildProcess, type: string, answer: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: { type?: string }): void => {
      if (msg.type !== answer) return;
      child.off('message', onMessage);
      resolve(msg as T);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`test web child exited (${code})`)));
    if (type !== '') child.send({ type });
  });
}

/** CPU time of this process's threads so far, ms: the crawl thread (the process's own id) and all the others (parse workers, V8's GC helpers, libuv's pool). */
function threadCpuMs(): { crawlThread: number; others: number } {
  let crawlThread = 0;
  let others = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(f[11]) + Number(f[12])) * (1000 / 100); // utime + stime, in clock ticks of 1/100 s
    if (Number(tid) === process.pid) crawlThread += ms;
    else others += ms;
  }
  return { crawlThread, others };
}

const f1 = (n: number): string => n.toFixed(1);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const child = fork(SELF, ['--serve-web'], {
    execArgv: ['--import', 'tsx'],
    env: nonCrawlerEnv(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killChild = (): void => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killChild);
  const out = mkdtempSync(join(tmpdir(), 'shoal-bench-crawl-'));
  try {
    const ready = await ask<Ready>(child, '', 'ready');
    process.stdout.write(
      `test web: ${int(1000)} hosts, seeds ${ready.seeds.length}, built in ${int(ready.buildMs)} ms (child pid ${child.pid})\n`,
    );
    process.stdout.write(`crawler process settings: ${processSettingsLabel(isUntuned)}\n`);
    const before = await ask<Stats>(child, 'stats', 'stats');
    // Sampled at every progress event: the parse workers' threads are gone once the crawl has closed.
    let threads = { crawlThread: 0, others: 0, pages: 0 };
    const onProgress = (m: unknown): void => {
      const p = m as CrawlProgress;
      if (p.stopReason === null) threads = { ...threadCpuMs(), pages: p.pages };
      process.stderr.write(
        `  ${int(p.elapsedMs / 1000)} s: ${int(p.pages)} pages, ${int(p.recentPagesPerSecond)}/s, frontier ${int(p.frontier.queued)}, hosts ${int(p.hosts)}\n`,
      );
    };
    channel(CrawlChannel.progress).subscribe(onProgress);
    const crawl = new Crawl({
      nodeId: 'bench',
      seeds: { urls: [...ready.seeds] },
      network: { hostsFile: ready.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
      politeness: { minDelayMs: 0 },
      store: { outDir: out },
      limits: { concurrency: CONCURRENCY, maxPages: MAX_PAGES },
      progressIntervalMs: 2000,
    });
    const threads0 = threadCpuMs();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    let summary: CrawlSummary;
    try {
      summary = await crawl.run();
    } finally {
      channel(CrawlChannel.progress).unsubscribe(onProgress);
    }
    const cpu = process.cpuUsage(cpu0);
    const mainThreadBusy = performance.eventLoopUtilization(elu0).utilization;
    const memory = process.memoryUsage();
    const after = await ask<Stats>(child, 'stats', 'stats');
    const seconds = summary.elapsedMs / 1000;
    const cpuMsPerPage = (cpu.user + cpu.system) / 1000 / summary.pages;
    const result = {
      pages: summary.pages,
      urls: summary.urls,
      requests: summary.requests,
      seconds,
      pagesPerSecond: summary.pagesPerSecond,
      megabytesPerSecond: summary.bytes / 1e6 / seconds,
      cpuMsPerPage,
      mainThreadBusy,
      crawlThreadCpuMsPerPage: threads.pages > 0 ? (threads.crawlThread - threads0.crawlThread) / threads.pages : null,
      otherThreadsCpuMsPerPage: threads.pages > 0 ? (threads.others - threads0.others) / threads.pages : null,
      cpuUserMsPerPage: cpu.user / 1000 / summary.pages,
      cpuSystemMsPerPage: cpu.system / 1000 / summary.pages,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      endHeapMb: memory.heapUsed / 2 ** 20,
      endExternalMb: memory.external / 2 ** 20,
      frontierLeft: summary.frontierLeft.queued,
      serverCpuMsPerRequest: (after.cpuUs - before.cpuUs) / 1000 / (after.requests - before.requests),
      serverPeakRssMb: after.maxRssKb / 1024,
      hosts: summary.hosts,
      duplicates: summary.duplicates,
      revisits: summary.revisits,
      crawlDirMb: dirBytes(out) / 1e6,
      concurrency: CONCURRENCY,
      stopReason: summary.stopReason,
      outcomes: summary.outcomes,
    };
    process.stdout.write(
      [
        '',
        `crawl: ${int(result.pages)} pages (${int(result.urls)} URLs, ${int(result.requests)} ` +
          `requests, ${int(result.hosts)} hosts) in ${f1(seconds)} s, concurrency ${CONCURRENCY}`,
        `  pages/s            ${int(result.pagesPerSecond)}`,
        `  MB/s               ${f1(result.megabytesPerSecond)} (body bytes as received)`,
        `  CPU ms per page    ${result.cpuMsPerPage.toFixed(3)} (user ${result.cpuUserMsPerPage.toFixed(3)}, ` +
          `system ${result.cpuSystemMsPerPage.toFixed(3)}; all threads of the crawler)`,
        `  crawl thread busy  ${(result.mainThreadBusy * 100).toFixed(0)} % of the time (event-loop utilization; the rest waits on sockets, disk and parse workers)`,
        `  CPU by thread      crawl thread ${result.crawlThreadCpuMsPerPage?.toFixed(3) ?? '?'} ms per page, other threads ` +
          `${result.otherThreadsCpuMsPerPage?.toFixed(3) ?? '?'} (parse workers, GC helpers, I/O pool; until the last progress event)`,
        `  peak RSS           ${int(result.peakRssMb)} MiB = ${int((result.peakRssMb * 2 ** 20) / 1e6)} MB (at the end: JS heap ` +
          `${int(result.endHeapMb)} MiB, external ${int(result.endExternalMb)} MiB; ${int(result.frontierLeft)} URLs left in the frontier)`,
        `  server             ${result.serverCpuMsPerRequest.toFixed(3)} CPU ms per request, peak RSS ${int(result.serverPeakRssMb)} MB`,
        `  crawl directory    ${f1(result.crawlDirMb)} MB; ${int(result.duplicates)} exact duplicates (${int(result.revisits)} revisits)`,
        `  outcomes           ${JSON.stringify(result.outcomes)}`,
        '',
      ].join('\n'),
    );
    process.stdout.write(
      `BENCH_CRAWL_JSON ${JSON.stringify({ ...result, isQuick, processSettings: isUntuned ? 'node-defaults' : 'shoal' })}\n`,
    );
    child.send({ type: 'stop' });
  } finally {
    rmSync(out, { recursive: true, force: true });
    setTimeout(killChild, 5000).unref();
  }
}

if (process.argv.includes('--serve-web')) {
  await serveWeb();
} else {
  const code = await rerunUnderProcessSettings(SELF, isUntuned);
  if (code === null) await main();
  else process.exitCode = code;
}
