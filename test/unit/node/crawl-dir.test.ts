/** The crawl directory's lock: one process at a time, a lock left by a killed process taken over. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { crawlDirLayout, lockCrawlDir } from '../../../src/node/crawl-dir.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-dir-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('lockCrawlDir', () => {
  test('holds the directory until released; a second lock is refused meanwhile', () => {
    const layout = crawlDirLayout(join(dir, 'a'));
    const release = lockCrawlDir(layout);
    assert.equal(readFileSync(layout.lock, 'utf8').trim(), String(process.pid));
    assert.throws(() => lockCrawlDir(layout), (err: unknown) => err instanceof ShoalError && err.code === 'IO' && /another crawl \(pid \d+\)/.test(err.message));
    release();
    release();
    assert.ok(!existsSync(layout.lock));
    lockCrawlDir(layout)();
  });

  test('takes over the lock of a process that is gone (kill -9)', () => {
    const layout = crawlDirLayout(join(dir, 'b'));
    mkdirSync(layout.state, { recursive: true });
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(layout.lock, `${gone}\n`);
    const release = lockCrawlDir(layout);
    assert.equal(readFileSync(layout.lock, 'utf8').trim(), String(process.pid));
    release();
  });
});
