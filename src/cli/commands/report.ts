/**
 * `shoal report DIR`: turns a simulation directory (`shoal simulate --out DIR`) into an HTML page,
 * `DIR/report.html`, with the charts (PST, PCS, weighted coverage, PBC: one line per ordering policy,
 * random and ideal) and the metric tables, and draws the chart files again from the saved curves.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { simulationCharts } from '../../sim/charts.js';
import { writeCharts } from '../../sim/outputs.js';
import { readSimulation, SIM_FILES } from '../../sim/result.js';
import { simulationReportHtml } from '../../sim/report-html.js';
import type { CliIo } from '../cli-io.js';

export function registerReportCommand(program: Command, io: CliIo): void {
  program
    .command('report')
    .description('an HTML report (charts and metric tables) of a simulation directory written by shoal simulate')
    .argument('<dir>', 'the simulation directory (shoal simulate --out)')
    .action(async (dir: string) => {
      const { result, curves } = readSimulation(dir);
      const charts = simulationCharts(result, curves);
      const written = await writeCharts(dir, result, charts);
      await writeFile(join(dir, SIM_FILES.report), simulationReportHtml(result, charts));
      written.push(SIM_FILES.report);
      io.out(
        `shoal report: ${result.runs.length} run${result.runs.length === 1 ? '' : 's'} ` +
          `(${result.runs.map((r) => r.label).join(', ')}); wrote ${written.map((f) => join(dir, f)).join(', ')}\n`,
      );
    });
}
