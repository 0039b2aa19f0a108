/**
 * The `shoal` command from the TypeScript sources, for the distributed part of
 * bench/collab.bench.ts: `node --import tsx bench/lib/shoal-node-child.ts node --nats ... --out DIR`.
 * It runs the CLI as bin/shoal.js does (`runCli`), but on src/ through tsx, so the bench needs no
 * build and never measures a stale dist/.
 *
 * With SHOAL_BENCH_REPORT set (a file path), it also measures the process it runs in, as the
 * embedded bench measures its crawler process, and writes a {@link NodeReport} there once the
 * command has returned:
 * - CPU (user + system, every thread: the crawl thread and the parse workers) from process start,
 *   so loading tsx and the sources counts (and, apart, what that loading took); peak RSS; how busy
 *   the crawl thread was while the command ran;
 * - the steady state: CPU and pages between the first progress event at or past
 *   SHOAL_BENCH_STEADY_FROM pages (default 0) and the last one before the node stopped;
 * - when the node's crawl ran, in wall-clock ms (from its progress events), and its last event's
 *   pages and stop reason.
 */
import { channel } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { runCli } from '../../src/cli/main.js';
import { CrawlChannel, type CrawlProgress } from '../../src/obs/events.js';

/** What one node process measured of itself (written as JSON to SHOAL_BENCH_REPORT). */
export interface NodeReport {
  readonly exitCode: number;
  /** User + system CPU of the whole process (all threads) from its start to the command's return, ms. */
  readonly cpuMs: number;
  /** Of it, before the command ran: starting Node, tsx, and loading the sources. */
  readonly loadCpuMs: number;
  readonly peakRssKb: number;
  /** Event-loop utilization of the crawl thread while the command ran. */
  readonly crawlThreadBusy: number;
  /** Epoch ms: when the node's crawl started (its first progress event minus its elapsed time) and ended (its last event). */
  readonly crawlStartMs: number | null;
  readonly crawlEndMs: number | null;
  /** The last progress event's pages (as the summary counts them) and stop reason. */
  readonly pages: number;
  readonly stopReason: string | null;
  /** CPU ms and pages between the steady-state progress events; null when fewer than two came. */
  readonly steady: { readonly cpuMs: number; readonly pages: number } | null;
}

const reportPath = process.env['SHOAL_BENCH_REPORT'];
const steadyFrom = Number(process.env['SHOAL_BENCH_STEADY_FROM'] ?? '0');

interface Sample {
  readonly cpuMs: number;
  readonly pages: number;
}
const cpuMsNow = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
let first: Sample | null = null;
let last: Sample | null = null;
let startMs: number | null = null;
let endMs: number | null = null;
let pages = 0;
let stopReason: string | null = null;
const onProgress = (m: unknown): void => {
  const p = m as CrawlProgress;
  const now = Date.now();
  startMs ??= now - p.elapsedMs;
  endMs = now;
  pages = p.pages;
  stopReason = p.stopReason;
  if (p.stopReason === null && p.pages >= steadyFrom) {
    const sample = { cpuMs: cpuMsNow(), pages: p.pages };
    first ??= sample;
    last = sample;
  }
};
if (reportPath !== undefined) channel(CrawlChannel.progress).subscribe(onProgress);

const loadCpuMs = cpuMsNow();
const elu0 = performance.eventLoopUtilization();
const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
if (reportPath !== undefined) {
  channel(CrawlChannel.progress).unsubscribe(onProgress);
  const a = first as Sample | null;
  const b = last as Sample | null;
  const report: NodeReport = {
    exitCode,
    cpuMs: cpuMsNow(),
    loadCpuMs,
    peakRssKb: process.resourceUsage().maxRSS,
    crawlThreadBusy: performance.eventLoopUtilization(elu0).utilization,
    crawlStartMs: startMs,
    crawlEndMs: endMs,
    pages,
    stopReason,
    steady: a === null || b === null || b.pages <= a.pages ? null : { cpuMs: b.cpuMs - a.cpuMs, pages: b.pages - a.pages },
  };
  writeFileSync(reportPath, `${JSON.stringify(report)}\n`);
}
