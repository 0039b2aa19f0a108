/**
 * Many short strings (a path per page of a million-page graph) in one byte buffer with an offset
 * per string: no string object per entry, so memory is the bytes themselves plus 8 bytes each, and
 * nothing for the garbage collector to walk. Strings are decoded when read (`at`).
 */

/** A read-only column of strings; see the file comment. */
export class StringColumn {
  /** @param bytes the UTF-8 bytes of every string, back to back; `ends[i]` is where string i ends. */
  constructor(
    private readonly bytes: Buffer,
    private readonly ends: Float64Array,
  ) {}

  get length(): number {
    return this.ends.length;
  }

  /** String `i` (0 <= i < length). @throws RangeError outside. */
  at(i: number): string {
    if (!(Number.isInteger(i) && i >= 0 && i < this.ends.length))
      throw new RangeError(`StringColumn: no string ${i} of ${this.ends.length}`);
    const start = i === 0 ? 0 : (this.ends[i - 1] as number);
    return this.bytes.toString('utf8', start, this.ends[i] as number);
  }
}

/** Builds a {@link StringColumn}: strings are appended in index order, their bytes copied once more by {@link build}. */
export class StringColumnBuilder {
  private chunks: Buffer[] = [];
  private current = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  /** Bytes in `chunks` and `current`. */
  private total = 0;
  private readonly ends: Float64Array;
  private length = 0;

  /** @param count how many strings the column holds (those never pushed are empty). */
  constructor(count: number) {
    this.ends = new Float64Array(count);
  }

  /** Appends the next string (index = strings pushed so far). @throws RangeError past `count`. */
  push(s: string): void {
    if (this.length === this.ends.length) throw new RangeError(`StringColumnBuilder: more than ${this.ends.length} strings`);
    const bytes = Buffer.byteLength(s);
    if (this.used + bytes > this.current.length) {
      this.chunks.push(this.current.subarray(0, this.used));
      this.current = Buffer.allocUnsafe(Math.max(1 << 20, bytes));
      this.used = 0;
    }
    this.current.write(s, this.used, 'utf8');
    this.used += bytes;
    this.total += bytes;
    this.ends[this.length++] = this.total;
  }

  /** The column (strings never pushed are empty). The builder is spent. */
  build(): StringColumn {
    this.ends.fill(this.total, this.length);
    const bytes = Buffer.concat([...this.chunks, this.current.subarray(0, this.used)], this.total);
    this.chunks = [];
    return new StringColumn(bytes, this.ends);
  }
}
