/**
 * New priorities of parked URLs (`persistent-frontier.ts`, Parking), held until the URL comes back
 * into a slot, where it takes the latest one instead of the priority it was added with. A parked
 * URL has no index entry (that is what makes it cost 8 bytes), so an ordering policy's change for
 * it is kept here: a direct-mapped table of `cells` cells, 16 bytes each (the fingerprint and the
 * priority), indexed by the low bits of the fingerprint's low word. A change whose cell
 * is taken by another URL's overwrites it: the URL that loses its cell comes back with its older
 * priority. So the table is bounded (4 MiB at the default 262,144 cells) whatever the frontier
 * holds, and holds the latest changes of up to about that many parked URLs; the approximation is
 * counted in `overwritten`.
 *
 * A cell changed since the frontier last wrote the table down is *unwritten* (one bit a cell): each
 * checkpoint journals the unwritten cells' latest priorities as PRIORITY records
 * ({@link ParkedPriorities.drainUnwritten}), so a URL changed many times between two checkpoints
 * costs one record, and a checkpoint writes at most `cells` of them. A change taken back into a slot
 * before it was written is journaled then ({@link ParkedPriorities.isUnwritten}). Changes recovered
 * from the log are held again with {@link ParkedPriorities.restore}, written already.
 */

/** Default cell count: 262,144 (4 MiB once allocated). */
export const DEFAULT_PARKED_PRIORITY_CELLS = 2 ** 18;

/** The table; see the file comment. Cells are allocated at the first {@link set}. */
export class ParkedPriorities {
  private his: Uint32Array | null = null;
  private los: Uint32Array | null = null;
  private priorities: Float64Array | null = null;
  /** One bit per cell: changed since the last {@link drainUnwritten}. */
  private unwritten: Uint32Array | null = null;
  private unwrittenCount = 0;
  private readonly mask: number;
  private held = 0;
  /** Changes that took the cell of another URL's change. */
  overwritten = 0;

  /** @throws RangeError unless `cells` is a power of two >= 1. */
  constructor(private readonly cells: number = DEFAULT_PARKED_PRIORITY_CELLS) {
    if (!(Number.isSafeInteger(cells) && cells >= 1 && (cells & (cells - 1)) === 0 && cells <= 2 ** 30))
      throw new RangeError(`frontier: parked priority cells must be a power of two in [1, 2^30], got ${cells}`);
    this.mask = cells - 1;
  }

  /** Changes held. */
  get size(): number {
    return this.held;
  }

  /** Changes held and not written down since the last {@link drainUnwritten}. */
  get unwrittenSize(): number {
    return this.unwrittenCount;
  }

  /** Holds `priority` as the latest of the URL with fingerprint (hi, lo), unwritten. */
  set(hi: number, lo: number, priority: number): void {
    this.markUnwritten(this.hold(hi, lo, priority), true);
  }

  /** Holds `priority` for (hi, lo) as {@link set} does, as a change the log holds already (recovered from it). */
  restore(hi: number, lo: number, priority: number): void {
    this.markUnwritten(this.hold(hi, lo, priority), false);
  }

  /** Whether the change held for (hi, lo) has not been written down yet. */
  isUnwritten(hi: number, lo: number): boolean {
    if (Number.isNaN(this.peek(hi, lo))) return false;
    const i = lo & this.mask;
    return (((this.unwritten as Uint32Array)[i >>> 5] as number) & (1 << (i & 31))) !== 0;
  }

  /** Calls back for every unwritten change held (fingerprint and latest priority), in cell order, and marks them written. */
  drainUnwritten(f: (hi: number, lo: number, priority: number) => void): void {
    const bits = this.unwritten;
    if (bits === null || this.unwrittenCount === 0) return;
    const his = this.his as Uint32Array;
    const los = this.los as Uint32Array;
    const priorities = this.priorities as Float64Array;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      if (word === 0) continue;
      bits[w] = 0;
      while (word !== 0) {
        const bit = 31 - Math.clz32(word);
        word &= ~(1 << bit);
        const i = w * 32 + bit;
        // A taken cell's bit is cleared with it: every marked cell holds a change.
        f(his[i] as number, los[i] as number, priorities[i] as number);
      }
    }
    this.unwrittenCount = 0;
  }

  /** Puts the change in its cell; @returns the cell. */
  private hold(hi: number, lo: number, priority: number): number {
    if (this.priorities === null) {
      this.his = new Uint32Array(this.cells);
      this.los = new Uint32Array(this.cells);
      this.priorities = new Float64Array(this.cells).fill(Number.NaN);
      this.unwritten = new Uint32Array(Math.ceil(this.cells / 32));
    }
    const i = lo & this.mask;
    const his = this.his as Uint32Array;
    const los = this.los as Uint32Array;
    if (Number.isNaN(this.priorities[i])) this.held++;
    else if (his[i] !== hi >>> 0 || los[i] !== lo >>> 0) this.overwritten++;
    his[i] = hi;
    los[i] = lo;
    this.priorities[i] = priority;
    return i;
  }

  private markUnwritten(i: number, isUnwritten: boolean): void {
    const bits = this.unwritten as Uint32Array;
    const mask = 1 << (i & 31);
    const word = bits[i >>> 5] as number;
    const was = (word & mask) !== 0;
    if (was === isUnwritten) return;
    bits[i >>> 5] = isUnwritten ? word | mask : word & ~mask;
    this.unwrittenCount += isUnwritten ? 1 : -1;
  }

  /** The latest priority held for (hi, lo), kept; NaN if none. */
  peek(hi: number, lo: number): number {
    const priorities = this.priorities;
    if (priorities === null) return Number.NaN;
    const i = lo & this.mask;
    if ((this.his as Uint32Array)[i] !== hi >>> 0 || (this.los as Uint32Array)[i] !== lo >>> 0) return Number.NaN;
    return priorities[i] as number;
  }

  /** The latest priority held for (hi, lo), forgotten as it is returned; NaN if none. */
  take(hi: number, lo: number): number {
    const priorities = this.priorities;
    if (priorities === null) return Number.NaN;
    const i = lo & this.mask;
    const p = priorities[i] as number;
    if (Number.isNaN(p) || (this.his as Uint32Array)[i] !== hi >>> 0 || (this.los as Uint32Array)[i] !== lo >>> 0) return Number.NaN;
    priorities[i] = Number.NaN;
    this.markUnwritten(i, false);
    this.held--;
    return p;
  }
}
