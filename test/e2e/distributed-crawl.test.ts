/**
 * Distributed collaborative crawls: `shoal node` processes (the installed command, over dist/)
 * joined only through a private nats-server, against a test web on loopback. Judged against a crawl
 * of one node on the same web:
 *
 * - two nodes, host-hash: together they download exactly what one node downloads, no page twice,
 *   and both end by themselves once the crawl as a whole is over;
 * - `kill -9` of one node mid-crawl: the other goes on; the same command restarts the killed node,
 *   which takes its partition back and catches up; coverage is whole again, and pages fetched twice
 *   stay within the killed node's in-flight window;
 * - the broker stopped and started again mid-crawl: the nodes buffer in their outboxes and retry;
 *   nothing is lost;
 * - `shoal eval` over the nodes' directories reports overlap 0 and the exchange's traffic.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Crawl } from '../../src/crawl/crawl.js';
import { readCrawlLog } from '../../src/store/crawl-log.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { startNatsServer, type TestNatsServer } from '../helpers/nats-server.js';
import { waitUntil } from '../helpers/wait.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-distributed-'));
/**
 * Short timings: a killed node's deliveries come back after 4 s, its lease after 3 s; hosts whose
 * robots.txt or pages fail are tried again within half a second, not minutes.
 */
const ENV = {
  ...process.env,
  SHOAL_CRAWL_CLUSTER_NATS_ACK_WAIT_MS: '4000',
  SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000',
  SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
  SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
  SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
};
// At the top level: the helper's clean-up hook must belong to the file, not to a `before` hook.
const nats: TestNatsServer = await startNatsServer();
let web: TestWeb;
let single: Set<string>;

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
  const summary = await new Crawl({
    seeds: { urls: [...web.seeds] },
    store: { outDir: join(dir, 'single') },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100 },
    progressIntervalMs: 0,
    parse: { workers: 1 },
  }).run();
  single = await downloads(join(dir, 'single'));
  assert.equal(summary.pages, single.size);
});
/** Every node process started; a failing test must not leave them running. */
const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** URLs the node of `out` downloaded itself, with repeats counted in `count`. */
async function downloadsWithRepeats(out: string): Promise<{ urls: Set<string>; count: number }> {
  const urls = new Set<string>();
  let count = 0;
  let node: string | null = null;
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) {
    node ??= e.node;
    if (e.status === 0 || e.node !== node) continue;
    urls.add(e.url);
    count++;
  }
  return { urls, count };
}

async function downloads(out: string): Promise<Set<string>> {
  return (await downloadsWithRepeats(out)).urls;
}

interface Running {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  /** What the node printed so far (for a failure's message). */
  readonly output: () => string;
}

/** The nodes' results; after `ms` without all of them, fails with the end of what each printed (a hung crawl says where it stands). */
async function allDone(runs: readonly Running[], ms: number): Promise<Awaited<Running['done']>[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the nodes did not end within ${ms} ms:\n${runs.map((r, i) => `--- node ${i}:\n${r.output().slice(-3000)}`).join('\n')}`,
          ),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([Promise.all(runs.map((r) => r.done)), late]);
  } finally {
    clearTimeout(timer);
  }
}

function node(crawlId: string, partition: number, out: string, minDelayMs: number, extra: readonly string[] = []): Running {
  const args = [
    bin,
    'node',
    '--nats',
    nats.url,
    '--crawl',
    crawlId,
    '--nodes',
    '2',
    '--partition',
    'host-hash',
    '--partitions',
    String(partition),
    '--node-id',
    `node${partition}`,
    '--out',
    out,
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([host, ip]) => ['--resolve', `${host}=${ip}`]),
    '--allow-loopback',
    '--min-delay-ms',
    String(minDelayMs),
    ...extra,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: ENV });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  return {
    child,
    done: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }))),
    output: () => `${stdout}\n[stderr]\n${stderr}`,
  };
}

/** Lines in `out`'s crawl log so far (0 before it exists). */
function loggedLines(out: string): number {
  const path = join(out, 'crawl-log.jsonl');
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0;
}

/** Resolves once `out`'s crawl log has at least `lines` lines; fails with what `run` printed if that takes a minute. */
function whenLogged(run: Running, out: string, lines: number): Promise<void> {
  return waitUntil(() => loggedLines(out) >= lines, {
    what: `${lines} lines in ${out}'s crawl log`,
    timeoutMs: 60_000,
    detail: () => run.output().slice(-3000),
  });
}

