/**
 * Growable typed arrays for loaders that do not know their sizes in advance, over `core/grown.ts`
 * (capacity doubles, so n pushes cost O(n) and at most twice the final memory while growing).
 */
import { withRoomFor } from '../../core/typed-arrays.js';

/** A growable Uint32Array; `data[0 .. length)` holds the values. */
export class GrowableU32 {
  data: Uint32Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Uint32Array(Math.max(16, initialCapacity));
  }

  push(x: number): void {
    if (this.length === this.data.length) this.data = withRoomFor(this.data, this.length + 1);
    this.data[this.length++] = x;
  }

  /** The values pushed so far (a view, valid until the next push). */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** A growable Uint8Array indexed directly: reads past the end are 0, writes past it grow it. */
export class GrowableU8 {
  private data = new Uint8Array(1024);

  at(i: number): number {
    return i < this.data.length ? (this.data[i] as number) : 0;
  }

  set(i: number, value: number): void {
    this.data = withRoomFor(this.data, i + 1);
    this.data[i] = value;
  }
}
