/**
 * The Limited Buffer Crawl model (SPEC §3; seed 004, Cho, Garcia-Molina & Page, §3): the crawler may
 * keep only B pages. It visits pages one by one; once B are kept, each new page either replaces the
 * kept page the crawler values least, by its *own estimate* at that moment (IB′, IR′, ...), or is
 * dropped itself. After K visits
 *
 *     PBC(K) = 100 · |{ hot pages among the kept }| / B
 *
 * and the paper's figure of merit is PBC at K = T. Hot is I(P) ≥ G, or the B most important pages
 * (hot = I(P) ≥ I(R_B): pass a threshold equal to the B-th largest importance).
 *
 * {@link LimitedBuffer} is the buffer itself, for the simulator to drive during a run: a binary
 * min-heap on typed arrays keyed by estimate, with a position index so an estimate can change
 * (`rekey`) when the crawler learns more (a kept page's IB′ grows as links to it are found).
 * {@link pbcCurve} replays a recorded {@link BufferLog} (offers and re-keys) into the PBC curve.
 *
 * Decisions where the paper is silent:
 * - The denominator is B from the first visit, so PBC rises while the buffer fills (at most
 *   100·K/B before it is full) and H < B caps it at 100·H/B.
 * - Ties: among equal estimates the page that entered the buffer last goes first. A new page whose
 *   estimate equals the lowest kept one is therefore dropped, and a buffer full of equal estimates
 *   (IB′ = 1 early in a crawl) keeps the pages that came first instead of churning.
 * - Offering a page the buffer already keeps is an error (RangeError): re-visits are not part of
 *   the model; a changed estimate is a `rekey`. Re-keying a page that is not kept is a no-op.
 */
import { withRoomFor } from '../core/typed-arrays.js';
import {
  checkVisitOrder,
  crawlerOf,
  fractions,
  resolveHot,
  sampleCounts,
  type CrawlCurveOptions,
  type Curve,
  type HotPages,
} from './ordering-curve.js';

/** A buffer of at most B pages that evicts the lowest estimate. Ids are page ids < `pageCount`. */
export class LimitedBuffer {
  /** B: how many pages the buffer keeps. */
  readonly capacity: number;
  /** n: page ids are < n. */
  readonly pageCount: number;
  private readonly heapIds: Uint32Array;
  private readonly heapKeys: Float64Array;
  private readonly heapArrivals: Float64Array;
  /** Heap index of each kept page, −1 for pages not kept. */
  private readonly position: Int32Array;
  private count = 0;
  private arrivals = 0;

