/**
 * `shoal eval DIR [--truth DIR] [--json]`: the collaboration metrics of SPEC §5 for a crawl
 * directory (one node, or a collaborative crawl made by `shoal crawl --nodes`): overlap and its
 * histogram, coverage (with the test web's ground truth), diversity, communication overhead,
 * exported and imported ratios, load balance and p_l; for a crawl whose pages have topics, topic
 * locality, classifier accuracy against the truth and Kendall τ per subcollection (topic vs hash);
 * for a geographically focused crawl with the truth, geo coverage, focus, unique entities, geo
 * centrality and geographic locality; against a truth with communities, each node's cohesion,
 * precision and recall.
 * A readable table, or JSON with `--json`.
 */
import type { Command } from 'commander';
import { evaluateCrawl } from '../../cluster/crawl-eval.js';
import { formatGeoLines } from '../geo-summary-text.js';
import { formatCommunityLines } from '../community-summary-text.js';
import type { PartitionerSpec } from '../../partition/partitioner.js';
import { formatTopicLines } from '../topic-summary-text.js';
import { formatCollabTable } from '../../eval/collab-table.js';
import { readTruth } from '../../web/truth/read.js';
import type { CliIo } from '../cli-io.js';

export function registerEvalCommand(program: Command, io: CliIo): void {
  program
    .command('eval')
    .description(
      'measure a crawl directory: overlap, coverage, diversity, communication overhead, load ' +
        'balance, p_l, and topic locality, accuracy and Kendall tau when pages have topics (SPEC §5)',
    )
    .argument(
      '<dirs...>',
      'the crawl directory (shoal crawl --out), or the directories of the nodes of a distributed crawl (shoal node --out)',
    )
    .option('--truth <dir>', 'the test web’s ground-truth export (shoal web export --out): coverage, and URLs matched to its pages')
    .option('--json', 'print JSON instead of a table')
    .action(async (dirs: string[], opts: { truth?: string; json?: boolean }) => {
      const truth = opts.truth === undefined ? null : await readTruth(opts.truth);
      const { partitioner, partitionCount, metrics, topic, geo, isGeoWithoutTruth, community } = await evaluateCrawl(dirs, truth);
      const crawl = dirs.join(' ');
      if (opts.json === true) {
        const report = {
          crawl,
          partitioner,
          partitionCount,
          metrics,
          ...(topic === null ? {} : { topic }),
          ...(geo === null ? {} : { geo }),
          ...(community === null ? {} : { community }),
        };
        io.out(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const head =
        partitioner !== null
          ? `${partitionCount} nodes, ${partitioner.id} ${JSON.stringify(shortParams(partitioner.params))}`
          : dirs.length > 1
            ? `${dirs.length} node directories`
            : 'one node';
      io.out(`shoal eval ${crawl}: ${head}\n${formatCollabTable(metrics).trimEnd()}\n`);
      if (topic !== null) io.out(formatTopicLines(topic));
      if (geo !== null) io.out(formatGeoLines(geo));
      else if (isGeoWithoutTruth) io.out('geo metrics             need the test web’s truth: --truth DIR\n');
      if (community !== null) io.out(formatCommunityLines(community));
    });
}

/** A strategy's parameters for one line: long lists (a geo crawl's cities) are counted, not listed. */
export function shortParams(params: PartitionerSpec['params']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) && v.length > 8 ? `[${v.length} entries]` : v]));
}
