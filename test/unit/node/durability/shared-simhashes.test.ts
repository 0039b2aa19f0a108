/**
 * `state/shared-simhashes.tsv` (src/node/durability/shared-simhashes.ts): the fingerprints other
 * nodes shared are read back in the order they were appended, as pages the near-duplicate index
 * restores (so a restarted node marks a copy of another node's page as an uninterrupted one would);
 * a line torn by a crash is cut when the file opens, and the lines before it survive; a file holding
 * more than twice the lines the index can keep is rewritten with the newest only.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SHARED_SIMHASHES_FILE, SharedSimHashes } from '../../../../src/node/durability/shared-simhashes.js';
import { NearDuplicates, type KeptPage } from '../../../../src/node/stages/near-duplicates.js';
import { scratchDirs } from '../../../helpers/scratch.js';

const { root } = scratchDirs('shoal-shared-simhashes-');

async function all(pages: AsyncIterable<KeptPage>): Promise<KeptPage[]> {
  const out: KeptPage[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

describe('SharedSimHashes', () => {
  test('reads back what was appended, in order, after a torn line is cut', async () => {
    const dir = join(root, 'torn');
    const first = new SharedSimHashes(dir);
    assert.deepEqual(await all(first.open()), []);
    first.append('http://a.test/1', 0xff00ff00, 0x0000000f);
    first.append('https://b.test/x?y=1', 0x1, 0xfedcba98);
    await first.flush();
    await first.close();
    // A crash in the middle of a line.
    appendFileSync(join(dir, SHARED_SIMHASHES_FILE), '00000000000000ff\thttp://c.te');

    const again = new SharedSimHashes(dir);
    const pages = await all(again.open());
    assert.deepEqual(pages, [
      { url: 'http://a.test/1', simhash: 'ff00ff000000000f', nearDuplicateOf: null },
      { url: 'https://b.test/x?y=1', simhash: '00000001fedcba98', nearDuplicateOf: null },
    ]);
    again.append('http://c.test/', 0, 0xff);
    await again.close();
    assert.equal(
      readFileSync(join(dir, SHARED_SIMHASHES_FILE), 'utf8'),
      'ff00ff000000000f\thttp://a.test/1\n00000001fedcba98\thttps://b.test/x?y=1\n00000000000000ff\thttp://c.test/\n',
    );
  });

  test('restored into an index, a shared page is found again and not added twice', async () => {
    const dir = join(root, 'restore');
    const run = new SharedSimHashes(dir);
    await all(run.open());
    run.append('http://other.test/original', 0xff00ff00, 0xff00ff00);
    await run.close();

    const near = new NearDuplicates({ action: 'archive', maxDistance: 3, blocks: null, maxFingerprints: 100 });
    const restarted = new SharedSimHashes(dir);
    assert.equal(await near.restore(restarted.open()), 1);
    assert.deepEqual(near.check('http://here.test/copy', 'ff00ff00ff00ff01'), { url: 'http://other.test/original', distance: 1 });
    // The delivery that brought it, coming again after the restart, adds nothing.
    assert.equal(near.addRemote('http://other.test/original', 0xff00ff00, 0xff00ff00), false);
    await restarted.close();
  });

  test('a file of more than twice the lines the index keeps is rewritten with the newest, and appended to after', async () => {
    const dir = join(root, 'rewrite');
    const url = (i: number): string => `http://n${i}.test/`;
    const write = async (from: number, to: number): Promise<void> => {
      const file = new SharedSimHashes(dir, 3);
      await all(file.open());
      for (let i = from; i < to; i++) file.append(url(i), 0, i + 1);
      await file.close();
    };
    const urlsOf = async (): Promise<string[]> => {
      const file = new SharedSimHashes(dir, 3);
      const pages = await all(file.open());
      await file.close();
      return pages.map((p) => p.url);
    };
    const fileLines = (): number => readFileSync(join(dir, SHARED_SIMHASHES_FILE), 'utf8').split('\n').length - 1;

    await write(0, 6);
    assert.equal((await urlsOf()).length, 6, 'twice the lines kept: not rewritten');
    assert.equal(fileLines(), 6);
    await write(6, 10);
    // The open that finds 10 lines still yields them all, then leaves the newest 3.
    assert.deepEqual(await urlsOf(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(url));
    assert.equal(fileLines(), 3);
    assert.deepEqual(await urlsOf(), [7, 8, 9].map(url));
    await write(10, 11);
    assert.deepEqual(await urlsOf(), [7, 8, 9, 10].map(url));
    assert.deepEqual(readdirSync(dir), [SHARED_SIMHASHES_FILE], 'no copy left beside it');
  });
});
