/**
 * A FIFO of frontier-log record locations (`segment × 2^32 + offset`), 8 bytes per entry: what a
 * `PersistentFrontier` keeps in memory for each URL a host has parked on disk. A ring of doubles
 * whose length is a power of two: it doubles when full and halves when a quarter full, so an entry
 * costs 8 to 32 bytes and a drained queue gives its memory back.
 */

const MIN_LENGTH = 4;

export class LocationQueue {
  private ring = new Float64Array(MIN_LENGTH);
  private head = 0;
  private count = 0;
  private shifted = 0;

  /** Entries queued. */
  get size(): number {
    return this.count;
  }

  /** Entries taken by {@link shift} so far: entry `i` of the queue is the `(headIndex + i)`-th ever pushed. */
  get headIndex(): number {
    return this.shifted;
  }

  push(location: number): void {
    if (this.count === this.ring.length) this.resize(this.ring.length * 2);
    this.ring[(this.head + this.count) & (this.ring.length - 1)] = location;
    this.count++;
  }

  /** Takes the oldest entry. @throws RangeError when empty. */
  shift(): number {
    if (this.count === 0) throw new RangeError('LocationQueue.shift(): the queue is empty');
    const location = this.ring[this.head] as number;
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.count--;
    this.shifted++;
    if (this.ring.length > MIN_LENGTH && this.count <= this.ring.length / 4) this.resize(this.ring.length / 2);
    return location;
  }

  /** Entry `i` (0 = oldest). */
  at(i: number): number {
    this.check(i);
    return this.ring[(this.head + i) & (this.ring.length - 1)] as number;
  }

  /** Replaces entry `i` (0 = oldest), keeping its place. */
  set(i: number, location: number): void {
    this.check(i);
    this.ring[(this.head + i) & (this.ring.length - 1)] = location;
  }

  /** Removes entry `i` (0 = oldest), the later ones moving up one place: O(size). */
  removeAt(i: number): void {
    this.check(i);
    const mask = this.ring.length - 1;
    for (let k = i; k + 1 < this.count; k++) this.ring[(this.head + k) & mask] = this.ring[(this.head + k + 1) & mask] as number;
    this.count--;
    if (this.ring.length > MIN_LENGTH && this.count <= this.ring.length / 4) this.resize(this.ring.length / 2);
  }

  private check(i: number): void {
    if (!(Number.isInteger(i) && i >= 0 && i < this.count))
      throw new RangeError(`LocationQueue: no entry ${i} in a queue of ${this.count}`);
  }

  private resize(length: number): void {
    const ring = new Float64Array(length);
    for (let i = 0; i < this.count; i++) ring[i] = this.ring[(this.head + i) & (this.ring.length - 1)] as number;
    this.ring = ring;
    this.head = 0;
  }
}
