/** Paged per-index arrays (src/core/paged-arrays.ts): fill values, pages allocated on write only, clear. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PAGE_CELLS, PagedArray } from '../../../src/core/paged-arrays.js';

describe('PagedArray', () => {
  test('reads the fill value where nothing was written, and allocates no page for a read', () => {
    const a = new PagedArray(Float64Array, -1);
    assert.equal(a.get(0), -1);
    assert.equal(a.get(10 * PAGE_CELLS + 3), -1);
    assert.equal(a.bytes, 0, 'reads allocate nothing');
    a.set(10 * PAGE_CELLS + 3, 2.5);
    assert.equal(a.get(10 * PAGE_CELLS + 3), 2.5);
    assert.equal(a.get(10 * PAGE_CELLS + 4), -1, 'the rest of a new page holds the fill value');
    assert.equal(a.get(0), -1, 'pages below a written one stay unallocated');
    assert.equal(a.bytes, PAGE_CELLS * 8, 'one page of Float64 cells');
  });

  test('cells on both sides of a page boundary are independent, and memory follows the pages written', () => {
    const a = new PagedArray(Uint32Array);
    const n = 3 * PAGE_CELLS + 17;
    for (let i = 0; i < n; i += 7) a.set(i, (i * 2654435761) >>> 0);
    for (let i = 0; i < n; i++) assert.equal(a.get(i), i % 7 === 0 ? (i * 2654435761) >>> 0 : 0);
    assert.equal(a.bytes, 4 * PAGE_CELLS * 4, 'four pages of four-byte cells for 3 pages and a bit of indices');
    a.set(PAGE_CELLS - 1, 0xffffffff);
    assert.equal(a.get(PAGE_CELLS - 1), 0xffffffff, 'Uint32 cells keep their full range');
    assert.equal(a.get(PAGE_CELLS), 0, 'the first cell of the next page is untouched by it');
  });

  test('clear sets every written cell back to the fill value and keeps the pages', () => {
    const a = new PagedArray(Int32Array, 7);
    a.set(5, 1);
    a.set(2 * PAGE_CELLS, 2);
    const bytes = a.bytes;
    a.clear();
    assert.deepEqual([a.get(5), a.get(2 * PAGE_CELLS), a.get(PAGE_CELLS)], [7, 7, 7]);
    assert.equal(a.bytes, bytes);
  });
});
