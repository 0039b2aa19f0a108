/**
 * A set of page ids as a bitmap: one bit per page of the graph, so a node's URL-seen test over a
 * million pages costs 125 KB and one shift and mask per lookup.
 */

/** A fixed-size set of ids 0 .. size − 1. */
export class PageBits {
  private readonly words: Uint32Array;

  constructor(readonly size: number) {
    this.words = new Uint32Array(Math.ceil(size / 32));
  }

  has(page: number): boolean {
    return (((this.words[page >>> 5] as number) >>> (page & 31)) & 1) === 1;
  }

  add(page: number): void {
    this.words[page >>> 5] = (this.words[page >>> 5] as number) | (1 << (page & 31));
  }

  /** Adds `page`; returns whether it was new. */
  testAndAdd(page: number): boolean {
    const i = page >>> 5;
    const bit = 1 << (page & 31);
    const w = this.words[i] as number;
    if ((w & bit) !== 0) return false;
    this.words[i] = w | bit;
    return true;
  }
}
