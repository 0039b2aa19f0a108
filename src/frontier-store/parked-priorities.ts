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
 */

/** Default cell count: 262,144 (4 MiB once allocated). */
export const DEFAULT_PARKED_PRIORITY_CELLS = 2 ** 18;

/** The table; see the file comment. Cells are allocated at the first {@link set}. */
export class ParkedPriorities {
  private his: Uint32Array | null = null;
  private los: Uint32Array | null = null;
  private priorities: Float64Array | null = null;
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

  /** Holds `priority` as the latest of the URL with fingerprint (hi, lo). */
  set(hi: number, lo: number, priority: number): void {
    if (this.priorities === null) {
      this.his = new Uint32Array(this.cells);
      this.los = new Uint32Array(this.cells);
      this.priorities = new Float64Array(this.cells).fill(Number.NaN);
    }
    const i = lo & this.mask;
    const his = this.his as Uint32Array;
    const los = this.los as Uint32Array;
    if (Number.isNaN(this.priorities[i])) this.held++;
    else if (his[i] !== hi >>> 0 || los[i] !== lo >>> 0) this.overwritten++;
    his[i] = hi;
    los[i] = lo;
    this.priorities[i] = priority;
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
    this.held--;
    return p;
  }
}
