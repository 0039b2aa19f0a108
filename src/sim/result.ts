/**
 * What a simulation writes and `shoal report` reads back: `result.json` (this file's
 * {@link SimResultDoc}), with the curves beside it in `curves.json` (`src/report/curves-csv.ts`).
 * Plain JSON: numbers, strings, arrays, objects, null (undefined values such as PST with no hot page
 * are null).
 *
 * Per run: the policy and partitioner specs (CONVENTIONS §3: each result says exactly what produced
 * it), why it stopped, visits, virtual and wall time, per-node figures (pages, URLs queued, sent,
 * received, duplicates absorbed, pages forwarded, priority changes applied), messages, the curves
 * read at 10, 20 and 40 % of the crawl, and for several nodes the collaboration metrics of SPEC §5.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import type { CollaborationMetrics } from '../eval/collab-metrics.js';
import type { CommunityScores, MeanCommunityScores } from '../eval/community-metrics.js';
import type { ImportanceSpec } from '../eval/importance.js';
import { summarizeCurve, type Curve } from '../eval/ordering-models.js';
import type { OrderingPolicySpec } from '../order/policy.js';
import type { PartitionerSpec } from '../partition/partitioner.js';
import { curvesFromJson } from '../report/curves-csv.js';
import type { SimGraphFormat } from './graph/sim-graph.js';
import type { SimConfig } from './sim-config.js';
import type { SimNodeResult, SimStopReason } from './simulator.js';

/** `result.json`'s format tag and version. */
export const SIM_RESULT_FORMAT = 'shoal-simulation';
export const SIM_RESULT_VERSION = 1;
/** The files of a simulation directory. */
export const SIM_FILES = {
  result: 'result.json',
  curvesJson: 'curves.json',
  curvesCsv: 'curves.csv',
  chart: 'chart.svg',
  report: 'report.html',
} as const;
/** Where the curves are read for the summary tables: fractions of the crawl. */
export const SUMMARY_AT = [0.1, 0.2, 0.4] as const;

/** y of each model at {@link SUMMARY_AT}, null where undefined. */
export type RunSummary = Partial<Record<'pst' | 'pcs' | 'wc' | 'pbc', readonly (number | null)[]>>;

/** The community scores of a run's nodes: each node's visited pages against the true communities. */
export interface SimCommunityScores {
  /** Per node, in node order. */
  readonly nodes: readonly CommunityScores[];
  /** Means over the nodes that visited a page. */
  readonly mean: MeanCommunityScores;
  /** (N − I)/N over the nodes' sets. */
  readonly overlap: number;
}

/** One run (one ordering policy) in `result.json`. */
export interface SimRunDoc {
  /** Legend label of its curves. */
  readonly label: string;
  readonly policy: OrderingPolicySpec;
  readonly partitioner: PartitionerSpec | null;
  readonly nodeCount: number;
  readonly forward: 'urls' | 'pages' | 'both';
  readonly stopReason: SimStopReason;
  /** Fetches completed (with repeats under overlap). */
  readonly visits: number;
  /** Distinct pages visited. */
  readonly uniquePages: number;
  /** Virtual time of the crawl, ms. */
  readonly virtualMs: number;
  /** Wall-clock time of the simulation, ms. */
  readonly wallMs: number;
  /** Visits simulated per wall-clock second. */
  readonly pagesPerSecond: number;
  readonly messages: { readonly urlBatches: number; readonly pages: number; readonly linkSummaries: number };
  readonly nodes: readonly SimNodeResult[];
  /** Curves read at {@link SUMMARY_AT}. */
  readonly summary: RunSummary;
  /** SPEC §5 metrics; null for a crawl of one node. */
  readonly collaboration: CollaborationMetrics | null;
  /** Community scores of each node's visits (SPEC §5; seed 002), when the graph's pages carry communities; else null. */
  readonly community: SimCommunityScores | null;
  /** The visit order file in the simulation directory, or null when not written. */
  readonly visitsFile: string | null;
}

/** `result.json`. */
export interface SimResultDoc {
  readonly format: typeof SIM_RESULT_FORMAT;
  readonly version: typeof SIM_RESULT_VERSION;
  readonly graph: {
    readonly format: SimGraphFormat;
    readonly source: string;
    readonly pages: number;
    readonly links: number;
    readonly hosts: number;
    readonly seeds: number;
    readonly hasUrls: boolean;
    readonly hasAnchors: boolean;
    readonly hasText: boolean;
  };
  /** The configuration that produced it, every default filled in. */
  readonly config: SimConfig;
  readonly evaluation: {
    readonly scope: 'reachable' | 'all';
    /** T. */
    readonly pages: number;
    readonly importance: ImportanceSpec;
    /** G. */
    readonly threshold: number;
    /** H. */
    readonly hotPages: number;
    /** Weights of weighted coverage. */
    readonly weights: ImportanceSpec;
    readonly bufferPages: number | null;
    readonly summaryAt: readonly number[];
  };
  readonly runs: readonly SimRunDoc[];
  /** Chart files written, by model. */
  readonly charts: Readonly<Partial<Record<'pst' | 'pcs' | 'wc' | 'pbc', string>>>;
}

/** The curves of one run read at {@link SUMMARY_AT}. */
export function summarizeRun(curves: readonly Curve[], label: string): RunSummary {
  const out: Record<string, (number | null)[]> = {};
  for (const c of curves) {
    if (c.spec.crawler.kind !== 'crawl' || c.spec.label !== label) continue;
    out[c.spec.id] = Array.from(summarizeCurve(c, SUMMARY_AT), (v) => (Number.isFinite(v) ? v : null));
  }
  return out;
}

/** JSON with NaN and ±Infinity written as null (JSON.stringify would too; typed arrays become lists). */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as unknown as ArrayLike<number>) : v), 2)}\n`;
}

/**
 * Reads a simulation directory back: its `result.json` and `curves.json`.
 * @throws ShoalError `IO` when a file is missing or is not what a simulation writes.
 */
export function readSimulation(dir: string): { readonly result: SimResultDoc; readonly curves: Curve[] } {
  const read = (file: string): string => {
    try {
      return readFileSync(join(dir, file), 'utf8');
    } catch (err) {
      throw new ShoalError('IO', `${dir}: cannot read ${file} (not a simulation directory written by shoal simulate?)`, { cause: err });
    }
  };
  let result: SimResultDoc;
  try {
    result = JSON.parse(read(SIM_FILES.result)) as SimResultDoc;
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    throw new ShoalError('IO', `${dir}/${SIM_FILES.result} is not valid JSON`, { cause: err });
  }
  if (result.format !== SIM_RESULT_FORMAT || result.version !== SIM_RESULT_VERSION || !Array.isArray(result.runs)) {
    throw new ShoalError('IO', `${dir}/${SIM_FILES.result} is not a ${SIM_RESULT_FORMAT} version ${SIM_RESULT_VERSION} document`);
  }
  let curves: Curve[];
  try {
    curves = curvesFromJson(read(SIM_FILES.curvesJson));
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    throw new ShoalError('IO', `${dir}/${SIM_FILES.curvesJson}: ${(err as Error).message}`, { cause: err });
  }
  return { result, curves };
}
