/**
 * The URL-seen test (duplicate URL eliminator, SPEC §2 item 4): the set of 64-bit fingerprints of
 * every normalized URL a node has ever queued or fetched, asked "seen before?" and told "now seen"
 * in one step, a batch at a time.
 *
 * Mercator (seed 001, "URL-Seen Test" and "Disk-Based Hash for UST?") keeps the set on disk and
 * answers most questions from a small in-memory cache of popular fingerprints; the rest are tested
 * and inserted a batch at a time, in one pass over the disk structure instead of one seek per URL.
 * `SeenSet` is the shape both the memory set and that disk-backed set share.
 */

/**
 * Fingerprints: unsigned 64-bit integers. A `BigUint64Array` is read word by word without creating
 * a `bigint` per element, so it is the fast form; a `bigint[]` is checked and copied into one.
 */
export type Fingerprints = BigUint64Array | readonly bigint[];

/** What produced a set's answers: logged with every metric and report (CONVENTIONS §3). */
export interface SeenSetSpec {
  /** Configuration id, the file name of the implementation: `memory`, `disk`. */
  readonly id: string;
  readonly params: Readonly<Record<string, number | string | boolean>>;
}

/**
 * Insert-and-test over 64-bit URL fingerprints.
 *
 * **Contract**
 * - *Exact.* No false positives, no false negatives: the set answers for fingerprints, and two URLs
 *   with one fingerprint are one URL to it (n URLs collide about n²/2^65 times: 0.03 times for a
 *   billion; the fingerprint function owns that risk, not the set).
 * - *addBatch.* `addBatch(f)` inserts every element of `f` and resolves to a `Uint8Array` `r` with
 *   `r.length === f.length`, in input order: `r[i] === 1` when `f[i]` was not in the set before the
 *   call and `i` is its first position in `f` (the URL is new: queue it); otherwise `r[i] === 0`.
 *   An empty batch resolves to an empty array.
 * - *Ordering.* Calls take effect in the order they were made, whether or not earlier promises have
 *   settled: `has(x)` or `addBatch([x])` called after `addBatch([x])` sees `x`, and promises settle
 *   in call order. Concurrent callers need no lock of their own. Answers depend only on the
 *   sequence of calls, never on timing, cache size or batch boundaries (beyond first-occurrence).
 * - *Lifecycle.* The constructor allocates; `start()` opens storage and is idempotent; `close()`
 *   lets the calls already made finish, makes them durable, releases everything and is idempotent
 *   (every call returns the same promise). Calls before `start()` resolves (where an
 *   implementation needs it) or after `close()` was called reject with an `Error` naming the set
 *   and the method: that is a lifecycle bug in the caller, not a condition to retry.
 * - *Durability* (only when `isDurable`; with `isDurable === false`, `flush()` and `close()` make
 *   nothing durable and `flush()` resolves at once: the memory set forgets everything when the
 *   process ends, and the node's staged set writes fingerprints only at a frontier checkpoint,
 *   through its own protocol):
 *   - once `flush()` resolves, every fingerprint passed to an `addBatch` called before `flush()`
 *     survives a crash (process killed, OS crash, power loss, as far as the storage honours fsync);
 *   - a fingerprint accepted after the last completed flush may be lost by a crash, and then
 *     reported new again after restart. Nothing else is lost, and nothing that was never passed to
 *     `addBatch` ever appears. A crawler that flushes the set at each frontier checkpoint therefore
 *     fetches again after a crash at most the URLs admitted since that checkpoint (its in-flight
 *     window), and never skips a URL it had not fetched;
 *   - `close()` flushes, so a clean shutdown loses nothing.
 * - *Failure.* A storage failure rejects with a `ShoalError` of code `IO` (action: stop). After a
 *   failed write the set refuses every further call with that error: answers already given may not
 *   be on disk, so the node must stop and resume from its last checkpoint.
 *
 * **Sources** seed 001, "URL-Seen Test (UST)" and "Disk-Based Hash for UST?" (cache popular URLs;
 * membership test and insert on a batch in one pass); SPEC §2 item 4.
 */
