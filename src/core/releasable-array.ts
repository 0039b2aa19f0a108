/**
 * A flat typed array for work that comes now and then (a PageRank recomputation,
 * `order/rank-job.ts`; a large batch of priority changes turned into fingerprints,
 * `url/url-ids.ts`), whose memory goes back to the system the moment the work is done rather than
 * when the garbage collector next frees it.
 *
 * Why: between two uses the array is dead weight (8 MiB per million Float64 cells), and an array
 * dropped and allocated afresh for each use is freed only by a later collection, so that several
 * can be resident at once. This one lives in a resizable ArrayBuffer: `acquire(n)` grows it to n
 * cells (zeroed), `release()` shrinks it to none, which gives the pages back at once. The buffer
 * reserves address space (not memory) for a larger length, and is replaced by one reserving twice
 * as much when a use needs more.
 *
 * The price: V8 (Node 20) reads such an array at the speed of a plain one but writes it at random
 * places at less than half the speed (a loop of random increments, 2.3 times the CPU). Use it for
 * arrays read or written in order; keep a plain array for random writes.
 */
import type { NumberArray } from './typed-arrays.js';

/** Smallest length (cells) a buffer reserves address space for. */
const MIN_RESERVE_CELLS = 1 << 20;

/** A typed array of one kind that can be given back; see the file comment. */
export class ReleasableArray<T extends NumberArray> {
  private readonly make: new (buffer: ArrayBuffer, offset: number, length: number) => T;
  private readonly cellBytes: number;
  private buffer: ArrayBuffer;

  /** `make`: the typed-array constructor of the cells (Float64Array, Uint32Array, ...). */
  constructor(make: (new (buffer: ArrayBuffer, offset: number, length: number) => T) & { readonly BYTES_PER_ELEMENT: number }) {
    this.make = make;
    this.cellBytes = make.BYTES_PER_ELEMENT;
    this.buffer = new ArrayBuffer(0, { maxByteLength: MIN_RESERVE_CELLS * this.cellBytes });
  }

  /** A zeroed array of `n` cells (an integer >= 0), valid until the next `acquire` or `release`. */
  acquire(n: number): T {
    const bytes = n * this.cellBytes;
    this.buffer.resize(0);
    if (bytes > this.buffer.maxByteLength) {
      let reserve = this.buffer.maxByteLength;
      while (reserve < bytes) reserve *= 2;
      this.buffer = new ArrayBuffer(0, { maxByteLength: reserve });
    }
    this.buffer.resize(bytes);
    return new this.make(this.buffer, 0, n);
  }

  /** Gives the cells' memory back; the arrays `acquire` returned are then empty. */
  release(): void {
    this.buffer.resize(0);
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.buffer.byteLength;
  }
}
