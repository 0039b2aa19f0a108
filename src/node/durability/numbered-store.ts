/**
 * The counts of endless numbered spaces (src/url/numbered-spaces.ts) across runs: `state/numbered.json`,
 * written at a checkpoint when they changed (after the frontier flush: a numbered sibling counted is
 * then in the frontier on disk, or was rejected), read back when the crawl resumes, so that a crawl
 * restarted many times still follows an endless pagination only to its bound.
 */
import { readStateFile, writeStateFile } from '../../store/state-file.js';
import { NumberedSpaces, type NumberedSpacesSnapshot } from '../../url/numbered-spaces.js';

/** The counts with their file. */
export class NumberedStore {
  private constructor(
    private readonly path: string,
    readonly spaces: NumberedSpaces,
  ) {}

  /**
   * The counts of `path` (none when it does not exist) under the bound `maxUrls`.
   * @throws ShoalError `IO` when the file exists but cannot be read or parsed.
   */
  static open(path: string, maxUrls: number): NumberedStore {
    return new NumberedStore(path, new NumberedSpaces(maxUrls, undefined, readSnapshot(path)));
  }

  /** Writes the counts durably when they changed since the last write (state-file.ts). */
  persist(): Promise<void> {
    if (!this.spaces.isChanged) return Promise.resolve();
    try {
      writeStateFile(this.path, this.spaces.snapshot(), 'the counts of numbered spaces');
    } catch (err) {
      return Promise.reject(err);
    }
    return Promise.resolve();
  }
}

function readSnapshot(path: string): NumberedSpacesSnapshot | undefined {
  return (
    readStateFile(path, 'the counts of numbered spaces', (v) => {
      const isRow = (r: unknown): boolean =>
        Array.isArray(r) &&
        r.length === 4 &&
        typeof r[0] === 'string' &&
        typeof r[1] === 'string' &&
        Number.isSafeInteger(r[2]) &&
        Number.isSafeInteger(r[3]);
      if (!Array.isArray(v) || !v.every(isRow)) throw new Error('not a list of [host, form, admitted, cut]');
      return v as NumberedSpacesSnapshot;
    }) ?? undefined
  );
}
