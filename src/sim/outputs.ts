/**
 * Writes a simulation directory:
 *
 * | file | what |
 * |---|---|
 * | `result.json` | graph, configuration, evaluation settings, and per run its figures, summary and collaboration metrics (`result.ts`) |
 * | `curves.json` | every curve with its full spec (`shoal-curves/1`), from which `shoal report` redraws |
 * | `curves.csv` | the same as one table: `fraction_crawled`, then one column per curve |
 * | `chart.svg` | PST: one line per policy, random and ideal; `chart-pcs.svg`, `chart-wc.svg`, `chart-pbc.svg` the other models |
 * | `visits-<n>-<policy>.tsv` | each run's visits in order: `rank page name time_ms node` (with `output.hasVisits`) |
 */
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { CurveModel } from '../eval/ordering-models.js';
import { curvesToCsv, curvesToJson } from '../report/curves-csv.js';
import { simulationCharts } from './charts.js';
import type { SimGraph } from './graph/sim-graph.js';
import { SIM_FILES, toJson, type SimResultDoc } from './result.js';
import type { SimulationOutcome } from './run-simulation.js';
import type { Visits } from './visit-log.js';

/** Writes every file of `outcome` into `dir` (created); returns the file names written. */
export async function writeSimulationOutputs(dir: string, outcome: SimulationOutcome): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const { result, curves } = outcome;
  const written: string[] = [];
  const put = async (name: string, text: string): Promise<void> => {
    await writeFile(join(dir, name), text);
    written.push(name);
  };
  await put(SIM_FILES.result, toJson(result));
  await put(SIM_FILES.curvesJson, curvesToJson(curves));
  await put(SIM_FILES.curvesCsv, curvesToCsv(curves));
  written.push(...(await writeCharts(dir, result, simulationCharts(result, curves))));
  for (const [i, run] of result.runs.entries()) {
    const raw = outcome.runs[i];
    if (run.visitsFile === null || raw === undefined) continue;
    await writeVisits(join(dir, run.visitsFile), outcome.graph, raw.visits);
    written.push(run.visitsFile);
  }
  return written;
}

/** Writes each chart of `charts` (rendered by `simulationCharts`) under its name in `result.charts`; returns the names. */
export async function writeCharts(dir: string, result: SimResultDoc, charts: ReadonlyMap<CurveModel, string>): Promise<string[]> {
  const written: string[] = [];
  for (const [model, svg] of charts) {
    const name = result.charts[model] ?? `chart-${model}.svg`;
    await writeFile(join(dir, name), svg);
    written.push(name);
  }
  return written;
}

/** A visit order as TSV, streamed (a million visits are tens of megabytes). */
export async function writeVisits(path: string, graph: SimGraph, visits: Visits): Promise<void> {
  const out = createWriteStream(path);
  const flush = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  try {
    let chunk = 'rank\tpage\tname\ttime_ms\tnode\n';
    for (let i = 0; i < visits.count; i++) {
      const p = visits.pages[i] as number;
      chunk += `${i + 1}\t${p}\t${graph.nameOf(p)}\t${visits.timesMs[i] as number}\t${visits.nodes[i] as number}\n`;
      if (chunk.length > 1 << 16) {
        await flush(chunk);
        chunk = '';
      }
    }
    await flush(chunk);
  } finally {
    out.end();
    await once(out, 'close');
  }
}
