/**
 * What a simulated crawl visited, in order: page id, virtual time the fetch completed (ms since the
 * crawl started) and the node that fetched it, in three growable typed arrays.
 */
import { withRoomFor } from '../core/typed-arrays.js';

/** The visits of a run, in the order their fetches completed. */
export interface Visits {
  readonly count: number;
  /** Page of each visit. */
  readonly pages: Uint32Array;
  /** Virtual time each fetch completed, ms. */
  readonly timesMs: Float64Array;
  /** Node (partition) that fetched it. */
  readonly nodes: Uint16Array;
}

/** Records visits as they happen. */
export class VisitLog {
  private pages: Uint32Array;
  private timesMs: Float64Array;
  private nodes: Uint16Array;
  private length = 0;

  constructor(expected = 1024) {
    const n = Math.max(16, expected);
    this.pages = new Uint32Array(n);
    this.timesMs = new Float64Array(n);
    this.nodes = new Uint16Array(n);
  }

  get count(): number {
    return this.length;
  }

  record(page: number, timeMs: number, node: number): void {
    if (this.length === this.pages.length) {
      this.pages = withRoomFor(this.pages, this.length + 1);
      this.timesMs = withRoomFor(this.timesMs, this.length + 1);
      this.nodes = withRoomFor(this.nodes, this.length + 1);
    }
    this.pages[this.length] = page;
    this.timesMs[this.length] = timeMs;
    this.nodes[this.length] = node;
    this.length++;
  }

  /** The visits so far, trimmed to their count (copies). */
  visits(): Visits {
    return {
      count: this.length,
      pages: this.pages.slice(0, this.length),
      timesMs: this.timesMs.slice(0, this.length),
      nodes: this.nodes.slice(0, this.length),
    };
  }
}
