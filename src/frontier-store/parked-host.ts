/**
 * A host's parked URLs (`persistent-frontier.ts`, Parking): their records' locations, in priority
 * *bands*, first come first served within a band. The best band gives up its oldest URL first, so
 * a host's URLs come back from disk best first, to within a band; under breadth-first order every
 * URL has the same priority, one band, and this is a plain FIFO.
 *
 *     band(p) = ⌊log₂ p × BANDS_PER_OCTAVE⌋ for p > 0 (mirrored below 0, with 0 a band of its own)
 *
 * so two URLs of one band differ in priority by less than a factor 2^(1/4) ≈ 1.19 (for priorities
 * of one sign), whatever their scale: IR′/b of a million-page crawl (about 10⁻⁶) and IB′ counts
 * (1, 2, 3, ...) are banded alike. These are Mercator's front queues (seed 001: F FIFO queues, one
 * per priority level) kept per host and on disk, with 8 bytes of memory per URL.
 */
import { LocationQueue } from './location-queue.js';

/** Bands per doubling of the priority: URLs within a factor 2^(1/4) share a band. */
export const BANDS_PER_OCTAVE = 4;
// log₂ of a finite double is in [−1074, 1024]: these offsets keep the three ranges apart and in order.
const SPAN = (1100 * BANDS_PER_OCTAVE) | 0;
const ZERO_BAND = 2 * SPAN;

/** The band of a finite priority: a higher priority never has a lower band. */
export function bandOf(priority: number): number {
  if (priority > 0) return ZERO_BAND + 1 + SPAN + Math.floor(Math.log2(priority) * BANDS_PER_OCTAVE);
  if (priority < 0) return ZERO_BAND - 1 - SPAN - Math.floor(Math.log2(-priority) * BANDS_PER_OCTAVE);
  return ZERO_BAND;
}

/** One host's parked locations, by band; see the file comment. */
export class ParkedHost {
  private readonly bands = new Map<number, LocationQueue>();
  private bestBand = Number.NEGATIVE_INFINITY;
  private count = 0;

  /** Locations held, in every band. */
  get size(): number {
    return this.count;
  }

  /** Parks a location in `band` (from {@link bandOf}), behind the band's earlier ones. */
  push(band: number, location: number): void {
    let queue = this.bands.get(band);
    if (queue === undefined) {
      queue = new LocationQueue();
      this.bands.set(band, queue);
      if (band > this.bestBand) this.bestBand = band;
    }
    queue.push(location);
    this.count++;
  }

  /** Takes the oldest location of the best band. @throws RangeError when empty. */
  shift(): number {
    const queue = this.bands.get(this.bestBand);
    if (queue === undefined) throw new RangeError('ParkedHost.shift(): nothing is parked');
    const location = queue.shift();
    this.count--;
    if (queue.size === 0) this.dropBand(this.bestBand);
    return location;
  }

  private dropBand(band: number): void {
    this.bands.delete(band);
    if (band !== this.bestBand) return;
    this.bestBand = Number.NEGATIVE_INFINITY;
    for (const b of this.bands.keys()) if (b > this.bestBand) this.bestBand = b;
  }

  /**
   * Moves `location` to `band`, behind the band's others, if it is parked here in another band:
   * O(size). @returns whether it moved.
   */
  move(location: number, band: number): boolean {
    for (const [from, queue] of this.bands) {
      if (from === band) continue;
      for (let i = 0; i < queue.size; i++) {
        if (queue.at(i) !== location) continue;
        queue.removeAt(i);
        this.count--;
        if (queue.size === 0) this.dropBand(from);
        this.push(band, location);
        return true;
      }
    }
    return false;
  }

  /** The band queues, best band first (compaction rewrites their entries in place). */
  queues(): LocationQueue[] {
    return [...this.bands.entries()].sort((a, b) => b[0] - a[0]).map(([, queue]) => queue);
  }
}
