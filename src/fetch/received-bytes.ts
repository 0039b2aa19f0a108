/**
 * A response body as it arrives. Small bodies stay the chunks the socket delivered; once a body
 * passes {@link OWN_BUFFER_BYTES}, its bytes move into one buffer of their own, sized by
 * `Content-Length` when the server sent one (else grown by doubling), and every later chunk is
 * copied in and let go.
 *
 * Why: the socket's chunks are at most 64 KiB, below the size from which the `shoal` command's
 * malloc setting maps an allocation on its own (docs/memory.md). A 5 MB page held as 80 such chunks
 * until it ends keeps them alive past the collector's young generation, and the main malloc heap
 * grows by the page and cannot shrink back around the long-lived allocations made meanwhile. One
 * buffer of 256 KiB or more is mapped on its own and given back whole when the body is dropped,
 * and the body needs no `Buffer.concat` at the end.
 */

/** From this many bytes a body is kept in one buffer of its own. */
export const OWN_BUFFER_BYTES = 256 * 1024;

export class ReceivedBytes {
  private chunks: Buffer[] | null = [];
  private buffer: Buffer | null = null;
  private count = 0;

  /**
   * @param expected the length the server announced (`Content-Length`), NaN when it did not; a first
   *   guess only: the body may end sooner or (cut at `cap` by the caller) run longer
   * @param cap the most bytes the caller will push
   */
  constructor(
    private readonly expected: number,
    private readonly cap: number,
  ) {}

  /** Bytes received so far. */
  get length(): number {
    return this.count;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const chunks = this.chunks;
    if (chunks !== null && this.count + chunk.length < OWN_BUFFER_BYTES) {
      chunks.push(chunk);
      this.count += chunk.length;
      return;
    }
    const need = this.count + chunk.length;
    if (this.buffer === null || this.buffer.length < need) this.grow(need);
    chunk.copy(this.buffer as Buffer, this.count);
    this.count = need;
  }

  /** The bytes received so far, in one buffer (the chunks of a small body joined once). */
  bytes(): Buffer {
    if (this.buffer !== null) return this.buffer.subarray(0, this.count);
    const chunks = this.chunks as Buffer[];
    if (chunks.length === 1) return chunks[0] as Buffer;
    const joined = Buffer.concat(chunks, this.count);
    this.chunks = [joined];
    return joined;
  }

  private grow(need: number): void {
    const announced = Number.isFinite(this.expected) && this.expected >= need ? this.expected : 0;
    const size = Math.max(need, Math.min(this.cap, Math.max(announced, 2 * need, OWN_BUFFER_BYTES)));
    // allocUnsafeSlow: never a slice of Node's shared pool, and every byte is written before it is read.
    const next = Buffer.allocUnsafeSlow(size);
    if (this.buffer !== null) this.buffer.copy(next, 0, 0, this.count);
    else {
      let at = 0;
      for (const c of this.chunks as Buffer[]) at += c.copy(next, at);
    }
    this.buffer = next;
    this.chunks = null;
  }
}
