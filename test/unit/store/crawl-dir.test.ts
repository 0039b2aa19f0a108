/**
 * The crawl directory's lock (a kernel file lock: one process at a time, released when its holder
 * dies, reaped or not) and the check that a directory is resumed by the kind of crawl that made it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ShoalError } from '../../../src/core/errors.js';
import { crawlDirKind, crawlDirLayout, expectCrawlDirKind, lockCrawlDir } from '../../../src/store/crawl-dir.js';
import { waitForLine, waitUntil } from '../../helpers/wait.js';

const dir = { path: mkdtempSync(join(tmpdir(), 'shoal-dir-')) };
after(() => rmSync(dir.path, { recursive: true, force: true }));

const crawlDirModule = fileURLToPath(new URL('../../../src/store/crawl-dir.ts', import.meta.url));
const isLocked = (err: unknown): boolean => err instanceof ShoalError && err.code === 'CRAWL_DIR_LOCKED';

/** The one-letter state of a process (`R`, `S`, `T`, `Z`, ...) from /proc, or null when it is gone. */
function processState(pid: number): string | null {
  try {
    // "pid (comm) S ...": the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

describe('lockCrawlDir', () => {
  test('holds the directory until released; a second lock is refused meanwhile, naming the holder', () => {
    const layout = crawlDirLayout(join(dir.path, 'a'));
    const lock = lockCrawlDir(layout);
    assert.equal(readFileSync(layout.lock, 'utf8').trim(), String(process.pid));
    assert.throws(
      () => lockCrawlDir(layout),
      (err: unknown) => isLocked(err) && new RegExp(`another crawl \\(pid ${process.pid}\\)`).test((err as Error).message),
    );
    lock.release();
    lock.release();
    const again = lockCrawlDir(layout);
    again.release();
  });

  test('a lock file left behind (by a process that is gone, or by anyone) does not hold the directory', () => {
    const layout = crawlDirLayout(join(dir.path, 'b'));
    mkdirSync(layout.state, { recursive: true });
    writeFileSync(layout.lock, `${process.pid}\n`);
    const lock = lockCrawlDir(layout);
    lock.release();
  });

  test('is released by the kernel when its holder is killed, before the holder is reaped', async () => {
    const layout = crawlDirLayout(join(dir.path, 'c'));
    // sh starts a holder in the background and stops itself: the killed holder then stays a zombie
    // (its parent cannot reap it), the state a supervisor restarting the crawl at once meets.
    const holder =
      `import { crawlDirLayout, lockCrawlDir } from ${JSON.stringify(crawlDirModule)};` +
      `lockCrawlDir(crawlDirLayout(${JSON.stringify(layout.root)})); process.stdout.write('locked ' + process.pid + '\\n'); setInterval(() => {}, 1000);`;
    const sh = spawn('sh', ['-c', `"$0" --import tsx --input-type=module -e "$1" & kill -STOP $$; wait`, process.execPath, holder], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const holderPid = Number(
        (await waitForLine(sh.stdout, /locked (\d+)/, { what: 'the holder to lock the directory', timeoutMs: 30_000 }))[1],
      );
      assert.throws(() => lockCrawlDir(layout), isLocked);
      process.kill(holderPid, 'SIGKILL');
      // Killed but not reaped: a pid check would still find it "alive".
      await waitUntil(() => processState(holderPid) === 'Z', { what: 'the killed holder to become a zombie', intervalMs: 10 });
      const lock = lockCrawlDir(layout);
      lock.release();
    } finally {
      sh.kill('SIGKILL');
    }
  });

  test('names a file given as the crawl directory, as a usage error', () => {
    const file = join(dir.path, 'a-file');
    writeFileSync(file, 'not a directory\n');
    assert.throws(
      () => lockCrawlDir(crawlDirLayout(file)),
      (err: unknown) => err instanceof ShoalError && err.code === 'USAGE' && /a-file is a file, not a crawl directory/.test(err.message),
    );
  });
});

describe('crawlDirKind', () => {
  test('tells a new directory, one node’s crawl, a distributed node and a collaborative crawl apart', () => {
    const root = (name: string): string => {
      const path = join(dir.path, 'kinds', name);
      mkdirSync(path, { recursive: true });
      return path;
    };
    const fresh = root('new');
    mkdirSync(join(fresh, 'state'));
    writeFileSync(join(fresh, 'state', 'lock'), '1\n');
    assert.equal(crawlDirKind(fresh), 'new');
    const node = root('node');
    mkdirSync(join(node, 'state', 'frontier'), { recursive: true });
    assert.equal(crawlDirKind(node), 'node');
    const distributed = root('distributed');
    writeFileSync(join(distributed, 'node.json'), '{}');
    mkdirSync(join(distributed, 'warc'));
    assert.equal(crawlDirKind(distributed), 'distributed-node');
    const cluster = root('cluster');
    writeFileSync(join(cluster, 'cluster.json'), '{}');
    assert.equal(crawlDirKind(cluster), 'cluster');

    expectCrawlDirKind(fresh, 'cluster');
    expectCrawlDirKind(node, 'node');
    assert.throws(
      () => expectCrawlDirKind(cluster, 'node'),
      (err: unknown) =>
        err instanceof ShoalError &&
        err.code === 'USAGE' &&
        /holds a collaborative crawl of several nodes .* not the crawl of one node/.test(err.message),
    );
    assert.throws(() => expectCrawlDirKind(node, 'cluster'), /holds the crawl of one node/);
    assert.throws(() => expectCrawlDirKind(node, 'distributed-node'), /holds the crawl of one node/);
  });
});
