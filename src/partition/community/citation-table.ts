/**
 * The votes a node gives the community partitioner (`community.ts`): per URL, how many links to it
 * each partition's pages made, counted as the node routes its own links and as link summaries of
 * the other nodes arrive, and whether this node took the URL.
 *
 * Memory is bounded: at most `capacity` URLs, each a row of `partitionCount` 32-bit counts in one
 * typed array, plus the key in a Map. When full, the URL first counted longest ago is forgotten
 * (first in, first out: a URL still being linked is counted again and comes back with the new
 * counts only). What that costs: a forgotten URL that is linked again is placed on fewer votes, so
 * it may stay where it was found; the node's URL-seen test still keeps it from being queued twice.
 * 16 partitions and 131,072 URLs take about 8 MiB of counts plus the keys.
 *
 * Keys are URLs in a crawl and page numbers in the simulator.
 */
import type { CommunityFacts } from '../partitioner.js';

/** See the file comment. */
export class CitationTable<K> {
  private readonly slotOf = new Map<K, number>();
  private readonly keys: (K | undefined)[];
  private readonly counts: Uint32Array;
  private readonly kept: Uint8Array;
  private next = 0;

  constructor(
    readonly partitionCount: number,
    readonly capacity: number,
  ) {
    if (!Number.isInteger(partitionCount) || partitionCount < 1)
      throw new RangeError(`partitionCount: a positive integer, got ${partitionCount}`);
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity: a positive integer, got ${capacity}`);
    this.keys = new Array<K | undefined>(capacity);
    this.counts = new Uint32Array(capacity * partitionCount);
    this.kept = new Uint8Array(capacity);
  }

  /** URLs tracked now. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Adds `links` links to `key` from pages of `partition` (ignored when the partition is out of range). */
  cite(key: K, partition: number, links = 1): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitionCount || !(links > 0)) return;
    const slot = this.slotFor(key);
    const i = slot * this.partitionCount + partition;
    this.counts[i] = Math.min(0xffffffff, (this.counts[i] as number) + links);
  }

  /** Records that this node took `key` (it stays here from now on). */
  markKept(key: K): void {
    this.kept[this.slotFor(key)] = 1;
  }

  /** The votes for `key`, or undefined when it is not tracked. The counts are a view: read them before the next change. */
  factsOf(key: K): CommunityFacts | undefined {
    const slot = this.slotOf.get(key);
    if (slot === undefined) return undefined;
    const n = this.partitionCount;
    return { citedBy: this.counts.subarray(slot * n, slot * n + n), isKept: this.kept[slot] === 1 };
  }

  private slotFor(key: K): number {
    const known = this.slotOf.get(key);
    if (known !== undefined) return known;
    const slot = this.next;
    this.next = (slot + 1) % this.capacity;
    const old = this.keys[slot];
    if (old !== undefined) this.slotOf.delete(old);
    this.keys[slot] = key;
    this.slotOf.set(key, slot);
    const n = this.partitionCount;
    this.counts.fill(0, slot * n, slot * n + n);
    this.kept[slot] = 0;
    return slot;
  }
}
