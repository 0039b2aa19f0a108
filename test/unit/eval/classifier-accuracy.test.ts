import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifierAccuracy } from '../../../src/eval/classifier-accuracy.js';

describe('classifierAccuracy', () => {
  test('accuracy, per-category precision/recall/F1 and the confusion matrix', () => {
    const truth = ['A', 'A', 'A', 'B', 'B', 'C'];
    const pred = ['A', 'A', 'B', 'B', 'A', null];
    const r = classifierAccuracy(truth, pred, ['A', 'B', 'C']);
    assert.equal(r.right, 3);
    assert.equal(r.accuracy, 0.5);
    assert.deepEqual(r.labels, ['A', 'B', 'C']);
    assert.deepEqual(r.confusion, [
      [2, 1, 0, 0],
      [1, 1, 0, 0],
      [0, 0, 0, 1],
    ]);
    const [a, b, c] = r.perCategory;
    assert.deepEqual([a?.precision, a?.recall], [2 / 3, 2 / 3]);
    assert.deepEqual([b?.precision, b?.recall, b?.f1], [0.5, 0.5, 0.5]);
    assert.deepEqual([c?.precision, c?.recall, c?.f1, c?.support], [null, 0, null, 1]);
    assert.ok(Math.abs((r.macroF1 as number) - (2 / 3 + 0.5 + 0) / 3) < 1e-12);
  });

  test('labels outside the category list get rows and columns of their own', () => {
    const r = classifierAccuracy(['X', 'A'], ['A', 'Y'], ['A']);
    assert.deepEqual(r.labels, ['A', 'X', 'Y']);
    assert.equal(r.confusion.length, 3);
    assert.equal(r.accuracy, 0);
  });

  test('no pairs: null accuracy; unequal lengths refused', () => {
    assert.equal(classifierAccuracy([], []).accuracy, null);
    assert.throws(() => classifierAccuracy(['A'], []), RangeError);
  });
});
