/**
 * Per-index numbers in fixed pages of 65,536 cells, allocated when a cell of the page is first
 * written: the per-URL state of a node that numbers a million URLs or more (`url/url-ids.ts`,
 * the ordering policies of `order/`).
 *
 * Why pages rather than one array that doubles ({@link withRoomFor}): growing a flat array copies
 * it into one twice as long, and until the garbage collector frees the old copy both are resident,
 * so a table of n cells can cost 3n at the moment it grows past a power of two, and several tables
 * indexed by the same ids grow at the same moment. Pages never move: memory grows by one page
 * (512 KiB for Float64 cells) at a time, is at most one page per table above what the written
 * indices need, and a range of indices never written costs nothing. Reads never allocate: an index
 * on a page never written reads the fill value.
 *
 * A read is one more load than a flat array's (the page, then the cell); hot loops over a dense
 * range (the PageRank iteration of `order/rank-job.ts`) keep flat arrays.
 */
import type { NumberArray } from './typed-arrays.js';

/** log2 of the cells per page. */
export const PAGE_BITS = 16;
/** Cells per page. */
export const PAGE_CELLS = 1 << PAGE_BITS;
const CELL_MASK = PAGE_CELLS - 1;

/** A paged array of numbers of one typed-array kind; see the file comment. */
export class PagedArray<T extends NumberArray> {
  private readonly pages: (T | undefined)[] = [];
  private readonly make: new (length: number) => T;
  /** The value of a cell never written. */
  readonly fill: number;
  private allocated = 0;

  /** `make`: the typed-array constructor of a page (Float64Array, Uint32Array, ...); `fill`: the value of a cell never written. */
  constructor(make: new (length: number) => T, fill = 0) {
    this.make = make;
    this.fill = fill;
  }

  /** The value at `i` (an integer >= 0), or the fill value when never written. */
  get(i: number): number {
    const page = this.pages[i >>> PAGE_BITS];
    return page === undefined ? this.fill : (page[i & CELL_MASK] as number);
  }

  /** Stores `value` at `i` (an integer in [0, 2^31)); allocates its page on first write. */
  set(i: number, value: number): void {
    const p = i >>> PAGE_BITS;
    const page = this.pages[p] ?? this.allocate(p);
    page[i & CELL_MASK] = value;
  }

  /** Bytes of the pages allocated so far. */
  get bytes(): number {
    return this.allocated;
  }

  /** Sets every cell written so far back to the fill value, keeping the pages. */
  clear(): void {
    for (const page of this.pages) page?.fill(this.fill);
  }

  /** Copies cells [0, n) into `target[0 .. n)` (unwritten cells as the fill value): a flat copy for a hot loop. */
  copyTo(target: NumberArray, n: number): void {
    for (let start = 0; start < n; start += PAGE_CELLS) {
      const count = Math.min(PAGE_CELLS, n - start);
      const page = this.pages[start >>> PAGE_BITS];
      if (page === undefined) target.fill(this.fill, start, start + count);
      else target.set(page.subarray(0, count), start);
    }
  }

  /** Sets cells [0, n) from `source[0 .. n)`. */
  copyFrom(source: NumberArray, n: number): void {
    for (let start = 0; start < n; start += PAGE_CELLS) {
      const count = Math.min(PAGE_CELLS, n - start);
      const p = start >>> PAGE_BITS;
      const page = this.pages[p] ?? this.allocate(p);
      page.set(source.subarray(start, start + count));
    }
  }

  private allocate(p: number): T {
    const page = new this.make(PAGE_CELLS);
    if (this.fill !== 0) page.fill(this.fill);
    while (this.pages.length < p) this.pages.push(undefined);
    this.pages[p] = page;
    this.allocated += page.byteLength;
    return page;
  }
}