  /** @throws RangeError unless capacity is an integer >= 1 and pageCount an integer >= 0. */
  constructor(capacity: number, pageCount: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`LimitedBuffer: capacity must be an integer >= 1, got ${capacity}`);
    if (!Number.isInteger(pageCount) || pageCount < 0)
      throw new RangeError(`LimitedBuffer: pageCount must be an integer >= 0, got ${pageCount}`);
    this.capacity = capacity;
    this.pageCount = pageCount;
    const slots = Math.min(capacity, pageCount);
    this.heapIds = new Uint32Array(slots);
    this.heapKeys = new Float64Array(slots);
    this.heapArrivals = new Float64Array(slots);
    this.position = new Int32Array(pageCount).fill(-1);
  }

  /** Number of pages kept (≤ B). */
  get size(): number {
    return this.count;
  }

  /** Whether page `id` is kept. */
  has(id: number): boolean {
    return id < this.pageCount && (this.position[id] as number) >= 0;
  }

  /** The current estimate of a kept page, undefined if not kept. */
  estimateOf(id: number): number | undefined {
    return this.has(id) ? this.heapKeys[this.position[id] as number] : undefined;
  }

  /**
   * Offers a just-visited page with the crawler's estimate of its importance. While the buffer has
   * room it is kept; when full it replaces the lowest kept page if its estimate is higher.
   *
   * @returns the page that left the buffer: the evicted page, or `id` itself if it was not admitted;
   *   −1 if nothing left.
   * @throws RangeError on an id ≥ pageCount, an id already kept, or a NaN estimate.
   */
  offer(id: number, estimate: number): number {
    if (!(id >= 0 && id < this.pageCount && Number.isInteger(id)))
      throw new RangeError(`LimitedBuffer.offer: page ${id} is not < ${this.pageCount}`);
    if (Number.isNaN(estimate)) throw new RangeError(`LimitedBuffer.offer: estimate of page ${id} is NaN`);
    if ((this.position[id] as number) >= 0)
      throw new RangeError(`LimitedBuffer.offer: page ${id} is already kept; use rekey() to change its estimate`);
    const arrival = this.arrivals++;
    if (this.count < this.capacity) {
      const at = this.count++;
      this.place(at, id, estimate, arrival);
      this.siftUp(at);
      return -1;
    }
    // Full. The newcomer arrived last, so on a tie it is the one that goes.
    const lowest = this.heapIds[0] as number;
    if (estimate <= (this.heapKeys[0] as number)) return id;
    this.position[lowest] = -1;
    this.place(0, id, estimate, arrival);
    this.siftDown(0);
    return lowest;
  }

  /**
   * Changes the estimate of a kept page (the crawler learned more about it).
   *
   * @returns whether the page is kept (false: nothing to do).
   * @throws RangeError on a NaN estimate.
   */
  rekey(id: number, estimate: number): boolean {
    if (Number.isNaN(estimate)) throw new RangeError(`LimitedBuffer.rekey: estimate of page ${id} is NaN`);
    if (!this.has(id)) return false;
    const at = this.position[id] as number;
    const old = this.heapKeys[at] as number;
    this.heapKeys[at] = estimate;
    if (estimate < old) this.siftUp(at);
    else if (estimate > old) this.siftDown(at);
    return true;
  }

  /** Number of kept pages that are hot (`isHot[id]` nonzero). O(size). */
  hotCount(isHot: Uint8Array): number {
    let hot = 0;
    for (let i = 0; i < this.count; i++) if (isHot[this.heapIds[i] as number]) hot++;
    return hot;
  }

  /** Share of the B places that hold a hot page, in [0, 1]; PBC = 100 · hotShare. */
  hotShare(isHot: Uint8Array): number {
    return this.hotCount(isHot) / this.capacity;
  }

  /** The kept page ids, in no particular order (a copy). */
  keptIds(): Uint32Array {
    return this.heapIds.slice(0, this.count);
  }

  private place(at: number, id: number, estimate: number, arrival: number): void {
    this.heapIds[at] = id;
    this.heapKeys[at] = estimate;
    this.heapArrivals[at] = arrival;
    this.position[id] = at;
  }

  /** Whether the entry at heap index a goes before the one at b: lower estimate, then later arrival. */
  private isBefore(a: number, b: number): boolean {
    const ka = this.heapKeys[a] as number;
    const kb = this.heapKeys[b] as number;
    return ka < kb || (ka === kb && (this.heapArrivals[a] as number) > (this.heapArrivals[b] as number));
  }

  private swap(a: number, b: number): void {
    const id = this.heapIds[a] as number;
    const key = this.heapKeys[a] as number;
    const arrival = this.heapArrivals[a] as number;
    this.place(a, this.heapIds[b] as number, this.heapKeys[b] as number, this.heapArrivals[b] as number);
    this.place(b, id, key, arrival);
  }

  private siftUp(at: number): void {
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.isBefore(at, parent)) return;
      this.swap(at, parent);
      at = parent;
    }
  }

  private siftDown(at: number): void {
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.count) return;
      const right = left + 1;
      const child = right < this.count && this.isBefore(right, left) ? right : left;
      if (!this.isBefore(child, at)) return;
      this.swap(at, child);
      at = child;
    }
  }
}

/** Event kinds of a {@link BufferLog}. */
export const BufferEventKind = {
  /** A page was visited and offered with its estimate at that moment. */
  offer: 0,
  /** The estimate of a page changed. */
  rekey: 1,
} as const;
/** One of {@link BufferEventKind}. */
export type BufferEventKind = (typeof BufferEventKind)[keyof typeof BufferEventKind];

/** A recorded run of a limited buffer: parallel arrays, one entry per event, in order. */
export interface BufferLog {
  /** {@link BufferEventKind} of each event. */
  readonly kinds: Uint8Array;
  readonly ids: Uint32Array;
  readonly estimates: Float64Array;
}

