/**
 * `detach` copies a text out of the string it was cut from (V8 keeps a slice of 13 or more
 * characters as a view of its parent); plain slices are the control that shows the measure works.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detach, flatten } from '../../../src/core/strings.js';
import { collectGarbage } from '../../helpers/gc.js';

/** A page of `bytes` one-byte characters that no other test shares (so no two pages are the same string). */
const pageOf = (n: number, bytes: number): string => `<p>${n}:`.padEnd(bytes, `${n % 10}`);

describe('detach', () => {
  it('returns the same characters, for short, long, two-byte and empty strings', () => {
    for (const s of [
      '',
      'a',
      'twelve chars',
      'thirteen char',
      'Ünïcødé 🐟 shoal, a longer text of two-byte characters',
      'x'.repeat(5000),
    ]) {
      assert.equal(detach(s), s);
    }
    const page = pageOf(1, 10_000);
    assert.equal(detach(page.slice(100, 180)), page.slice(100, 180));
    assert.equal(detach(flatten(`${page.slice(0, 20)}${page.slice(40, 60)}`)), page.slice(0, 20) + page.slice(40, 60));
  });

  it('keeps no page alive: texts cut from 48 pages of 1 MB and kept hold kilobytes, not the pages', () => {
    const kept: string[] = [];
    const keptSliced: string[] = [];
    const before = collectGarbage();
    for (let n = 0; n < 48; n++) kept.push(detach(pageOf(n, 2 ** 20).slice(1000, 1040)));
    const detachedGrowth = collectGarbage() - before;
    for (let n = 48; n < 96; n++) keptSliced.push(pageOf(n, 2 ** 20).slice(1000, 1040));
    const slicedGrowth = collectGarbage() - before - detachedGrowth;
    assert.equal(kept.length + keptSliced.length, 96);
    // The control: plain slices hold their 48 MiB of pages, so the measure can tell the two apart.
    assert.ok(slicedGrowth > 40 * 2 ** 20, `plain slices held ${slicedGrowth} bytes`);
    assert.ok(detachedGrowth < 4 * 2 ** 20, `detached texts held ${detachedGrowth} bytes`);
  });
});
