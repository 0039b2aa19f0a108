/**
 * The `shoal` command under the conditions that used to stall it or kill it uncleanly: a second crawl
 * into a busy directory, SIGTERM in any state (running, refused, waiting for a broker that is not
 * there), a closed pipe on stdout or stderr, an `--out` that is a file, a directory that holds another
 * kind of crawl, and `--version`. Each runs the installed command (bin/shoal.js over dist/) as a user
 * does. A process that does not end is the failure these tests exist for: each waits for the exit
 * with a bound far above the few seconds a stop takes, so only a hang fails it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { isCrawlDirLocked } from '../helpers/lock.js';
import { waitUntil } from '../helpers/wait.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'shoal-cli-robust-'));
/** Far above the few seconds a clean stop takes: only a hang reaches it. */
const HANG_MS = 30_000;
let web: TestWeb;

before(async () => {
  web = await startTestWeb({ hosts: 12, pages: 600, seeds: 3, server: { addressCount: 4 }, traps: { hostRate: 0 } });
});
after(async () => {
  await web?.close();
  rmSync(dir, { recursive: true, force: true });
});

function webFlags(): string[] {
  return [
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...[...web.hostsMap].flatMap(([h, ip]) => ['--resolve', `${h}=${ip}`]),
    '--allow-loopback',
  ];
}

/** A running shoal process, with what it printed so far. */
interface Running {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  /** Resolves with the exit code once the process has exited (null code: killed by a signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once stdout or stderr matches `re`. */
  waitFor(re: RegExp, stream?: 'stdout' | 'stderr'): Promise<void>;
}

function start(args: readonly string[]): Running {
  const child = spawn(bin, [...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
  });
  const output = { stdout: '', stderr: '' };
  const waiters: { re: RegExp; stream: 'stdout' | 'stderr' | undefined; resolve: () => void }[] = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      const text = w.stream === undefined ? output.stdout + output.stderr : output[w.stream];
      if (w.re.test(text)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout?.on('data', (c: Buffer) => {
    output.stdout += c.toString();
    check();
  });
  child.stderr?.on('data', (c: Buffer) => {
    output.stderr += c.toString();
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output,
    exited,
    waitFor: (re, stream) =>
      new Promise((resolve) => {
        waiters.push({ re, stream, resolve });
        check();
      }),
  };
}

/** Whether process `pid` has `path` open (Linux: a link to it among /proc/<pid>/fd). */
function hasOpen(pid: number, path: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
    } catch {
      return false; // closed meanwhile
    }
  });
}

/** The process's exit, or a failure naming what it printed when it has not exited within {@link HANG_MS}. */
async function exitOf(run: Running, what: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      run.child.kill('SIGKILL');
      reject(new Error(`${what}: still running ${HANG_MS / 1000} s later\nstdout: ${run.output.stdout}\nstderr: ${run.output.stderr}`));
    }, HANG_MS);
  });
  try {
    return await Promise.race([run.exited, hang]);
  } finally {
    clearTimeout(timer);
  }
}

