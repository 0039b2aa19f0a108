/**
 * The node's near-duplicate index: the first page of its kind is kept and later ones are marked
 * with it; a page never resembles its own URL (fetched again) and is kept once; a page without
 * words is left alone; and `restore` rebuilds from the page lines of an earlier run exactly what
 * that run's index held, so a resumed crawl marks what an uninterrupted one would.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NearDuplicates, type KeptPage } from '../../../../src/node/stages/near-duplicates.js';

const options = { action: 'archive', maxDistance: 3, blocks: null, maxFingerprints: 100 } as const;

async function* lines(pages: readonly KeptPage[]): AsyncGenerator<KeptPage> {
  yield* pages;
}

describe('NearDuplicates', () => {
  test('keeps the first of its kind and marks the later ones with it', () => {
    const near = new NearDuplicates(options);
    assert.equal(near.check('http://a.test/1', 'ff00ff00ff00ff00'), null);
    assert.deepEqual(near.check('http://a.test/2', 'ff00ff00ff00ff07'), { url: 'http://a.test/1', distance: 3 });
    // Four bits away: a page of its own.
    assert.equal(near.check('http://a.test/3', 'ff00ff00ff00ff0f'), null);
    // The marked page was not kept: a page near it but 4 bits from the first finds only the third.
    assert.deepEqual(near.check('http://a.test/4', 'ff00ff00ff00ff1f'), { url: 'http://a.test/3', distance: 1 });
    assert.equal(near.size, 2);
  });

  test('never marks a page as a copy of its own URL, nor keeps it twice; leaves pages without words alone', () => {
    const near = new NearDuplicates(options);
    assert.equal(near.check('http://a.test/1', '0123456789abcdef'), null);
    assert.equal(near.check('http://a.test/1', '0123456789abcdee'), null);
    assert.equal(near.size, 1);
    assert.equal(near.check('http://a.test/e', '0000000000000000'), null);
    assert.equal(near.check('http://a.test/f', '0000000000000000'), null);
    assert.equal(near.size, 1);
  });

  test('restore rebuilds the index of an earlier run from its page lines', async () => {
    const run = new NearDuplicates(options);
    const written: KeptPage[] = [];
    const fingerprints = ['1111000011110000', '1111000011110001', 'abcdabcdabcdabcd', null, 'abcdabcdabcdabce', '9999999999999999'];
    fingerprints.forEach((simhash, i) => {
      const url = `http://a.test/${i}`;
      const m = simhash === null ? null : run.check(url, simhash);
      written.push({ url, simhash, nearDuplicateOf: m?.url ?? null });
    });
    const resumed = new NearDuplicates(options);
    assert.equal(await resumed.restore(lines(written)), fingerprints.length);
    assert.equal(resumed.size, run.size);
    for (const probe of ['1111000011110011', 'abcdabcdabcdabcf', '9999999999999990', '5555555555555555']) {
      assert.deepEqual(resumed.check('http://b.test/' + probe, probe), run.check('http://b.test/' + probe, probe));
    }
  });
});
