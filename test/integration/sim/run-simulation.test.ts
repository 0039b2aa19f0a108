/**
 * A whole simulation from its configuration, on a TSV graph: policies the graph cannot serve are
 * refused before anything runs, seeds are checked, several policies give several runs on the same
 * graph, and the outputs are written.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { writeSimulationOutputs } from '../../../src/sim/outputs.js';
import { readSimulation } from '../../../src/sim/result.js';
import { runSimulation } from '../../../src/sim/run-simulation.js';
import { simConfigSchema, type SimConfigInput } from '../../../src/sim/sim-config.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-sim-run-');
// 40 pages on 4 hosts (the host column); page i links to i+1, i+2 and i+7 (mod 40).
const path = join(root, 'graph.tsv');
const lines: string[] = [];
for (let i = 0; i < 40; i++) for (const d of [1, 2, 7]) lines.push(`${i}\t${(i + d) % 40}\th${i % 4}\th${((i + d) % 40) % 4}`);
writeFileSync(path, `${lines.join('\n')}\n`);

const config = (over: SimConfigInput = {}) =>
  simConfigSchema.parse({ graph: { paths: [path] }, output: { outDir: join(root, 'out') }, ...over });

function configIssues(err: unknown): string[] {
  return err instanceof ConfigError ? err.issues.map((i) => `${i.path}: ${i.message}`) : [];
}

describe('runSimulation', () => {
  it('refuses, before any run, policies that read what the graph does not have', async () => {
    const order: SimConfigInput['order'] = [{ policy: 'bfs' }, { policy: 'location' }, { policy: 'hot-queue', terms: ['sport'] }];
    await assert.rejects(runSimulation(config({ order })), (err: unknown) => {
      const issues = configIssues(err);
      return (
        issues.length === 2 &&
        /^order\.1: location reads URLs/.test(issues[0] ?? '') &&
        /^order\.2: hot-queue reads .*anchor texts/.test(issues[1] ?? '')
      );
    });
  });

  it('refuses seeds that name no page', async () => {
    await assert.rejects(runSimulation(config({ graph: { paths: [path], seeds: ['3', '99'] } })), (err: unknown) =>
      configIssues(err).some((i) => i.startsWith('graph.seeds: "99"')),
    );
  });

  it('refuses truth-topic on a graph without true labels', async () => {
    await assert.rejects(runSimulation(config({ nodes: 2, partition: { strategy: 'truth-topic' } })), (err: unknown) =>
      configIssues(err).some((i) => i.startsWith('partition.strategy')),
    );
  });

  it('runs each policy on the same graph, evaluates and writes the outputs', async () => {
    const outcome = await runSimulation(
      config({
        order: [{ policy: 'bfs' }, { policy: 'backlink' }],
        nodes: 2,
        partition: { strategy: 'url-hash' },
        graph: { paths: [path], seeds: ['0'] },
      }),
    );
    try {
      const { result } = outcome;
      assert.deepEqual(
        result.runs.map((r) => r.label),
        ['bfs', 'backlink'],
      );
      for (const run of result.runs) {
        assert.equal(run.visits, 40);
        assert.equal(run.uniquePages, 40);
        assert.equal(run.stopReason, 'exhausted');
        assert.equal(run.collaboration?.overlap.overlap, 0);
        assert.equal(
          run.collaboration?.communication.urlsSent,
          run.nodes.reduce((s, n) => s + n.urlsSent, 0),
        );
        assert.equal(run.summary.pst?.length, 3);
      }
      assert.equal(result.evaluation.pages, 40);
      const written = await writeSimulationOutputs(join(root, 'out'), outcome);
      assert.ok(written.includes('visits-2-backlink.tsv'));
      const visits = readFileSync(join(root, 'out', 'visits-1-bfs.tsv'), 'utf8')
        .trim()
        .split('\n');
      assert.equal(visits[0], 'rank\tpage\tname\ttime_ms\tnode');
      assert.equal(visits.length, 41);
      assert.match(visits[1] ?? '', /^1\t0\t0\t100\t[01]$/);
      const back = readSimulation(join(root, 'out'));
      assert.equal(back.result.runs.length, 2);
      assert.equal(back.curves.length, outcome.curves.length);
      assert.ok(existsSync(join(root, 'out', 'chart.svg')));
    } finally {
      outcome.graph.close();
    }
  });
});