export interface SeenSet {
  readonly spec: SeenSetSpec;
  /** True when flushed fingerprints survive a crash (see the Contract). */
  readonly isDurable: boolean;
  /** Distinct fingerprints in the set, counting the calls that have taken effect (not those queued). */
  readonly size: number;
  /** Opens the storage. Idempotent. */
  start(): Promise<void>;
  /** Inserts the batch; resolves to 1 for each first occurrence of a new fingerprint, else 0. */
  addBatch(fingerprints: Fingerprints): Promise<Uint8Array>;
  /** Whether `fingerprint` is in the set. Changes nothing. */
  has(fingerprint: bigint): Promise<boolean>;
  /** Makes every fingerprint accepted so far durable (see the Contract). */
  flush(): Promise<void>;
  /** Finishes pending calls, flushes and releases the storage. Idempotent. */
  close(): Promise<void>;
}

// --- Fingerprint words: shared by the implementations, which work on pairs of uint32 -------------

const U64_MAX = (1n << 64n) - 1n;
const IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Offset of the high and low 32-bit words of element `i` at `2 * i + offset` in the `Uint32Array`
 * view of a `BigUint64Array`: platform byte order decides which word comes first.
 */
export const WORD_OFFSET = IS_LITTLE_ENDIAN ? ({ hi: 1, lo: 0 } as const) : ({ hi: 0, lo: 1 } as const);

/**
 * The fingerprints as a `Uint32Array` of word pairs laid out as {@link WORD_OFFSET} says: a view of
 * the caller's `BigUint64Array` (no copy), or a new array for a `bigint[]`.
 *
 * @throws RangeError if an element of a `bigint[]` is not an integer in [0, 2^64).
 */
export function fingerprintWords(fingerprints: Fingerprints): Uint32Array {
  if (fingerprints instanceof BigUint64Array) {
    return new Uint32Array(fingerprints.buffer, fingerprints.byteOffset, fingerprints.length * 2);
  }
  // BigUint64Array.from would wrap -1n to 2^64 - 1 silently; a fingerprint out of range is a bug.
  for (const f of fingerprints) checkFingerprint(f);
  return fingerprintWords(BigUint64Array.from(fingerprints));
}

/** Splits one fingerprint into its unsigned high and low 32-bit words. @throws RangeError out of range. */
export function splitFingerprint(fingerprint: bigint): readonly [hi: number, lo: number] {
  checkFingerprint(fingerprint);
  return [Number(fingerprint >> 32n), Number(fingerprint & 0xffffffffn)];
}

/** Joins two unsigned 32-bit words into one fingerprint. */
export function joinFingerprint(hi: number, lo: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

function checkFingerprint(f: bigint): void {
  if (typeof f !== 'bigint' || f < 0n || f > U64_MAX) {
    throw new RangeError(`a fingerprint is an unsigned 64-bit bigint, got ${String(f)}`);
  }
}

/**
 * Mixes a fingerprint's two words into a well-spread int32 (multiply-xorshift). Fingerprints are
 * hashes already, but test data and hand-made ones often differ only in their low bits, and both
 * the hash set and the cache index by the low bits of this value.
 */
export function mixWords(hi: number, lo: number): number {
  let h = Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b) ^ lo;
  h = Math.imul(h ^ (h >>> 16), 0xc2b2ae35);
  return h ^ (h >>> 15);
}

/** The error every set throws when called outside its open life (see the Contract, Lifecycle). */
export function lifecycleError(setName: string, method: string, state: 'closed' | 'not started'): Error {
  const fix = state === 'closed' ? 'it cannot be used after close()' : 'call and await start() first';
  return new Error(`${setName}.${method}(): the seen set is ${state}; ${fix}`);
}
