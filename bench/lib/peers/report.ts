/**
 * The peers bench's figures: one row per crawler from the medians of its runs, pages/s as ratios to
 * wget2's and shoal's, printed as a markdown table.
 */
import { median } from '../report.js';
import type { PeerId } from './crawlers.js';

/** One run of one crawler. */
export interface RunResult {
  readonly peer: PeerId;
  readonly round: number;
  readonly exitCode: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMib: number;
  readonly pages: number;
  readonly other: number;
  /** Bytes the crawler left in its directories. */
  readonly outputBytes: number;
  /** nginx's CPU time during the run. */
  readonly serverCpuMs: number;
  /** Why the run does not count (exit code, nothing fetched), or null. */
  readonly failure: string | null;
}

/** One crawler's row: medians over its successful runs. */
export interface PeerRow {
  readonly peer: PeerId;
  readonly version: string;
  readonly connections: number;
  readonly writes: string;
  readonly runs: number;
  readonly failedRuns: number;
  readonly pages: number;
  readonly other: number;
  readonly seconds: number;
  readonly pagesPerSecond: number;
  readonly pagesPerSecondRuns: readonly number[];
  /** pages/s over wget2's and over shoal's median (null when that crawler did not run). */
  readonly vsWget2: number | null;
  readonly vsShoal: number | null;
  readonly cpuMsPerPage: number;
  /** CPU time over wall time: 100 is one core busy all the time. */
  readonly cpuPercent: number;
  readonly peakRssMib: number;
  readonly outputMb: number;
  readonly serverCpuPercent: number;
}

/** What the row needs to know of its crawler. */
export interface PeerInfo {
  readonly id: PeerId;
  readonly version: string;
  readonly connections: number;
  readonly writes: string;
}

/** Folds each crawler's runs into its row, with the ratios. */
export function foldRows(peers: readonly PeerInfo[], runs: readonly RunResult[]): PeerRow[] {
  const base = peers.map((p) => {
    const all = runs.filter((r) => r.peer === p.id);
    const ok = all.filter((r) => r.failure === null);
    const med = (f: (r: RunResult) => number): number => median(ok.map(f));
    return {
      peer: p.id,
      version: p.version,
      connections: p.connections,
      writes: p.writes,
      runs: ok.length,
      failedRuns: all.length - ok.length,
      pages: med((r) => r.pages),
      other: med((r) => r.other),
      seconds: med((r) => r.wallMs / 1000),
      pagesPerSecond: med((r) => r.pages / (r.wallMs / 1000)),
      pagesPerSecondRuns: ok.map((r) => Math.round(r.pages / (r.wallMs / 1000))),
      cpuMsPerPage: med((r) => r.cpuMs / r.pages),
      cpuPercent: med((r) => (100 * r.cpuMs) / r.wallMs),
      peakRssMib: med((r) => r.peakRssMib),
      outputMb: med((r) => r.outputBytes / 1e6),
      serverCpuPercent: med((r) => (100 * r.serverCpuMs) / r.wallMs),
    };
  });
  const rate = (id: PeerId): number | null => {
    const row = base.find((r) => r.peer === id);
    return row === undefined || row.runs === 0 ? null : row.pagesPerSecond;
  };
  const wget2 = rate('wget2');
  const shoal = rate('shoal');
  return base.map((r) => ({
    ...r,
    vsWget2: wget2 === null || r.runs === 0 ? null : r.pagesPerSecond / wget2,
    vsShoal: shoal === null || r.runs === 0 ? null : r.pagesPerSecond / shoal,
  }));
}

const int = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const fixed = (n: number | null, digits: number): string => (n !== null && Number.isFinite(n) ? n.toFixed(digits) : '—');

/** The rows as a markdown table. */
export function markdownTable(rows: readonly PeerRow[]): string {
  const header = [
    'crawler',
    'conns',
    'writes',
    'runs',
    'pages',
    'other',
    'wall s',
    'pages/s',
    '÷ wget2',
    '÷ shoal',
    'CPU ms/page',
    'CPU %',
    'peak RSS MiB',
    'output MB',
    'nginx CPU %',
  ];
  const lines = rows.map((r) => [
    r.version,
    String(r.connections),
    r.writes,
    r.failedRuns === 0 ? String(r.runs) : `${r.runs} (${r.failedRuns} failed)`,
    int(r.pages),
    int(r.other),
    fixed(r.seconds, 1),
    int(r.pagesPerSecond),
    fixed(r.vsWget2, 2),
    fixed(r.vsShoal, 2),
    fixed(r.cpuMsPerPage, 2),
    int(r.cpuPercent),
    int(r.peakRssMib),
    int(r.outputMb),
    fixed(r.serverCpuPercent, 1),
  ]);
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const align = header.map((_, i) => (i < 3 ? '---' : '---:'));
  return [row(header), row(align), ...lines.map(row)].join('\n');
}
