/**
 * Diversity S/N (SPEC §5, seed 003 §4), counted by hand.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { diversity } from '../../../src/eval/diversity.js';

function node(...urls: string[]) {
  return { downloads: urls.map((url) => ({ url, host: new URL(url).host, bytes: 1 })) };
}

describe('diversity', () => {
  it('divides distinct hosts by all downloads', () => {
    // A: a.test/1 a.test/2 b.test/1   B: a.test/1 (again) c.test/x
    // N = 5, S = |{a.test, b.test, c.test}| = 3 → 3/5.
    const got = diversity([node('http://a.test/1', 'http://a.test/2', 'http://b.test/1'), node('http://a.test/1', 'http://c.test/x')]);
    assert.deepEqual(got, { downloads: 5, hosts: 3, diversity: 0.6 });
  });

  it('counts a page downloaded twice by one node in N', () => {
    // One node: a.test/1 twice → N = 2, S = 1 → 1/2.
    assert.deepEqual(diversity([node('http://a.test/1', 'http://a.test/1')]), { downloads: 2, hosts: 1, diversity: 0.5 });
  });

  it('is 1 when every page is on its own host', () => {
    // A: a.test/ b.test/   B: c.test/ → N = S = 3.
    assert.deepEqual(diversity([node('http://a.test/', 'http://b.test/'), node('http://c.test/')]), {
      downloads: 3,
      hosts: 3,
      diversity: 1,
    });
  });

  it('is null with no downloads', () => {
    assert.deepEqual(diversity([node(), node()]), { downloads: 0, hosts: 0, diversity: null });
    assert.deepEqual(diversity([]), { downloads: 0, hosts: 0, diversity: null });
  });
});
