/**
 * `shoal simulate` then `shoal report`, as a user runs them (a child process running the CLI from
 * the sources), on the exported ground truth of a small test web: the files are written, they hold
 * one run per policy with the curves, chart and tables, a collaborative simulation has its metrics
 * (in the summary, result.json and the report's collaboration section), and a bad option is refused
 * with exit code 2.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import type { SimResultDoc } from '../../src/sim/result.js';
import { runNode, type CliRun } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/scratch.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const { root: dir } = scratchDirs('shoal-simulate-cli-');
const truthDir = join(dir, 'truth');
let web: TestWeb;

before(async () => {
  web = await startTestWeb({ hosts: 12, pages: 500, seeds: 3 });
  await exportTruth(web.model, truthDir, { port: web.port });
});
after(async () => {
  await web?.close();
});

function shoal(args: readonly string[]): Promise<CliRun> {
  const script = `import { runCli } from ${JSON.stringify(main)}; process.exitCode = await runCli(process.argv.slice(1));`;
  return runNode(['--import', 'tsx', '--input-type=module', '-e', script, ...args]);
}

const LABELS = ['bfs', 'backlink', 'pagerank(recomputeEvery=50)', 'random'];

describe('shoal simulate and shoal report', () => {
  const out = join(dir, 'sim');

  it('simulates every policy, then reports', async () => {
    const sim = await shoal([
      'simulate',
      '--graph',
      truthDir,
      '--order',
      'bfs,backlink,pagerank(recomputeEvery=50),random',
      '--importance',
      'ib',
      '--buffer',
      '40',
      '--out',
      out,
    ]);
    assert.equal(sim.code, 0, sim.stderr);
    assert.match(sim.stderr, /graph: truth .*500 pages/);
    for (const label of LABELS) assert.ok(sim.stdout.includes(label), `summary names ${label}`);
    for (const file of [
      'result.json',
      'curves.json',
      'curves.csv',
      'chart.svg',
      'chart-pcs.svg',
      'chart-wc.svg',
      'chart-pbc.svg',
      'visits-3-pagerank.tsv',
    ]) {
      assert.ok(existsSync(join(out, file)), `${file} written`);
    }
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as SimResultDoc;
    assert.deepEqual(
      result.runs.map((r) => r.label),
      LABELS,
    );
    for (const run of result.runs) {
      assert.equal(run.uniquePages, result.evaluation.pages, `${run.label} visits every reachable page`);
      assert.equal(run.collaboration, null);
    }
    assert.equal(result.evaluation.importance.id, 'backlinks');
    const header = readFileSync(join(out, 'curves.csv'), 'utf8').split('\n')[0] ?? '';
    // PBC needs a policy that estimates importance (what the buffer evicts by): not bfs nor random.
    assert.ok(
      header.startsWith('fraction_crawled,bfs [pst],bfs [pcs],bfs [wc],backlink [pst],backlink [pcs],backlink [wc],backlink [pbc]'),
      header,
    );
    assert.ok(header.includes('random crawler [pst]') && header.includes('ideal crawler [wc]'), header);
    const chart = readFileSync(join(out, 'chart.svg'), 'utf8');
    assert.match(chart, /^<svg /);
    for (const name of [...LABELS, 'random crawler', 'ideal crawler']) assert.ok(chart.includes(`>${name}<`), `chart legend names ${name}`);

    const report = await shoal(['report', out]);
    assert.equal(report.code, 0, report.stderr);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    assert.match(html, /^<!DOCTYPE html>/);
    assert.equal(html.match(/<svg /g)?.length, 4);
    for (const label of LABELS) assert.ok(html.includes(`<h3>${label}</h3>`), `report has a section for ${label}`);
  });

  it('simulates a collaborative crawl with its collaboration metrics', async () => {
    const collab = join(dir, 'collab');
    const sim = await shoal([
      'simulate',
      '--graph',
      truthDir,
      '--nodes',
      '3',
      '--partition',
      'url-hash',
      '--max-pages',
      '300',
      '--set',
      'output.hasVisits=false',
      '--out',
      collab,
    ]);
    assert.equal(sim.code, 0, sim.stderr);
    assert.match(sim.stdout, /collaboration:/);
    const result = JSON.parse(readFileSync(join(collab, 'result.json'), 'utf8')) as SimResultDoc;
    const run = result.runs[0];
    assert.equal(run?.visits, 300);
    assert.equal(run?.nodes.length, 3);
    assert.equal(run?.collaboration?.overlap.overlap, 0);
    assert.ok((run?.collaboration?.communication.urlsPerPage ?? 0) > 0);
    assert.equal(existsSync(join(collab, 'visits-1-bfs.tsv')), false);

    const report = await shoal(['report', collab]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /shoal report: 1 run \(bfs\); wrote .*report\.html/);
    const html = readFileSync(join(collab, 'report.html'), 'utf8');
    assert.ok(html.includes('<td>3, url-hash, forward urls</td>'), 'the setup names the nodes and the partitioner');
    assert.ok(html.includes('<h4>Collaboration</h4>'), 'the run has a collaboration section');
    assert.ok(html.includes('<th scope="row">overlap (N − I)/N</th><td>0.0000</td>'), 'overlap 0 for hash partitioning');
    // Every page fetched by one node: the histogram's first row holds all 300 visits.
    assert.ok(html.includes('<th scope="row">fetched by 1 node</th><td>300</td>'), 'overlap histogram');
    assert.equal(html.match(/<tr><th scope="row">[0-9]+<\/th>/g)?.length, 3, 'one row per node in the node table');
  });

  it('refuses an unknown policy with exit code 2', async () => {
    const bad = await shoal(['simulate', '--graph', truthDir, '--order', 'bfs,nope', '--out', join(dir, 'bad')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /order\.1\.policy: unknown ordering policy "nope"/);
  });
});
