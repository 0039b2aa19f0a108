/**
 * Figures of the web bench: per-run measurements folded into one row per scenario and mode, the
 * build figures of the large preset, and their printing (a table and one JSON line).
 */
import type { LoadResult } from './load.js';
import type { AddressMode, ServerStats } from './protocol.js';
import type { SampleCheck } from './sample-check.js';

const MB = 1e6;

/** One measured run: client figures plus the server child's CPU and request deltas. */
export interface RunFigures {
  readonly load: LoadResult;
  readonly serverCpuUs: number;
  readonly serverSystemUs: number;
  readonly serverRequests: number;
}

/** Server CPU and request deltas between two stats snapshots. */
export function runFigures(load: LoadResult, before: ServerStats, after: ServerStats): RunFigures {
  return {
    load,
    serverCpuUs: after.cpuUs - before.cpuUs,
    serverSystemUs: after.systemUs - before.systemUs,
    serverRequests: after.requestsSeen - before.requestsSeen,
  };
}

/** Everything printed for one scenario in one address mode. */
export interface ModeFigures {
  readonly scenario: string;
  readonly title: string;
  readonly mode: AddressMode;
  readonly workingSet: number;
  readonly runs: number;
  readonly secondsPerRun: number;
  /** Median over runs. */
  readonly reqPerSec: number;
  readonly reqPerSecRuns: readonly number[];
  readonly mbPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Sums over runs. */
  readonly responses: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCounts: Readonly<Record<string, number>>;
  readonly avgResponseBytes: number;
  /** Server child CPU time per request it saw, in µs (median over runs). */
  readonly serverCpuUsPerReq: number;
  /** Share of the server's CPU time spent in the kernel, in % (median over runs). */
  readonly serverSystemPct: number;
  /** Requests the server saw, over the responses the client counted (should be ~1). */
  readonly serverRequests: number;
  /** 1e6 / serverCpuUsPerReq: requests one core of the server could answer per second. */
  readonly capacityPerCore: number;
  /** Server and load generator CPU use, in % of one core (median over runs). */
  readonly serverCpuPct: number;
  readonly clientCpuPct: number;
  readonly peakRssMb: number;
  readonly rssAfterMb: number;
  readonly heapAfterMb: number;
  readonly buffersAfterMb: number;
  readonly sample: SampleCheck;
}

/** Build figures of a server child. */
export interface BuildFigures {
  readonly server: string;
  readonly pages: number;
  readonly hosts: number;
  readonly addresses: number;
  readonly slowHosts: number;
  /** `startTestWeb` (model + listening), as timed by the child. */
  readonly buildMs: number;
  /** Fork to ready, as timed by the parent (includes loading node, tsx and the code). */
  readonly spawnToReadyMs: number;
  readonly rssAfterBuildMb: number;
  /** Peak RSS over the child's whole life (build and every load on it). */
  readonly peakRssMb: number;
}

/** The median of some numbers (NaN for none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

function addCounts(all: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const counts of all) for (const [k, v] of Object.entries(counts)) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** Identity and context of a scenario-mode, to fold runs into {@link ModeFigures}. */
export interface ModeContext {
  readonly scenario: string;
  readonly title: string;
  readonly mode: AddressMode;
  readonly workingSet: number;
  readonly secondsPerRun: number;
  readonly sample: SampleCheck;
  readonly after: ServerStats;
}

/** Folds the runs of one scenario-mode into its printed figures. */
export function foldRuns(ctx: ModeContext, runs: readonly RunFigures[]): ModeFigures {
  const per = <T>(f: (r: RunFigures) => T): T[] => runs.map(f);
  const cpuPerReq = median(per((r) => r.serverCpuUs / Math.max(1, r.serverRequests)));
  const responses = sum(per((r) => r.load.responses));
  return {
    scenario: ctx.scenario,
    title: ctx.title,
    mode: ctx.mode,
    workingSet: ctx.workingSet,
    runs: runs.length,
    secondsPerRun: ctx.secondsPerRun,
    reqPerSec: median(per((r) => r.load.responses / r.load.seconds)),
    reqPerSecRuns: per((r) => Math.round(r.load.responses / r.load.seconds)),
    mbPerSec: median(per((r) => r.load.bytes / r.load.seconds / MB)),
    p50Ms: median(per((r) => r.load.p50Ms)),
    p99Ms: median(per((r) => r.load.p99Ms)),
    responses,
    non2xx: sum(per((r) => r.load.non2xx)),
    errors: sum(per((r) => r.load.errors + r.load.timeouts)),
    statusCounts: addCounts(per((r) => r.load.statusCounts)),
    avgResponseBytes: sum(per((r) => r.load.bytes)) / Math.max(1, responses),
    serverCpuUsPerReq: cpuPerReq,
    capacityPerCore: 1e6 / cpuPerReq,
    serverSystemPct: median(per((r) => (100 * r.serverSystemUs) / Math.max(1, r.serverCpuUs))),
    serverRequests: sum(per((r) => r.serverRequests)),
    serverCpuPct: median(per((r) => (r.serverCpuUs / (r.load.seconds * 1e6)) * 100)),
    clientCpuPct: median(per((r) => (r.load.clientCpuUs / (r.load.seconds * 1e6)) * 100)),
    peakRssMb: ctx.after.peakRssBytes / MB,
    rssAfterMb: ctx.after.rssBytes / MB,
    heapAfterMb: ctx.after.heapUsedBytes / MB,
    buffersAfterMb: ctx.after.arrayBuffersBytes / MB,
    sample: ctx.sample,
  };
}

