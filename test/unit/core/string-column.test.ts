/** StringColumn (src/core/string-column.ts): strings set in any order come back by index, UTF-8 included, across buffer chunks. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StringColumnBuilder } from '../../../src/core/string-column.js';

describe('StringColumn', () => {
  it('gives back every string by index, whatever the order they were set in', () => {
    const words = ['/a', '', '/b/ç/日本', '/x?y=1', '/z'];
    const b = new StringColumnBuilder(words.length);
    for (const i of [3, 0, 4, 2, 1]) b.set(i, words[i] as string);
    const c = b.build();
    assert.equal(c.length, words.length);
    assert.deepEqual(Array.from({ length: c.length }, (_, i) => c.at(i)), words);
    assert.throws(() => c.at(5), RangeError);
    assert.throws(() => c.at(-1), RangeError);
  });

  it('holds more than one 1 MiB chunk of bytes', () => {
    const n = 40_000;
    const b = new StringColumnBuilder(n);
    for (let i = n - 1; i >= 0; i--) b.set(i, `/page-${i}/${'x'.repeat(i % 50)}`);
    const c = b.build();
    for (const i of [0, 1, 17_000, 39_999]) assert.equal(c.at(i), `/page-${i}/${'x'.repeat(i % 50)}`);
  });
});