async function assertWhole(outs: readonly string[], maxRepeats: number): Promise<void> {
  const union = new Set<string>();
  let count = 0;
  for (const out of outs) {
    const d = await downloadsWithRepeats(out);
    for (const u of d.urls) union.add(u);
    count += d.count;
  }
  assert.deepEqual([...union].sort(), [...single].sort(), 'the nodes together cover what one node covers');
  assert.ok(count - union.size <= maxRepeats, `${count - union.size} pages downloaded twice (at most ${maxRepeats})`);
}

describe('shoal node: a crawl over NATS JetStream', () => {
  it('two nodes cover what one covers, without overlap, and end by themselves', { timeout: 120_000 }, async () => {
    assert.ok(
      existsSync(fileURLToPath(new URL('../../dist/cluster/distributed-node.js', import.meta.url))),
      'dist/ is built (`npm run build`)',
    );
    const outs = [join(dir, 'two-0'), join(dir, 'two-1')];
    const runs = [node('two', 0, outs[0] as string, 0), node('two', 1, outs[1] as string, 0)];
    for (const r of await allDone(runs, 100_000)) {
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /done: the frontier is empty/);
    }
    await assertWhole(outs, 0);
    const evaluated = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [bin, 'eval', ...outs, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.on('exit', () => resolve(out));
    });
    const metrics = (
      JSON.parse(evaluated) as { metrics: { nodeCount: number; overlap: { overlap: number }; communication: { urlsSent: number } } }
    ).metrics;
    assert.equal(metrics.nodeCount, 2);
    assert.equal(metrics.overlap.overlap, 0);
    assert.ok(metrics.communication.urlsSent > 0, 'URLs crossed the exchange');
  });

  it('a node killed with kill -9 comes back with the same command and catches up; the other goes on', { timeout: 180_000 }, async () => {
    const outs = [join(dir, 'kill-0'), join(dir, 'kill-1')];
    // Checkpoints every 250 ms: the pages a kill makes the node fetch again are those it fetched
    // since its last checkpoint, so the bound below does not depend on how fast this machine crawls.
    const checkpoints = ['--set', 'frontier.checkpointIntervalMs=250'];
    const survivor = node('kill', 0, outs[0] as string, 40, checkpoints);
    const victim = node('kill', 1, outs[1] as string, 40, checkpoints);
    await whenLogged(victim, outs[1] as string, 40);
    victim.child.kill('SIGKILL');
    const killed = await victim.done;
    assert.equal(killed.signal, 'SIGKILL');
    const restarted = node('kill', 1, outs[1] as string, 40, checkpoints);
    const [a, b] = await allDone([survivor, restarted], 150_000);
    assert.equal(a?.code, 0, a?.stderr);
    assert.equal(b?.code, 0, b?.stderr);
    // Pages fetched twice: at most the killed node's leases out at its last checkpoint (its
    // concurrency at most) and those it took since (250 ms of crawling).
    await assertWhole(outs, 64);
  });

  it('the first node to reach its page limit ends the crawl: the other stops for the same reason', { timeout: 120_000 }, async () => {
    // Node 0 may fetch 20 pages, node 1 many more: node 1 stops because node 0 did.
    const runs = [
      node('limit', 0, join(dir, 'limit-0'), 40, ['--max-pages', '20']),
      node('limit', 1, join(dir, 'limit-1'), 40, ['--max-pages', '100000']),
    ];
    const [a, b] = await allDone(runs, 100_000);
    assert.equal(a?.code, 0, a?.stderr);
    assert.equal(b?.code, 0, b?.stderr);
    assert.match(a?.stdout ?? '', /done: --max-pages reached/);
    assert.match(b?.stdout ?? '', /done: --max-pages reached/);
    const other = await downloads(join(dir, 'limit-1'));
    assert.ok(other.size < single.size / 2, `node 1 stopped early (${other.size} pages)`);
  });

  it('the broker stops and starts again mid-crawl: nothing is lost', { timeout: 180_000 }, async () => {
    const outs = [join(dir, 'outage-0'), join(dir, 'outage-1')];
    const runs = [node('outage', 0, outs[0] as string, 40), node('outage', 1, outs[1] as string, 40)];
    await whenLogged(runs[0] as Running, outs[0] as string, 30);
    await nats.stop();
    // Node 0 goes on crawling without the broker (what it sends waits in its outbox) before it comes back.
    await whenLogged(runs[0] as Running, outs[0] as string, loggedLines(outs[0] as string) + 10);
    await nats.restart();
    for (const r of await allDone(runs, 100_000)) assert.equal(r.code, 0, r.stderr);
    await assertWhole(outs, 0);
  });
});
