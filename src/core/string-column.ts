/**
 * Many short strings (a path per page of a million-page graph) in one byte buffer with an offset
 * per string: no string object per entry, so memory is the bytes themselves plus 8 bytes each, and
 * nothing for the garbage collector to walk. Strings are decoded when read (`at`).
 */

/** A read-only column of strings; see the file comment. */
export class StringColumn {
  /** @param bytes the UTF-8 bytes of every string, back to back; `ends[i]` is where string i ends. */
  constructor(private readonly bytes: Buffer, private readonly ends: Float64Array) {}

  get length(): number {
    return this.ends.length;
  }

  /** String `i` (0 <= i < length). @throws RangeError outside. */
  at(i: number): string {
    if (!(Number.isInteger(i) && i >= 0 && i < this.ends.length)) throw new RangeError(`StringColumn: no string ${i} of ${this.ends.length}`);
    const start = i === 0 ? 0 : (this.ends[i - 1] as number);
    return this.bytes.toString('utf8', start, this.ends[i] as number);
  }
}

/** Builds a {@link StringColumn} of `count` strings, set in any order. */
export class StringColumnBuilder {
  private chunks: Buffer[] = [];
  private current = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** Bytes in `chunks`. */
  private stored = 0;
  private readonly starts: Float64Array;
  private readonly lengths: Uint32Array;

  constructor(private readonly count: number) {
    this.starts = new Float64Array(count);
    this.lengths = new Uint32Array(count);
  }

  /** Sets string `i`. */
  set(i: number, s: string): void {
    const bytes = Buffer.byteLength(s);
    if (this.used + bytes > this.current.length) {
      this.chunks.push(this.current.subarray(0, this.used));
      this.stored += this.used;
      this.current = Buffer.allocUnsafe(Math.max(1 << 20, bytes));
      this.used = 0;
    }
    this.current.write(s, this.used, 'utf8');
    this.starts[i] = this.stored + this.used;
    this.lengths[i] = bytes;
    this.used += bytes;
  }

  /** The column, strings in index order (unset ones empty). */
  build(): StringColumn {
    const all = Buffer.concat([...this.chunks, this.current.subarray(0, this.used)]);
    const out = Buffer.allocUnsafe(all.length);
    const ends = new Float64Array(this.count);
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      const start = this.starts[i] as number;
      const n = this.lengths[i] as number;
      all.copy(out, at, start, start + n);
      at += n;
      ends[i] = at;
    }
    this.chunks = [];
    return new StringColumn(out, ends);
  }
}
