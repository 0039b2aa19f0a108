/**
 * The URL-seen test of a node whose frontier is crash-safe: a fingerprint goes to the durable set
 * (`seen/disk-seen-set.ts`) only once the frontier holds its URL durably, at a checkpoint. Until then it is *staged* in
 * memory, where it still answers "seen" for this run.
 *
 * Why: the seen set and the frontier are two stores that reach the disk each at its own time, the frontier at
 * its flush; if a fingerprint reached the disk while its frontier entry did not, a crash would leave a
 * URL that is "seen" and queued nowhere: lost, since its page's links, found again after the restart,
 * would be dropped by the seen test. Staged, a URL lost from the frontier is lost from the seen set
 * too, and is queued again when the page that links to it is fetched again.
 *
 * Checkpoint protocol (checkpoint.ts): {@link StagedSeenSet.seal} the fingerprints staged so far,
 * let the admissions under way finish (their URLs reach the frontier), flush the frontier, then
 * {@link StagedSeenSet.promote} the sealed fingerprints into the durable set and flush it.
 */
import { MemorySeenSet } from '../../seen/memory-seen-set.js';
import { WORD_OFFSET, fingerprintWords, lifecycleError, type Fingerprints, type SeenSet, type SeenSetSpec } from '../../seen/seen-set.js';

/** A durable set that can test without inserting (`DiskSeenSet`). */
export interface DurableSeenSet extends SeenSet {
  /** `r[i] === 1` when `f[i]` is in the set; inserts nothing. */
  hasBatch(fingerprints: Fingerprints): Promise<Uint8Array>;
}

const { hi: HI, lo: LO } = WORD_OFFSET;
const NAME = 'StagedSeenSet';

/** Fingerprints staged in memory: a set to answer, and a list to promote in order. */
class Stage {
  readonly set = new MemorySeenSet();
  readonly words: number[] = [];

  add(hi: number, lo: number): boolean {
    if (!this.set.addWords(hi, lo)) return false;
    this.words.push(hi, lo);
    return true;
  }

  fingerprints(): BigUint64Array {
    const out = new BigUint64Array(this.words.length / 2);
    const w = new Uint32Array(out.buffer);
    for (let i = 0; i < out.length; i++) {
      w[2 * i + HI] = this.words[2 * i] as number;
      w[2 * i + LO] = this.words[2 * i + 1] as number;
    }
    return out;
  }
}

/** {@link SeenSet} over a durable set, with staging; see the file comment. */
export class StagedSeenSet implements SeenSet {
  readonly spec: SeenSetSpec;
  /**
   * False for the SeenSet contract: its `flush()` and `close()` make nothing durable. Fingerprints
   * reach the durable set only through {@link seal} and {@link promote}, at a frontier checkpoint.
   */
  readonly isDurable = false;
  private staged = new Stage();
  private sealed: Stage | null = null;
  /** Settles after the last call made so far (see {@link inOrder}). */
  private tail: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | null = null;

  constructor(private readonly durable: DurableSeenSet) {
    this.spec = { id: 'staged', params: { durable: durable.spec.id } };
  }

  /** Fingerprints on disk plus those staged. */
  get size(): number {
    return this.durable.size + this.staged.words.length / 2 + (this.sealed?.words.length ?? 0) / 2;
  }

  /** Fingerprints waiting for a checkpoint. */
  get stagedCount(): number {
    return (this.staged.words.length + (this.sealed?.words.length ?? 0)) / 2;
  }

  start(): Promise<void> {
    if (this.closing !== null) return Promise.reject(lifecycleError(NAME, 'start', 'closed'));
    return this.durable.start();
  }

  /**
   * Runs after every call made before it: the durable set answers `hasBatch` asynchronously, so
   * without the chain a `has` or `addBatch` made after an `addBatch` of the same fingerprint
   * could answer before that batch is staged (the Contract's *Ordering*).
   */
  private inOrder<T>(method: string, work: () => Promise<T>): Promise<T> {
    if (this.closing !== null) return Promise.reject(lifecycleError(NAME, method, 'closed'));
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  addBatch(fingerprints: Fingerprints): Promise<Uint8Array> {
    let words: Uint32Array;
    try {
      // Checked and copied now: the caller may reuse its array once the call is made.
      words = fingerprintWords(fingerprints).slice();
    } catch (err) {
      return Promise.reject(err);
    }
    const copy = new BigUint64Array(words.buffer, 0, words.length / 2);
    return this.inOrder('addBatch', async () => {
      const onDisk = await this.durable.hasBatch(copy);
      // From here on synchronous: staging and answering happen in one step per batch.
      const out = new Uint8Array(onDisk.length);
      for (let i = 0; i < out.length; i++) {
        if (onDisk[i] === 1) continue;
        const hi = words[2 * i + HI] as number;
        const lo = words[2 * i + LO] as number;
        if (this.sealed?.set.hasWords(hi, lo) === true) continue;
        out[i] = this.staged.add(hi, lo) ? 1 : 0;
      }
      return out;
    });
  }

  has(fingerprint: bigint): Promise<boolean> {
    let words: Uint32Array;
    try {
      words = fingerprintWords([fingerprint]);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.inOrder('has', async () => {
      const hi = words[HI] as number;
      const lo = words[LO] as number;
      if (this.staged.set.hasWords(hi, lo) || this.sealed?.set.hasWords(hi, lo) === true) return true;
      return this.durable.has(fingerprint);
    });
  }

  /** Checkpoint, step 1: what was staged so far is what the next {@link promote} writes. */
  seal(): void {
    const sealed = this.sealed;
    if (sealed === null) {
      this.sealed = this.staged;
    } else {
      // A checkpoint failed before its promotion: its fingerprints wait for this one.
      const w = this.staged.words;
      for (let i = 0; i < w.length; i += 2) sealed.add(w[i] as number, w[i + 1] as number);
    }
    this.staged = new Stage();
  }

  /** Checkpoint, last step (after the frontier's flush): writes the sealed fingerprints to the durable set and flushes it. */
  async promote(): Promise<void> {
    const sealed = this.sealed;
    if (sealed === null) return;
    if (sealed.words.length > 0) await this.durable.addBatch(sealed.fingerprints());
    await this.durable.flush();
    this.sealed = null;
  }

  /** Flushes the durable set only: staged fingerprints wait for a checkpoint (see the file comment). */
  flush(): Promise<void> {
    return this.inOrder('flush', () => this.durable.flush());
  }

  /** Closes the durable set; what is still staged is dropped on purpose (its frontier entries may not be durable). */
  close(): Promise<void> {
    this.closing ??= this.tail.then(() => this.durable.close());
    return this.closing;
  }
}
