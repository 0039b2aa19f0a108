/**
 * Collaborative crawls as a user runs them: `shoal crawl --nodes 3 --partition ...` (the installed
 * command, over dist/) against a test web on loopback, then `shoal eval` on the crawl directory, with
 * the web's ground truth: the collaborative crawl covers what a crawl of one node covers, overlap is 0
 * for hash partitioning, and the summary and the eval report say so.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { runNode, type CliRun } from '../helpers/cli.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-collab-cli-'));
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    hosts: 12,
    pages: 500,
    seeds: 3,
    server: { addressCount: 12 },
    traps: { hostRate: 0 },
    latency: { slowHostRate: 0 },
    robots: { crawlDelayRate: 0 },
  });
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function shoal(args: readonly string[]): Promise<CliRun> {
  // Hosts whose robots.txt or pages fail are tried again within half a second, not minutes.
  const env = {
    ...process.env,
    SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
    SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
    SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
  };
  return runNode([bin, ...args], { env });
}

function crawlFlags(out: string): string[] {
  return [
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
    '--allow-loopback',
    '--min-delay-ms',
    '0',
    '--out',
    out,
  ];
}

interface EvalJson {
  readonly partitioner: { readonly id: string } | null;
  readonly partitionCount: number;
  readonly metrics: {
    readonly nodeCount: number;
    readonly overlap: { readonly overlap: number; readonly uniquePages: number };
    readonly overlapHistogram: readonly number[];
    readonly coverage: { readonly coverage: number; readonly coveredPages: number } | null;
    readonly communication: { readonly urlsSent: number; readonly urlsPerPage: number };
    readonly linkLocality: { readonly pl: number } | null;
  };
}

async function evalJson(out: string): Promise<EvalJson> {
  const run = await shoal(['eval', out, '--truth', join(dir, 'truth'), '--json']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as EvalJson;
}

describe('shoal crawl --nodes and shoal eval (the installed command)', () => {
  it('a 3-node host-hash crawl covers what one node covers, with overlap 0, and says so', { timeout: 180_000 }, async () => {
    assert.ok(
      existsSync(fileURLToPath(new URL('../../dist/cluster/embedded-cluster.js', import.meta.url))),
      'dist/ is built (`npm run build`)',
    );
    const single = await shoal(crawlFlags(join(dir, 'single')));
    assert.equal(single.code, 0, single.stderr);
    const collab = await shoal([...crawlFlags(join(dir, 'collab')), '--nodes', '3', '--partition', 'host-hash']);
    assert.equal(collab.code, 0, collab.stderr);
    assert.match(collab.stdout, /done: the frontier is empty/);
    assert.match(collab.stdout, /nodes {7}3, host-hash: shoal-0 [\d,]+, shoal-1 [\d,]+, shoal-2 [\d,]+ pages/);
    assert.match(collab.stdout, /collaboration \(shoal eval/);
    assert.match(collab.stdout, /overlap/);
    assert.match(collab.stderr, /pages [\d,]+/, 'progress on stderr');
    assert.match(collab.stderr, /exchange [1-9][\d,]* URLs sent \(\d+\.\d\d\/page\)/, 'the exchange live in the progress');
    assert.match(collab.stderr, /overlap 0\.000, load max\/mean \d+\.\d\d/, 'the collaboration metrics live in the progress');

    const one = await evalJson(join(dir, 'single'));
    const three = await evalJson(join(dir, 'collab'));
    assert.equal(one.partitioner, null);
    assert.equal(three.partitioner?.id, 'host-hash');
    assert.equal(three.metrics.nodeCount, 3);
    assert.equal(three.metrics.overlap.overlap, 0);
    assert.deepEqual(three.metrics.overlapHistogram.slice(2), [0, 0]);
    assert.ok(one.metrics.coverage !== null && three.metrics.coverage !== null);
    assert.ok(one.metrics.coverage.coverage > 0.9, `single-node coverage ${one.metrics.coverage.coverage}`);
    assert.equal(three.metrics.coverage.coveredPages, one.metrics.coverage.coveredPages);
    assert.ok(three.metrics.communication.urlsSent > 0);
    assert.equal(one.metrics.communication.urlsSent, 0);
    assert.ok(three.metrics.linkLocality !== null && three.metrics.linkLocality.pl > 1 / 3, 'host-hash keeps same-host links local');

    const table = await shoal(['eval', join(dir, 'collab')]);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /3 nodes, host-hash/);
  });

  it('a 3-node topic crawl ends with topic locality, accuracy and Kendall tau, and eval agrees', { timeout: 180_000 }, async () => {
    const out = join(dir, 'topic');
    const truthDir = join(dir, 'truth');
    const run = await shoal([...crawlFlags(out), '--nodes', '3', '--partition', 'topic', '--set', `cluster.truthDir=${truthDir}`]);
    assert.equal(run.code, 0, run.stderr);
    const locality = /topic locality +([0-9.]+) +\((\d+) of (\d+) linked pairs/.exec(run.stdout);
    assert.ok(locality !== null, run.stdout);
    assert.ok(Number(locality[3]) > 50 && Number(locality[1]) > 0 && Number(locality[1]) <= 1, run.stdout);
    assert.match(run.stdout, /classifier accuracy +\d+\.\d%/);
    assert.match(run.stdout, /Kendall tau \(nodes\) +-?[0-9.]+ +\(shoal-0 /);
    assert.match(run.stdout, /Kendall tau \(hash\)/);
    // shoal eval with the same truth prints the same topic locality.
    const evalRun = await shoal(['eval', out, '--truth', truthDir]);
    assert.equal(evalRun.code, 0, evalRun.stderr);
    assert.match(evalRun.stdout, new RegExp(`topic locality +${locality[1]} +\\(${locality[2]} of ${locality[3]} `));
  });

  it('shoal eval on a directory that holds no crawl fails with a clear message', async () => {
    const run = await shoal(['eval', join(dir, 'truth')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /holds no crawl log/);
  });
});
