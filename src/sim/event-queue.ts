/**
 * The simulator's agenda: events on the virtual clock, served by time and, at equal times, in the
 * order they were scheduled (so a run is deterministic and a fetch that takes 0 ms completes before
 * anything scheduled after it). A binary min-heap over typed arrays: no object per event.
 */
import { withRoomFor } from '../core/typed-arrays.js';

/** What an event is about; `node` and `ref` are read according to the kind. */
export const SimEventKind = {
  /** A fetch completed: `ref` is the page. */
  fetchDone: 0,
  /** URLs from another node arrive: `ref` indexes the simulator's message table. */
  urls: 1,
  /** A forwarded (boundary) page arrives: `ref` indexes the message table. */
  page: 2,
  /** Link counts from another node arrive: `ref` indexes the message table. */
  links: 3,
  /** The node's frontier said a host becomes contactable now. */
  wake: 4,
  /** Time for every node to send its link summaries. */
  summaryTick: 5,
} as const;
export type SimEventKind = (typeof SimEventKind)[keyof typeof SimEventKind];

/** A time-ordered queue of (time, kind, node, ref) events; see the file comment. */
export class EventQueue {
  private time = new Float64Array(256);
  private seq = new Float64Array(256);
  private kind = new Uint8Array(256);
  private node = new Uint32Array(256);
  private ref = new Float64Array(256);
  private count = 0;
  private nextSeq = 0;

  /** Events waiting. */
  get size(): number {
    return this.count;
  }

  /** Time of the first event (Infinity when empty). */
  get firstTime(): number {
    return this.count === 0 ? Number.POSITIVE_INFINITY : (this.time[0] as number);
  }

  /** Schedules an event. */
  push(timeMs: number, kind: SimEventKind, node: number, ref: number): void {
    if (this.count === this.time.length) this.grow();
    let i = this.count++;
    const seq = this.nextSeq++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = this.time[parent] as number;
      if (pt < timeMs || (pt === timeMs && (this.seq[parent] as number) < seq)) break;
      this.move(parent, i);
      i = parent;
    }
    this.time[i] = timeMs;
    this.seq[i] = seq;
    this.kind[i] = kind;
    this.node[i] = node;
    this.ref[i] = ref;
  }

  /** The first event, removed; its fields are read from {@link popped} until the next pop. Returns false when empty. */
  pop(): boolean {
    if (this.count === 0) return false;
    const p = this.popped;
    p.timeMs = this.time[0] as number;
    p.kind = this.kind[0] as SimEventKind;
    p.node = this.node[0] as number;
    p.ref = this.ref[0] as number;
    const last = --this.count;
    if (last > 0) {
      const t = this.time[last] as number;
      const s = this.seq[last] as number;
      const k = this.kind[last] as number;
      const nd = this.node[last] as number;
      const r = this.ref[last] as number;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= last) break;
        let child = left;
        const right = left + 1;
        if (right < last && this.isBefore(right, left)) child = right;
        const ct = this.time[child] as number;
        if (t < ct || (t === ct && s < (this.seq[child] as number))) break;
        this.move(child, i);
        i = child;
      }
      this.time[i] = t;
      this.seq[i] = s;
      this.kind[i] = k;
      this.node[i] = nd;
      this.ref[i] = r;
    }
    return true;
  }

  /** The fields of the event last popped. */
  readonly popped: { timeMs: number; kind: SimEventKind; node: number; ref: number } = {
    timeMs: 0,
    kind: SimEventKind.wake,
    node: 0,
    ref: 0,
  };

  private isBefore(a: number, b: number): boolean {
    const ta = this.time[a] as number;
    const tb = this.time[b] as number;
    return ta < tb || (ta === tb && (this.seq[a] as number) < (this.seq[b] as number));
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from] as number;
    this.seq[to] = this.seq[from] as number;
    this.kind[to] = this.kind[from] as number;
    this.node[to] = this.node[from] as number;
    this.ref[to] = this.ref[from] as number;
  }

  private grow(): void {
    const need = this.count + 1;
    this.time = withRoomFor(this.time, need);
    this.seq = withRoomFor(this.seq, need);
    this.kind = withRoomFor(this.kind, need);
    this.node = withRoomFor(this.node, need);
    this.ref = withRoomFor(this.ref, need);
  }
}