/** A log with one offer per visit, each page offered with its estimate when it was visited (estimates never change). */
export function bufferLogFromVisits(visitOrder: Uint32Array, estimateAtVisit: Float64Array): BufferLog {
  if (estimateAtVisit.length !== visitOrder.length) {
    throw new RangeError(`bufferLogFromVisits: ${visitOrder.length} visits but ${estimateAtVisit.length} estimates`);
  }
  return { kinds: new Uint8Array(visitOrder.length), ids: visitOrder, estimates: estimateAtVisit };
}

/** Records offers and re-keys during a run (arrays grow by doubling), for {@link pbcCurve} afterwards. */
export class BufferLogRecorder {
  private kinds = new Uint8Array(1024);
  private ids = new Uint32Array(1024);
  private estimates = new Float64Array(1024);
  private length = 0;

  /** Records a visit. */
  offer(id: number, estimate: number): void {
    this.push(BufferEventKind.offer, id, estimate);
  }

  /** Records a changed estimate. */
  rekey(id: number, estimate: number): void {
    this.push(BufferEventKind.rekey, id, estimate);
  }

  /** The events so far (copies). */
  log(): BufferLog {
    return {
      kinds: this.kinds.slice(0, this.length),
      ids: this.ids.slice(0, this.length),
      estimates: this.estimates.slice(0, this.length),
    };
  }

  private push(kind: BufferEventKind, id: number, estimate: number): void {
    if (this.length === this.ids.length) {
      this.kinds = withRoomFor(this.kinds, this.length + 1);
      this.ids = withRoomFor(this.ids, this.length + 1);
      this.estimates = withRoomFor(this.estimates, this.length + 1);
    }
    this.kinds[this.length] = kind;
    this.ids[this.length] = id;
    this.estimates[this.length] = estimate;
    this.length++;
  }
}

/** Options of {@link pbcCurve}. */
export interface PbcOptions extends CrawlCurveOptions {
  /** B: pages the buffer keeps (integer >= 1). */
  readonly capacity: number;
}

/**
 * PBC(K) at each sample point: the log replayed into a {@link LimitedBuffer}; the sample at K visits
 * is taken after the K-th offer and the re-keys that follow it, up to the next offer. T is the
 * length of the hot mask (or importance).
 *
 * @throws RangeError on repeated or out-of-range offers (the offered ids form a visit order), an
 *   unknown event kind, a NaN estimate, or a bad capacity.
 */
export function pbcCurve(log: BufferLog, hot: HotPages, options: PbcOptions): Curve {
  const resolved = resolveHot(hot);
  const { mask } = resolved;
  const pages = mask.length;
  const { kinds, ids, estimates } = log;
  if (ids.length !== kinds.length || estimates.length !== kinds.length) {
    throw new RangeError(`pbcCurve: log arrays differ in length (${kinds.length} kinds, ${ids.length} ids, ${estimates.length} estimates)`);
  }
  const offered: number[] = [];
  for (let e = 0; e < kinds.length; e++) {
    if (kinds[e] === BufferEventKind.offer) offered.push(ids[e] as number);
    else if (kinds[e] !== BufferEventKind.rekey) throw new RangeError(`pbcCurve: unknown event kind ${kinds[e]} at ${e}`);
  }
  checkVisitOrder(Uint32Array.from(offered), pages);
  const buffer = new LimitedBuffer(options.capacity, pages);
  const ks = sampleCounts(pages, offered.length, options);
  const y = new Float64Array(ks.length);
  let hotKept = 0;
  let visits = 0;
  let e = 0;
  for (let s = 0; s < ks.length; s++) {
    const target = ks[s] as number;
    // Replay up to (not including) offer number target + 1.
    for (; e < kinds.length; e++) {
      const id = ids[e] as number;
      if (kinds[e] === BufferEventKind.rekey) {
        buffer.rekey(id, estimates[e] as number);
        continue;
      }
      if (visits === target) break;
      visits++;
      const left = buffer.offer(id, estimates[e] as number);
      if (left !== id) hotKept += mask[id] as number;
      if (left >= 0 && left !== id) hotKept -= mask[left] as number;
    }
    y[s] = (100 * hotKept) / buffer.capacity;
  }
  const { crawler, label } = crawlerOf(options);
  return {
    spec: {
      id: 'pbc',
      params: { pages, visited: offered.length, capacity: buffer.capacity, hotPages: resolved.hotPages, ...resolved.params },
      crawler,
      importance: resolved.importance,
      label,
      xUnit: 'fraction',
      yUnit: 'percent',
    },
    x: fractions(ks, pages),
    y,
  };
}
