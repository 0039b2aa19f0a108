/**
 * The sorted run of the disk URL-seen set (`disk-seen-set.ts`): a file of fingerprints in ascending
 * order, 8 bytes each (high and low word, little-endian), `run-<k>.fps`, and its sparse index,
 * `run-<k>.idx`: the first fingerprint of each block of {@link BLOCK_ENTRIES} (one 4 KiB read). A run
 * is written whole beside the old one (`.tmp` files), synced, then renamed in, index first, so that
 * a crash leaves either the old run or the new one, never a half.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { syncDirectory } from '../store/sync-dir.js';

/** Fingerprints per block of the run, and so per index entry: 4 KiB. */
export const BLOCK_ENTRIES = 512;
export const BLOCK_BYTES = BLOCK_ENTRIES * 8;
/** Fingerprints read or written at a time while merging (1 MiB). */
const MERGE_CHUNK_ENTRIES = 1 << 17;
const NAME = 'DiskSeenSet';
/** File names of the runs. */
export const RUN_RE = /^run-(\d+)\.fps$/;
export const runName = (g: number): string => `run-${String(g).padStart(6, '0')}.fps`;
export const indexName = (g: number): string => `run-${String(g).padStart(6, '0')}.idx`;

/** (h1, l1) < (h2, l2) as unsigned 64-bit numbers. */
export function below(h1: number, l1: number, h2: number, l2: number): boolean {
  return h1 < h2 || (h1 === h2 && l1 < l2);
}

/** An open sorted run and its sparse index. */
export class SortedRun {
  constructor(
    readonly generation: number,
    readonly fd: number,
    readonly count: number,
    readonly index: Uint32Array,
  ) {}

  /** Number of blocks. */
  get blocks(): number {
    return this.index.length >>> 1;
  }

  /** The block that would hold (hi, lo), or −1 when it sorts before the first fingerprint. */
  blockOf(hi: number, lo: number): number {
    const idx = this.index;
    let low = 0;
    let high = this.blocks - 1;
    let found = -1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const h = idx[2 * mid] as number;
      const l = idx[2 * mid + 1] as number;
      if (below(hi, lo, h, l)) high = mid - 1;
      else {
        found = mid;
        low = mid + 1;
      }
    }
    return found;
  }
}

/** Opens run `g` of `dir` and reads its index. @throws ShoalError `IO` when the two do not match. */
export function openSortedRun(dir: string, g: number): SortedRun {
  const fd = openSync(join(dir, runName(g)), 'r');
  const size = fstatSync(fd).size;
  const count = size / 8;
  const indexFd = openSync(join(dir, indexName(g)), 'r');
  try {
    const indexBytes = fstatSync(indexFd).size;
    const blocks = Math.ceil(count / BLOCK_ENTRIES);
    if (size % 8 !== 0 || indexBytes !== blocks * 8) {
      closeSync(fd);
      throw new ShoalError('IO', `${NAME}: ${runName(g)} in ${dir} (${size} bytes) does not match its index (${indexBytes} bytes)`);
    }
    const index = new Uint32Array(blocks * 2);
    if (indexBytes > 0) readSync(indexFd, Buffer.from(index.buffer), 0, indexBytes, 0);
    return new SortedRun(g, fd, count, index);
  } finally {
    closeSync(indexFd);
  }
}

/**
 * Writes run `next` in `dir`: the fingerprints of `run` (none when null) and `added` (sorted (hi, lo)
 * pairs, none of them in `run`; a repeat is written once) merged, 1 MiB at a time, with an await per
 * chunk so the crawl goes on meanwhile. Syncs both files, renames them in and syncs the directory.
 * The old run's files are the caller's to delete. @returns the new run, open.
 */
