/**
 * `shoal simulate` on the two graph formats other than a truth export, as a user runs them (a child
 * process running the CLI from the sources):
 *
 * - a crawl directory: a short real crawl of a small test web (`shoal crawl` over loopback), then a
 *   simulation of its link graph with page text read back from its WARC files (`graph.crawlContent`)
 *   for a policy that reads it;
 * - a TSV edge list with sparse ids, a nofollow link and a page no link reaches, seeded by `--seed`:
 *
 *       0 ──▶ 2 ──▶ 7          9 ──▶ 0    (9 is reached by no link)
 *       └───▶ 3 ─ ─▶ 8  (nofollow)
 *
 *   Breadth-first from 0: 0 2 3 7; backlink the same (each page has one backlink when queued). The
 *   reachable pages T are those four; 8 is never queued.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { SimResultDoc } from '../../src/sim/result.js';
import { CRAWL_LOG_FILE, readCrawlLog } from '../../src/store/crawl-log.js';
import { pageTitle } from '../../src/web/render.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { runNode, type CliRun } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/scratch.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const { root: dir } = scratchDirs('shoal-simulate-graphs-');
const crawlDir = join(dir, 'crawl');
let web: TestWeb;

function shoal(args: readonly string[]): Promise<CliRun> {
  const script = `import { runCli } from ${JSON.stringify(main)}; process.exitCode = await runCli(process.argv.slice(1));`;
  // Hosts whose robots.txt or pages fail are tried again within half a second, not minutes.
  const env = {
    ...process.env,
    SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
    SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
    SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
  };
  return runNode(['--import', 'tsx', '--input-type=module', '-e', script, ...args], { env });
}

function result(out: string): SimResultDoc {
  return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as SimResultDoc;
}

before(async () => {
  web = await startTestWeb({
    hosts: 8,
    pages: 120,
    seeds: 2,
    traps: { hostRate: 0 },
    latency: { slowHostRate: 0 },
    robots: { crawlDelayRate: 0 },
  });
  const crawl = await shoal([
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
    '--allow-loopback',
    '--min-delay-ms',
    '0',
    '--concurrency',
    '8',
    '--max-pages',
    '80',
    '--out',
    crawlDir,
  ]);
  assert.equal(crawl.code, 0, crawl.stderr);
});
after(async () => {
  await web?.close();
});

describe('shoal simulate on a crawl directory and on an edge list', () => {
  it('simulates a crawl directory, page text read from its WARC files', { timeout: 120_000 }, async () => {
    let fetched = 0;
    for await (const e of readCrawlLog(join(crawlDir, CRAWL_LOG_FILE))) if (e.outcome === 'ok') fetched++;
    // A word of the first seed's title: a query the similarity policy can score.
    const word = (pageTitle(web.model, web.model.seedPages()[0] as number).split(' ')[0] ?? '').toLowerCase();
    const similarity = `similarity(query=${word})`;
    const out = join(dir, 'sim-crawl');
    const sim = await shoal([
      'simulate',
      '--graph',
      crawlDir,
      '--order',
      `bfs,${similarity}`,
      '--set',
      'graph.crawlContent=true',
      '--out',
      out,
    ]);
    assert.equal(sim.code, 0, sim.stderr);
    assert.match(sim.stderr, /graph: crawl /);
    for (const label of ['bfs', similarity]) assert.ok(sim.stdout.includes(label), `summary names ${label}: ${sim.stdout}`);
    const r = result(out);
    assert.equal(r.graph.format, 'crawl');
    assert.deepEqual([r.graph.hasUrls, r.graph.hasAnchors, r.graph.hasText], [true, true, true]);
    assert.ok(r.graph.pages >= fetched && fetched > 40, `${r.graph.pages} pages in the graph, ${fetched} fetched by the crawl`);
    assert.equal(r.graph.seeds, web.seeds.length);
    assert.deepEqual(
      r.runs.map((run) => run.label),
      ['bfs', similarity],
    );
    for (const run of r.runs) assert.equal(run.uniquePages, r.evaluation.pages, `${run.label} visits every reachable page`);
    assert.ok(existsSync(join(out, 'visits-2-similarity.tsv')));
  });

  it('simulates a TSV edge list from the seed given', { timeout: 60_000 }, async () => {
    const file = join(dir, 'g.tsv');
    writeFileSync(file, '# src\tdst\tflags\n0\t2\n0\t3\n2\t7\n3\t8\tnofollow\n9\t0\n');
    const out = join(dir, 'sim-tsv');
    const sim = await shoal(['simulate', '--graph', file, '--seed', '0', '--order', 'bfs,backlink', '--out', out]);
    assert.equal(sim.code, 0, sim.stderr);
    assert.match(sim.stderr, /graph: tsv .*: 6 pages, 5 links/);
    const r = result(out);
    assert.equal(r.graph.format, 'tsv');
    assert.deepEqual([r.graph.pages, r.graph.links, r.graph.seeds, r.graph.hasUrls], [6, 5, 1, false]);
    assert.deepEqual([r.evaluation.scope, r.evaluation.pages], ['reachable', 4]);
    for (const [n, policy] of [
      [1, 'bfs'],
      [2, 'backlink'],
    ] as const) {
      const rows = readFileSync(join(out, `visits-${n}-${policy}.tsv`), 'utf8')
        .trim()
        .split('\n');
      assert.equal(rows[0], 'rank\tpage\tname\ttime_ms\tnode');
      // Outputs name pages by the file's ids.
      assert.deepEqual(
        rows.slice(1).map((row) => row.split('\t')[2]),
        ['0', '2', '3', '7'],
        policy,
      );
    }
    const bad = await shoal(['simulate', '--graph', file, '--seed', '4', '--out', join(dir, 'bad')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /graph\.seeds: "4" names no page of the graph/);
  });
});
