/**
 * `shoal eval DIR [--truth DIR] [--json]`: the collaboration metrics of SPEC §5 for a crawl
 * directory (one node, or a collaborative crawl made by `shoal crawl --nodes`): overlap and its
 * histogram, coverage (with the test web's ground truth), diversity, communication overhead,
 * exported and imported ratios, load balance and p_l. A readable table, or JSON with `--json`.
 */
import type { Command } from 'commander';
import { readCrawlForEval } from '../../cluster/read-crawl.js';
import { collaborationMetrics } from '../../eval/collab-metrics.js';
import { formatCollabTable } from '../../eval/collab-table.js';
import { readTruth } from '../../web/truth/read.js';
import type { CliIo } from '../main.js';

export function registerEvalCommand(program: Command, io: CliIo): void {
  program.command('eval')
    .description('measure a crawl directory: overlap, coverage, diversity, communication overhead, load balance, p_l (SPEC §5)')
    .argument('<dir>', 'the crawl directory (shoal crawl --out)')
    .option('--truth <dir>', 'the test web’s ground-truth export (shoal web export --out): coverage, and URLs matched to its pages')
    .option('--json', 'print JSON instead of a table')
    .action(async (dir: string, opts: { truth?: string; json?: boolean }) => {
      const truth = opts.truth === undefined ? null : await readTruth(opts.truth);
      const crawl = await readCrawlForEval(dir, truth);
      const metrics = collaborationMetrics({ nodes: crawl.nodes, links: crawl.links, ...(crawl.target === null ? {} : { target: crawl.target }) });
      const partitioner = crawl.manifest?.partitioner ?? null;
      if (opts.json === true) {
        io.out(`${JSON.stringify({ crawl: dir, partitioner, partitionCount: crawl.manifest?.partitionCount ?? 1, metrics }, null, 2)}\n`);
        return;
      }
      const head = partitioner === null ? 'one node' : `${crawl.manifest?.partitionCount ?? 0} nodes, ${partitioner.id} ${JSON.stringify(partitioner.params)}`;
      io.out(`shoal eval ${dir}: ${head}\n${formatCollabTable(metrics)}`);
    });
}
