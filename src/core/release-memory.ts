/**
 * Gives the memory of a large buffer back at the next minor collection, when the caller knows that
 * nothing reads it any more: a page's body once the page is written, a task's input in a parse
 * worker once it is answered.
 *
 * Why: a body that lives through a page's fetch, analysis and WARC write (tens to hundreds of
 * milliseconds) outlives two minor collections and is moved to the old generation, which V8
 * collects only now and then: the bodies of finished pages then stay resident until it does, and a
 * burst of large pages leaves tens of megabytes of them (bench:frontier, bench:large-pages). Moving
 * the memory into a new ArrayBuffer (a transfer: nothing is copied) detaches the old one and leaves
 * the memory with an object of the young generation, which the next minor collection, a few
 * milliseconds away in a crawl, frees.
 *
 * Only buffers of at least {@link MIN_RELEASED_BYTES} are released: smaller ones cost little, and
 * below it a buffer may be a slab of Node's Buffer pool, which other Buffers share.
 */

/** Smallest memory released; larger than any slab of Node's Buffer pool. */
export const MIN_RELEASED_BYTES = 256 * 1024;

/**
 * Whether the memory `view` is a view of is an ArrayBuffer of at least `minBytes` that no other
 * Buffer can share: not shared memory, and larger than a slab of Node's Buffer pool. It may still
 * hold other views of the caller's; only the caller knows whether it owns it all.
 */
export function isUnsharedMemory(view: ArrayBufferView, minBytes: number): boolean {
  const memory = view.buffer;
  return memory instanceof ArrayBuffer && memory.byteLength >= minBytes && memory.byteLength > Buffer.poolSize;
}

/**
 * Gives back the memory `view` is a view of, all of its ArrayBuffer, when it is at least
 * {@link MIN_RELEASED_BYTES}: every view of that memory reads as empty afterwards. The caller must
 * own that memory and be done with it. @returns whether the memory was released.
 */
export function releaseMemory(view: ArrayBufferView): boolean {
  if (!isUnsharedMemory(view, MIN_RELEASED_BYTES)) return false;
  const memory = view.buffer as ArrayBuffer;
  try {
    structuredClone(memory, { transfer: [memory] });
  } catch {
    return false;
  }
  // Memory that cannot be detached (a WebAssembly memory's) is copied instead, and stays.
  return memory.byteLength === 0;
}
