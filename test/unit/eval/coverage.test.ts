/**
 * Coverage |D ∩ T| / |T| against a known target Web (SPEC §5), counted by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { coverage } from '../../../src/eval/coverage.js';

function node(...urls: string[]) {
  return { downloads: urls.map((url) => ({ url, host: 'h', bytes: 1 })) };
}

describe('coverage', () => {
  it('counts distinct target pages downloaded, the missed ones and the off-target ones', () => {
    // T = {a, b, c, d, e, f}; A: a b x   B: b c
    // D = {a, b, x, c}; D ∩ T = {a, b, c} → 3 covered, 6 − 3 = 3 missed (d, e, f),
    // x is off target; coverage = 3/6 = 0.5.
    const got = coverage([node('a', 'b', 'x'), node('b', 'c')], new Set(['a', 'b', 'c', 'd', 'e', 'f']));
    assert.deepEqual(got, { targetPages: 6, coveredPages: 3, missedPages: 3, offTargetPages: 1, coverage: 0.5 });
  });

  it('does not let off-target downloads raise coverage', () => {
    // T = {a, b, c, d}; A: a   then A: a y z w   → coverage 1/4 both times, 0 then 3 off target.
    const target = ['a', 'b', 'c', 'd'];
    assert.deepEqual(coverage([node('a')], target), { targetPages: 4, coveredPages: 1, missedPages: 3, offTargetPages: 0, coverage: 0.25 });
    assert.deepEqual(coverage([node('a', 'y', 'z', 'w')], target), {
      targetPages: 4,
      coveredPages: 1,
      missedPages: 3,
      offTargetPages: 3,
      coverage: 0.25,
    });
  });

  it('counts a page downloaded twice, by one node or by two, once', () => {
    // T = {a, b}; A: a a   B: a → 1 covered of 2.
    assert.deepEqual(coverage([node('a', 'a'), node('a')], ['a', 'b']), {
      targetPages: 2,
      coveredPages: 1,
      missedPages: 1,
      offTargetPages: 0,
      coverage: 0.5,
    });
  });

  it('takes any iterable target and counts its duplicates once', () => {
    // T given as a generator of a, a, b → |T| = 2; A downloaded both → coverage 1.
    function* urls() {
      yield 'a';
      yield 'a';
      yield 'b';
    }
    assert.deepEqual(coverage([node('b', 'a')], urls()), {
      targetPages: 2,
      coveredPages: 2,
      missedPages: 0,
      offTargetPages: 0,
      coverage: 1,
    });
  });

  it('is 0 with no downloads and null with an empty target', () => {
    assert.deepEqual(coverage([node(), node()], ['a', 'b', 'c', 'd']), {
      targetPages: 4,
      coveredPages: 0,
      missedPages: 4,
      offTargetPages: 0,
      coverage: 0,
    });
    assert.deepEqual(coverage([node('a')], []), { targetPages: 0, coveredPages: 0, missedPages: 0, offTargetPages: 1, coverage: null });
  });
});