describe('shoal, whatever state it is in', () => {
  it('prints its version', async () => {
    const run = start(['--version']);
    const { code } = await exitOf(run, 'shoal --version');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(code, 0);
    assert.equal(run.output.stdout.trim(), pkg.version);
  });

  it(
    'refuses a second crawl into a busy directory at once (exit 2), and the first goes on; SIGTERM then stops the first cleanly',
    { timeout: 120_000 },
    async () => {
      const out = join(dir, 'busy');
      const first = start(['crawl', ...webFlags(), '--out', out, '--min-delay-ms', '1500', '--concurrency', '4']);
      await first.waitFor(/crawling into/, 'stderr');
      const second = start(['crawl', ...webFlags(), '--out', out]);
      const refused = await exitOf(second, 'the second crawl');
      assert.equal(refused.code, 2, second.output.stderr);
      assert.match(second.output.stderr, /another crawl \(pid \d+\) is writing into .*busy; stop it first or choose another --out/);
      assert.doesNotMatch(second.output.stderr, /crawling into/, 'the refused crawl never says it is crawling');
      assert.equal(first.child.exitCode, null, 'the first crawl goes on');
      first.child.kill('SIGTERM');
      const stopped = await exitOf(first, 'the first crawl after SIGTERM');
      assert.equal(stopped.code, 130, first.output.stderr);
      assert.match(first.output.stdout, /interrupted: stopped cleanly/);
      assert.ok(!isCrawlDirLocked(out));
    },
  );

  it('a crawl, a test web and a simulation each end on SIGTERM', { timeout: 180_000 }, async () => {
    const crawl = start(['crawl', ...webFlags(), '--out', join(dir, 'term-crawl'), '--min-delay-ms', '2000']);
    await crawl.waitFor(/crawling into/, 'stderr');
    crawl.child.kill('SIGTERM');
    assert.equal((await exitOf(crawl, 'crawl')).code, 130, crawl.output.stderr);

    const served = start(['web', '--preset', 'tiny', '--port', '0']);
    await served.waitFor(/serving; Ctrl-C to stop/, 'stdout');
    const folder = /hosts map: (.+)\/hosts/.exec(served.output.stdout)?.[1] as string;
    served.child.kill('SIGTERM');
    assert.equal((await exitOf(served, 'web')).code, 0, served.output.stderr);
    assert.ok(!existsSync(folder), 'the web removed its temporary folder');

    // A graph that takes the simulator seconds to read and crawl: the signal comes while it reads.
    const graph = join(dir, 'graph.tsv');
    const n = 200_000;
    writeFileSync(
      graph,
      Array.from({ length: n }, (_, i) =>
        [1, 7, 1000].map((k) => `http://h${i % 3000}.test/p${i}\thttp://h${((i + k) % n) % 3000}.test/p${(i + k) % n}\n`).join(''),
      ).join(''),
    );
    // Early, while it reads the graph: its handler is in place, so it ends with 130.
    const early = start(['simulate', '--graph', graph, '--order', 'bfs', '--out', join(dir, 'sim-early')]);
    await waitUntil(
      () => {
        if (early.child.exitCode !== null) throw new Error(`simulate ended before it read the graph: ${early.output.stderr}`);
        return hasOpen(early.child.pid as number, realpathSync(graph));
      },
      { what: 'simulate to open the graph', timeoutMs: HANG_MS, intervalMs: 10 },
    );
    early.child.kill('SIGTERM');
    const earlyEnd = await exitOf(early, 'simulate, signalled early');
    assert.equal(earlyEnd.code, 130, early.output.stderr);
    // Between two runs: it writes what it simulated and exits 130.
    const sim = start(['simulate', '--graph', graph, '--order', 'bfs,random,backlink', '--out', join(dir, 'sim')]);
    await sim.waitFor(/run 1\/3 bfs/);
    sim.child.kill('SIGTERM');
    const simEnd = await exitOf(sim, 'simulate');
    assert.equal(simEnd.code, 130, sim.output.stderr);
    assert.ok(existsSync(join(dir, 'sim', 'result.json')), 'what was simulated is written');
  });

  it('a node whose broker does not answer ends on SIGTERM, and its directory is free again', { timeout: 120_000 }, async () => {
    const out = join(dir, 'no-broker');
    // Its broker's port hangs up on every connection: the first one tells that the node is trying
    // to reach the broker; the signal comes while it waits to try again.
    let attempts = 0;
    const broker = createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => broker.listen(0, '127.0.0.1', resolve));
    const { port } = broker.address() as AddressInfo;
    const node = start(['node', '--nats', `nats://127.0.0.1:${port}`, '--crawl', 'nobroker', '--nodes', '2', '--out', out, ...webFlags()]);
    try {
      await waitUntil(() => attempts > 0, { what: 'the node to try its broker', timeoutMs: HANG_MS, detail: () => node.output.stderr });
    } finally {
      broker.close();
    }
    node.child.kill('SIGTERM');
    const end = await exitOf(node, 'shoal node without a broker');
    // It stops by itself (130), not by the 10-s fallback that exits whatever is still running.
    assert.equal(end.code, 130, node.output.stderr);
    assert.doesNotMatch(node.output.stderr, /did not stop within/);
    assert.match(node.output.stderr, /stopped before the crawl began/);
    assert.ok(!isCrawlDirLocked(out));
  });

  it(
    'stops cleanly when the reader of its output goes away (| head -2): exit 130, directory free and resumable',
    { timeout: 120_000 },
    async () => {
      const out = join(dir, 'closed-pipe');
      const config = join(dir, 'progress.yaml');
      writeFileSync(config, 'progressIntervalMs: 100ms\npoliteness:\n  backoffBaseMs: 200ms\nrobots:\n  retryMs: 200ms\n');
      const crawl = start(['crawl', ...webFlags(), '--out', out, '--min-delay-ms', '300', '--config', config]);
      await crawl.waitFor(/pages \d+/, 'stderr');
      // What `| head -2` does: the reader leaves; the next write gets EPIPE.
      crawl.child.stderr?.destroy();
      crawl.child.stdout?.destroy();
      const end = await exitOf(crawl, 'a crawl whose output was closed');
      assert.equal(end.code, 130);
      assert.ok(!isCrawlDirLocked(out));
      const log = readFileSync(join(out, 'logs', 'node.jsonl'), 'utf8');
      assert.match(log, /"event":"crawl-finished","stopReason":"interrupted"/);
      const resumed = start(['crawl', ...webFlags(), '--out', out, '--min-delay-ms', '10', '--config', config]);
      assert.equal((await exitOf(resumed, 'the resumed crawl')).code, 0, resumed.output.stderr);
      assert.match(resumed.output.stdout, /done: the frontier is empty/);
    },
  );

  it('a test web whose reader goes away ends without a crash and removes its folder', { timeout: 60_000 }, async () => {
    const served = start(['web', '--preset', 'tiny', '--for', '2']);
    await served.waitFor(/hosts map: .+\/hosts/, 'stdout');
    const folder = /hosts map: (.+)\/hosts/.exec(served.output.stdout)?.[1] as string;
    // Its last line ("stopped after ...") then meets a closed pipe, as under `| head -2`.
    served.child.stdout?.destroy();
    const end = await exitOf(served, 'a web whose output was closed');
    assert.equal(end.code, 0, served.output.stderr);
    assert.doesNotMatch(served.output.stderr, /EPIPE|Error/);
    assert.ok(!existsSync(folder), 'the temporary folder is removed');
  });

  it('says clearly when --out is a file, and never that it is crawling', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x\n');
    const run = start(['crawl', ...webFlags(), '--out', file]);
    assert.equal((await exitOf(run, '--out FILE')).code, 2);
    assert.match(run.output.stderr, /a-file is a file, not a crawl directory/);
    assert.doesNotMatch(run.output.stderr, /crawling into|at .*\.js:\d+/);
  });

  it('checks the seeds before it says it is crawling', async () => {
    const run = start(['crawl', '--seed', 'ftp://example.test/', '--out', join(dir, 'bad-seed')]);
    assert.equal((await exitOf(run, 'bad seed')).code, 2);
    assert.match(run.output.stderr, /seeds\.urls\.0: not an http\(s\) URL/);
    assert.doesNotMatch(run.output.stderr, /crawling into/);
  });

  it('refuses to mix a crawl of one node and a collaborative crawl in one directory, either way', { timeout: 120_000 }, async () => {
    const cluster = join(dir, 'cluster');
    const made = start(['crawl', ...webFlags(), '--out', cluster, '--nodes', '2', '--max-pages', '5', '--min-delay-ms', '10']);
    assert.equal((await exitOf(made, 'the collaborative crawl')).code, 0, made.output.stderr);
    const single = start(['crawl', ...webFlags(), '--out', cluster, '--max-pages', '5']);
    assert.equal((await exitOf(single, 'a single crawl into a cluster directory')).code, 2);
    assert.match(single.output.stderr, /holds a collaborative crawl of several nodes/);

    const node = join(dir, 'single');
    const one = start(['crawl', ...webFlags(), '--out', node, '--max-pages', '5', '--min-delay-ms', '10']);
    assert.equal((await exitOf(one, 'the single crawl')).code, 0, one.output.stderr);
    const many = start(['crawl', ...webFlags(), '--out', node, '--nodes', '2', '--max-pages', '5']);
    assert.equal((await exitOf(many, 'a collaborative crawl into a single directory')).code, 2);
    assert.match(many.output.stderr, /holds the crawl of one node/);
  });
});