const fixed = (x: number, digits = 0): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');

/** Which side limited the run: the side near a full core. */
export function boundBy(m: ModeFigures): string {
  if (m.serverCpuPct >= 90) return 'server';
  if (m.clientCpuPct >= 90) return 'client';
  return '-';
}

/** One progress line for a finished scenario-mode. */
export function modeLine(m: ModeFigures): string {
  const statuses = Object.entries(m.statusCounts)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return [
    `${m.title} [${m.mode}] ${m.runs}x${m.secondsPerRun}s: ${fixed(m.reqPerSec)} req/s (runs ${m.reqPerSecRuns.join(', ')}),`,
    `${fixed(m.mbPerSec, 1)} MB/s, ${fixed(m.avgResponseBytes)} B/response, p50 ${fixed(m.p50Ms, 2)} ms, p99 ${fixed(m.p99Ms, 2)} ms,`,
    `statuses {${statuses}}, non-2xx ${m.non2xx}, errors ${m.errors}, sample check ${m.sample.ok}/${m.sample.checked} 200 html;`,
    `server saw ${m.serverRequests} requests, ${fixed(m.serverCpuUsPerReq, 1)} µs CPU/req (${fixed(m.serverSystemPct)}% ` +
      `kernel) -> ${fixed(m.capacityPerCore)} req/s/core, server CPU ${fixed(m.serverCpuPct)}%,`,
    `load generator CPU ${fixed(m.clientCpuPct)}%, server RSS ${fixed(m.rssAfterMb)} MB (peak ` +
      `${fixed(m.peakRssMb)} MB, JS heap ${fixed(m.heapAfterMb)} MB, buffers ${fixed(m.buffersAfterMb)} MB)`,
  ].join('\n  ');
}

/** The build figures as one line. */
export function buildLine(b: BuildFigures): string {
  return (
    `${b.server}: ${b.hosts} hosts, ${b.pages} pages on ${b.addresses} addresses (${b.slowHosts} slow hosts): ` +
    `startTestWeb ${fixed(b.buildMs)} ms (fork->ready ${fixed(b.spawnToReadyMs)} ms), RSS after build ${fixed(b.rssAfterBuildMb)} MB, peak ${fixed(b.peakRssMb)} MB`
  );
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The final compact table. */
export function summaryTable(modes: readonly ModeFigures[]): string {
  const header = [
    'scenario',
    'mode',
    'req/s',
    'MB/s',
    'p50 ms',
    'p99 ms',
    'non2xx',
    'err',
    'srv µs/req',
    'sys%',
    'req/s/core',
    'srv CPU%',
    'gen CPU%',
    'bound',
    'peak RSS MB',
  ];
  const rows = modes.map((m) => [
    m.scenario,
    m.mode,
    fixed(m.reqPerSec),
    fixed(m.mbPerSec, 1),
    fixed(m.p50Ms, 2),
    fixed(m.p99Ms, 2),
    String(m.non2xx),
    String(m.errors),
    fixed(m.serverCpuUsPerReq, 1),
    fixed(m.serverSystemPct),
    fixed(m.capacityPerCore),
    fixed(m.serverCpuPct),
    fixed(m.clientCpuPct),
    boundBy(m),
    fixed(m.peakRssMb),
  ]);
  return table(header, rows);
}

/** The JSON line a later script can parse (prefixed so it can be grepped). */
export function jsonLine(builds: readonly BuildFigures[], modes: readonly ModeFigures[], meta: Record<string, unknown>): string {
  return `BENCH_WEB_JSON ${JSON.stringify({ ...meta, builds, scenarios: modes })}`;
}
