/** StringColumn (src/core/string-column.ts): strings appended in order come back by index, UTF-8 included, across buffer chunks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StringColumnBuilder } from '../../../src/core/string-column.js';

describe('StringColumn', () => {
  it('gives back every string by index', () => {
    const words = ['/a', '', '/b/ç/日本', '/x?y=1', '/z'];
    const b = new StringColumnBuilder(words.length);
    for (const w of words) b.push(w);
    const c = b.build();
    assert.equal(c.length, words.length);
    assert.deepEqual(
      Array.from({ length: c.length }, (_, i) => c.at(i)),
      words,
    );
    assert.throws(() => c.at(5), RangeError);
    assert.throws(() => c.at(-1), RangeError);
  });

  it('holds more than one 1 MiB chunk of bytes', () => {
    const n = 40_000;
    const b = new StringColumnBuilder(n);
    for (let i = 0; i < n; i++) b.push(`/page-${i}/${'x'.repeat(i % 50)}`);
    const c = b.build();
    for (const i of [0, 1, 17_000, 39_999]) assert.equal(c.at(i), `/page-${i}/${'x'.repeat(i % 50)}`);
  });

  it('leaves strings never pushed empty and refuses more than it holds', () => {
    const b = new StringColumnBuilder(3);
    b.push('/one');
    const full = new StringColumnBuilder(1);
    full.push('/a');
    assert.throws(() => full.push('/b'), RangeError);
    const c = b.build();
    assert.deepEqual([c.at(0), c.at(1), c.at(2)], ['/one', '', '']);
  });
});
