/**
 * Endless numbered spaces (src/url/numbered-spaces.ts): the form of a URL, which links are numbered
 * siblings, the bound per (host, form), and what is kept for the summary and across runs.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NumberedSpaces, numberedForm } from '../../../src/url/numbered-spaces.js';

describe('numberedForm', () => {
  it('writes every run of digits as # and a run of numeric path segments once', () => {
    assert.equal(numberedForm('/q?p=41'), '/q?p=#');
    assert.equal(numberedForm('/page/12/'), '/page/#/');
    assert.equal(numberedForm('/calendar/2024/1/'), '/calendar/#/');
    assert.equal(numberedForm('/calendar/2024/1/15/'), '/calendar/#/', "a day is of its month's form");
    assert.equal(numberedForm('/release-15-3.html'), '/release-#-#.html');
    assert.equal(numberedForm('/ch01s02.html'), '/ch#s#.html');
    assert.equal(numberedForm('/a/12/b/7?x=1&y=22'), '/a/#/b/#?x=#&y=#');
    assert.equal(numberedForm('/about/'), '/about/');
  });
});

describe('NumberedSpaces', () => {
  /** Follows a pagination chain /q?p=1 -> /q?p=2 -> ...: how many pages it admits before the bound stops it. */
  function followChain(spaces: NumberedSpaces, host = 'a.test'): number {
    let admitted = 0;
    for (let p = 1; p < 10_000; p++) {
      const key = spaces.keyOf(host, `/q?p=${p + 1}`, host, `/q?p=${p}`);
      assert.ok(key !== null);
      if (!spaces.admits(key)) return admitted;
      spaces.add(key);
      admitted++;
    }
    return admitted;
  }

  it('admits maxUrls numbered siblings of a host and form, then cuts, and says so', () => {
    const spaces = new NumberedSpaces(40);
    assert.equal(followChain(spaces), 40);
    assert.deepEqual(spaces.cutSpaces(), [{ host: 'a.test', form: '/q?p=#', admitted: 40, cut: 1 }]);
    assert.equal(followChain(new NumberedSpaces(0)), 0, 'a bound of 0 cuts every numbered sibling');
  });

  it('bounds a tree as well as a chain: every new id found on an id page counts', () => {
    const spaces = new NumberedSpaces(10);
    let admitted = 0;
    let frontier = [1];
    for (let depth = 0; depth < 8; depth++) {
      const next: number[] = [];
      for (const id of frontier) {
        for (const child of [id * 3 + 1, id * 3 + 2, id * 3 + 3]) {
          const key = spaces.keyOf('t.test', `/item/${child}`, 't.test', `/item/${id}`) as string;
          if (!spaces.admits(key)) continue;
          spaces.add(key);
          admitted++;
          next.push(child);
        }
      }
      frontier = next;
    }
    assert.equal(admitted, 10);
  });

  it('counts only links of the same host and form, with numbers: others are not numbered siblings', () => {
    const spaces = new NumberedSpaces(1);
    assert.equal(spaces.keyOf('a.test', '/q?p=2', 'b.test', '/q?p=1'), null, 'another host');
    assert.equal(spaces.keyOf('a.test', '/q?p=2', 'a.test', '/index.html'), null, 'found on an index');
    assert.equal(spaces.keyOf('a.test', '/about', 'a.test', '/about'), null, 'no number');
    assert.equal(spaces.keyOf('a.test', '/q?p=2&s=1', 'a.test', '/q?p=1'), null, 'another form');
    assert.notEqual(spaces.keyOf('a.test', '/calendar/2024/2/', 'a.test', '/calendar/2024/1/15/'), null, 'a month found on a day');
    // Each host and form has its own bound.
    assert.equal(followChain(spaces, 'a.test'), 1);
    assert.equal(followChain(spaces, 'b.test'), 1);
  });

  it('keeps its counts across a snapshot, and forgets the oldest form past maxKeys', () => {
    const spaces = new NumberedSpaces(3, 2);
    followChain(spaces, 'a.test');
    assert.equal(spaces.isChanged, true);
    const restored = new NumberedSpaces(3, 2, spaces.snapshot());
    assert.equal(spaces.isChanged, false);
    assert.equal(followChain(restored, 'a.test'), 0, 'the bound was spent before the restart');
    followChain(restored, 'b.test');
    followChain(restored, 'c.test');
    assert.deepEqual(
      restored.snapshot().map(([host]) => host),
      ['b.test', 'c.test'],
    );
  });
});
