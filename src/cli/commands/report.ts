/**
 * `shoal report DIR [--truth DIR]`: an HTML page of charts and metric tables, `DIR/report.html`.
 *
 * - A simulation directory (`shoal simulate --out DIR`, it holds `result.json`): the charts (PST,
 *   PCS, weighted coverage, PBC: one line per ordering policy, random and ideal) and the metric
 *   tables, and the chart files drawn again from the saved curves.
 * - A crawl directory (`shoal crawl --out`, with `--nodes` or not, or `shoal node --out`): throughput,
 *   outcomes, latency, the nodes' loads, the collaboration metrics and the communication between
 *   nodes, and with `--truth` coverage and the metrics that need the truth; beside the page,
 *   `report.json` and CSV tables (see docs/report.md).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, ShoalError } from '../../core/errors.js';
import { readCrawlReport, writeCrawlReport } from '../../cluster/read-crawl-report.js';
import { simulationCharts } from '../../sim/charts.js';
import { writeCharts } from '../../sim/outputs.js';
import { readSimulation, SIM_FILES } from '../../sim/result.js';
import { simulationReportHtml } from '../../sim/report-html.js';
import { crawlDirKind } from '../../store/crawl-dir.js';
import { readTruth } from '../../web/truth/read.js';
import type { CliIo } from '../cli-io.js';

async function reportSimulation(dir: string, io: CliIo): Promise<void> {
  const { result, curves } = readSimulation(dir);
  const charts = simulationCharts(result, curves);
  const written = await writeCharts(dir, result, charts);
  await writeFile(join(dir, SIM_FILES.report), simulationReportHtml(result, charts));
  written.push(SIM_FILES.report);
  io.out(
    `shoal report: ${result.runs.length} run${result.runs.length === 1 ? '' : 's'} ` +
      `(${result.runs.map((r) => r.label).join(', ')}); wrote ${written.map((f) => join(dir, f)).join(', ')}\n`,
  );
}

async function reportCrawl(dir: string, truthDir: string | null, io: CliIo): Promise<void> {
  const truth = truthDir === null ? null : await readTruth(truthDir);
  const report = await readCrawlReport(dir, { truth, truthDir });
  const written = await writeCrawlReport(dir, report);
  const t = report.totals;
  const nodes = report.crawl.nodes.length;
  io.out(
    `shoal report: crawl of ${nodes === 1 ? 'one node' : `${nodes} nodes`}, ${t.pages.toLocaleString('en-US')} pages in ` +
      `${(t.durationMs / 1000).toFixed(1)} s; wrote ${written.map((f) => join(dir, f)).join(', ')}\n`,
  );
}

export function registerReportCommand(program: Command, io: CliIo): void {
  program
    .command('report')
    .description('an HTML report (charts and metric tables) of a simulation directory (shoal simulate) or a crawl directory (shoal crawl)')
    .argument('<dir>', 'the simulation directory (shoal simulate --out) or the crawl directory (shoal crawl --out, shoal node --out)')
    .option(
      '--truth <dir>',
      'for a crawl: the test web’s ground-truth export (shoal web export --out): coverage and the truth-based metrics',
    )
    .action(async (dir: string, opts: { truth?: string }) => {
      if (existsSync(join(dir, SIM_FILES.result))) {
        if (opts.truth !== undefined)
          throw new ConfigError(
            [{ path: '--truth', message: `${dir} is a simulation directory, measured against the graph it ran on; --truth is for crawls` }],
            { code: 'USAGE' },
          );
        await reportSimulation(dir, io);
        return;
      }
      if (crawlDirKind(dir) === 'new')
        throw new ShoalError(
          'IO',
          `${dir} is neither a simulation directory (no ${SIM_FILES.result}: shoal simulate --out) nor a crawl directory (shoal crawl --out)`,
        );
      await reportCrawl(dir, opts.truth ?? null, io);
    });
}