export async function writeMergedRun(dir: string, run: SortedRun | null, added: Uint32Array, next: number): Promise<SortedRun> {
  const tmp = join(dir, `${runName(next)}.tmp`);
  const tmpIndex = join(dir, `${indexName(next)}.tmp`);
  const total = (run?.count ?? 0) + (added.length >>> 1);
  const index = new Uint32Array(2 * Math.ceil(total / BLOCK_ENTRIES));
  let reader: FileHandle | null = null;
  const writer = await openFile(tmp, 'w');
  try {
    if (run !== null) reader = await openFile(join(dir, runName(run.generation)), 'r');
    const inWords = new Uint32Array(MERGE_CHUNK_ENTRIES * 2);
    const inBytes = Buffer.from(inWords.buffer);
    let inCount = 0;
    let inAt = 0;
    let readAt = 0;
    let runLeft = run?.count ?? 0;
    const refill = async (): Promise<void> => {
      const want = Math.min(MERGE_CHUNK_ENTRIES, runLeft);
      if (want === 0 || reader === null) {
        inCount = 0;
        inAt = 0;
        return;
      }
      const { bytesRead } = await reader.read(inBytes, 0, want * 8, readAt);
      if (bytesRead !== want * 8)
        throw new ShoalError('IO', `${NAME}: ${runName(run?.generation ?? 0)} in ${dir} is shorter than its index says`);
      readAt += bytesRead;
      runLeft -= want;
      inCount = want;
      inAt = 0;
    };
    await refill();
    const outWords = new Uint32Array(MERGE_CHUNK_ENTRIES * 2);
    let outCount = 0;
    let written = 0;
    let a = 0;
    const addedCount = added.length >>> 1;
    // Runs synchronously from one chunk boundary to the next: an await per output or input chunk only.
    while (inCount > 0 || a < addedCount) {
      if (inAt === inCount && inCount > 0) {
        await refill();
        continue;
      }
      let hi: number;
      let lo: number;
      const hasRun = inAt < inCount;
      if (hasRun && a < addedCount) {
        const rh = inWords[2 * inAt] as number;
        const rl = inWords[2 * inAt + 1] as number;
        const ah = added[2 * a] as number;
        const al = added[2 * a + 1] as number;
        if (below(rh, rl, ah, al)) {
          hi = rh;
          lo = rl;
          inAt++;
        } else {
          hi = ah;
          lo = al;
          a++;
          if (rh === ah && rl === al) inAt++;
        }
      } else if (hasRun) {
        hi = inWords[2 * inAt] as number;
        lo = inWords[2 * inAt + 1] as number;
        inAt++;
      } else {
        hi = added[2 * a] as number;
        lo = added[2 * a + 1] as number;
        a++;
      }
      const at = written + outCount;
      if (at % BLOCK_ENTRIES === 0) {
        index[2 * (at / BLOCK_ENTRIES)] = hi;
        index[2 * (at / BLOCK_ENTRIES) + 1] = lo;
      }
      outWords[2 * outCount] = hi;
      outWords[2 * outCount + 1] = lo;
      if (++outCount === MERGE_CHUNK_ENTRIES) {
        await writer.write(Buffer.from(outWords.buffer, 0, outCount * 8), 0, outCount * 8, written * 8);
        written += outCount;
        outCount = 0;
      }
    }
    if (outCount > 0) await writer.write(Buffer.from(outWords.buffer, 0, outCount * 8), 0, outCount * 8, written * 8);
    written += outCount;
    await writer.datasync();
    const usedIndex = index.subarray(0, 2 * Math.ceil(written / BLOCK_ENTRIES));
    const indexHandle = await openFile(tmpIndex, 'w');
    try {
      await indexHandle.write(Buffer.from(usedIndex.buffer, usedIndex.byteOffset, usedIndex.byteLength));
      await indexHandle.datasync();
    } finally {
      await indexHandle.close();
    }
    // The index first: a run file without its index is not complete (recovery ignores it).
    renameSync(tmpIndex, join(dir, indexName(next)));
    renameSync(tmp, join(dir, runName(next)));
    syncDirectory(dir);
    return new SortedRun(next, openSync(join(dir, runName(next)), 'r'), written, usedIndex.slice());
  } finally {
    await reader?.close();
    await writer.close();
  }
}
