/**
 * Time series that keep the whole crawl in bounded memory: one point per sample until `capacity`
 * points are held, then every two neighbours are merged into one (the later time, the mean of the
 * values) and from then on each point stands for twice as many samples. A crawl of an hour and one of
 * a week both fit in `capacity` points per column, the recent past at the same resolution as the rest.
 *
 * Columns may appear at any time (a node that joins late): earlier points hold null for them.
 */

/** Values of one sample, by column. */
export type SampleValues = Readonly<Record<string, number | null>>;

/** A running mean that skips nulls. */
interface Mean {
  sum: number;
  n: number;
}

/** See the file comment. */
export class BoundedSeries {
  private readonly t: number[] = [];
  private readonly columns = new Map<string, (number | null)[]>();
  /** Samples per point. */
  private stride = 1;
  private pendingSamples = 0;
  private pendingT = 0;
  private readonly pending = new Map<string, Mean>();

  /** @param capacity points kept per column at most (even, at least 2). */
  constructor(private readonly capacity = 360) {
    if (!Number.isInteger(capacity) || capacity < 2 || capacity % 2 !== 0)
      throw new RangeError(`capacity must be an even integer >= 2, got ${capacity}`);
  }

  /** Samples per point. */
  get samplesPerPoint(): number {
    return this.stride;
  }

  /** Adds one sample taken at `tMs`. */
  add(tMs: number, values: SampleValues): void {
    for (const [name, v] of Object.entries(values)) {
      const m = this.pending.get(name) ?? { sum: 0, n: 0 };
      if (v !== null && Number.isFinite(v)) {
        m.sum += v;
        m.n++;
      }
      this.pending.set(name, m);
    }
    this.pendingT = tMs;
    if (++this.pendingSamples < this.stride) return;
    this.push(this.pendingT, this.pending);
    this.pending.clear();
    this.pendingSamples = 0;
    if (this.t.length >= this.capacity) this.compact();
  }

  /** The points so far (the samples of a point not yet complete are left out). */
  view(): { readonly t: readonly number[]; readonly columns: Readonly<Record<string, readonly (number | null)[]>> } {
    return { t: [...this.t], columns: Object.fromEntries([...this.columns].map(([k, v]) => [k, [...v]])) };
  }

  private push(tMs: number, means: ReadonlyMap<string, Mean>): void {
    const length = this.t.length;
    this.t.push(tMs);
    for (const [name, m] of means) {
      let col = this.columns.get(name);
      if (col === undefined) {
        col = new Array<number | null>(length).fill(null);
        this.columns.set(name, col);
      }
      col.push(m.n === 0 ? null : m.sum / m.n);
    }
    for (const col of this.columns.values()) if (col.length < length + 1) col.push(null);
  }

  /** Merges neighbours: half the points, each standing for twice the samples. */
  private compact(): void {
    const half = Math.floor(this.t.length / 2);
    const t: number[] = [];
    for (let i = 0; i < half; i++) t.push(this.t[2 * i + 1] as number);
    this.t.splice(0, this.t.length, ...t);
    for (const [name, col] of this.columns) {
      const merged: (number | null)[] = [];
      for (let i = 0; i < half; i++) merged.push(meanOf(col[2 * i] ?? null, col[2 * i + 1] ?? null));
      this.columns.set(name, merged);
    }
    this.stride *= 2;
  }
}

function meanOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return (a + b) / 2;
}
