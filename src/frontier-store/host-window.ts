/**
 * The part of one host's queue that a persistent frontier keeps in memory: its best URLs, at most a
 * fixed number, while the rest wait on disk.
 *
 * The window holds every queued URL of the host whose key is at or below `cursor`; every queued
 * URL above it is on disk only (`hasSpill`). So a new URL below the cursor must come in (it is
 * better than something already here), one above it stays out, and when the window runs dry the next
 * page is read from just after the cursor. When the window grows past its size, its worst URL goes
 * back to disk and the cursor moves down to the new worst. Keys order URLs exactly as the frontier
 * does (`frontier-keys.ts`), so "worst" is simply the largest key.
 */
import { HostHeap, NOT_IN_HEAP, type HeapSlot } from '../frontier/host-heap.js';
import type { FrontierEntry } from '../frontier/frontier.js';

/** A queued URL held in memory. */
export interface WindowItem extends HeapSlot {
  /** Its key in the store. */
  readonly key: Buffer;
  readonly entry: FrontierEntry;
  /** Add order (part of the key). */
  readonly seq: number;
  attempt: number;
}

/**
 * A new window item, in no heap yet. The key is copied into a buffer of its own: keys come as small
 * slices of Node's shared 8 KiB buffer pool (or of lmdb-js's read buffers), and a window item that
 * lives for minutes would keep a whole block alive (about 56 MiB of pinned blocks for 19,000 items
 * were measured with a 1M-URL frontier).
 */
export function windowItem(key: Buffer, entry: FrontierEntry, seq: number, attempt: number): WindowItem {
  const own = Buffer.allocUnsafeSlow(key.length);
  key.copy(own);
  return { key: own, entry, seq, attempt, heapIndex: NOT_IN_HEAP };
}

/** One resident host: its in-memory URLs, where disk takes over, and its leases out. */
export class HostWindow {
  readonly host: string;
  /** Queued URLs in memory, worst (largest key) first: the one to send back to disk. */
  readonly queued = new HostHeap<WindowItem>((a, b) => Buffer.compare(a.key, b.key) > 0);
  /** Largest key the window stands for; meaningful while `hasSpill`. Null: from the host's first key. */
  cursor: Buffer | null = null;
  /** Whether queued URLs of this host wait on disk, above the cursor. */
  hasSpill = false;
  /** Leases out for this host. */
  inFlight = 0;

  constructor(host: string) {
    this.host = host;
  }

  /** Whether a URL with this key belongs in memory now (see the file comment). */
  admits(key: Buffer): boolean {
    return !this.hasSpill || (this.cursor !== null && Buffer.compare(key, this.cursor) < 0);
  }

  /** Nothing queued in memory or on disk, nothing in flight: the host can give up its back queue. */
  get isIdle(): boolean {
    return this.queued.size === 0 && this.inFlight === 0 && !this.hasSpill;
  }
}
