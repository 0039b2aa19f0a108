/**
 * Growable typed arrays for loaders that do not know their sizes in advance: the capacity doubles,
 * so n pushes cost O(n) and at most twice the final memory while growing.
 */

/** A growable Uint32Array; `data[0 .. length)` holds the values. */
export class GrowableU32 {
  data: Uint32Array;
  length = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Uint32Array(Math.max(16, initialCapacity));
  }

  push(x: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
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
    if (i >= this.data.length) {
      const grown = new Uint8Array(Math.max(2 * this.data.length, i + 1));
      grown.set(this.data);
      this.data = grown;
    }
    this.data[i] = value;
  }
}
