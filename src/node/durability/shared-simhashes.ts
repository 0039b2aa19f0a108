/**
 * `state/shared-simhashes.tsv`: the fingerprints other nodes shared with this one
 * (`../collaboration/simhash-sharing.ts`), so that a restarted node still finds copies of the pages
 * other nodes kept before the restart. One line per fingerprint added to the near-duplicate index,
 * `<16 hex digits>\t<URL>`, in the order they were added.
 *
 * Durability follows the deliveries that brought them: lines are appended as the inbox adds them,
 * and the checkpoint syncs the file after the deliveries it will acknowledge are processed and before
 * it acknowledges them. A line lost in a crash therefore belongs to a delivery that was not
 * acknowledged, and comes again; a line written for a delivery that then comes again is not written
 * twice (the index, restored from this file, holds the pair and adds nothing).
 *
 * On open the file's torn tail is cut and its lines are read back after the node's own pages
 * (`kept-pages.ts`): within the newest `maxFingerprints` the index then knows what it knew, though
 * its own and the shared pages no longer interleave as they arrived (which only decides the oldest
 * of two at the same distance, and which goes first past `maxFingerprints`).
 *
 * The index never holds more than the newest `keepLines` (its `maxFingerprints`) of these lines, so
 * once the file holds more than twice that, `open` rewrites it with the newest `keepLines` only: a
 * copy written beside it, synced, then renamed over it, so a crash leaves one whole file or the
 * other. The file thus stays within about twice what the index can hold, however long the crawl.
 */
import { createReadStream, createWriteStream, fsyncSync, openSync, closeSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppendFile } from '../../store/append-file.js';
import { readLines } from '../../store/read-lines.js';
import { syncDirectory } from '../../store/sync-dir.js';
import type { KeptPage } from '../stages/near-duplicates.js';

/** The file's name in the crawl directory's `state/`. */
export const SHARED_SIMHASHES_FILE = 'shared-simhashes.tsv';

const LINE = /^([0-9a-f]{16})\t(https?:\/\/[^\x00-\x20\x7f]+)$/;

/** See the file comment. Lifecycle: `open()` (yields what earlier runs wrote), `append`, `flush`, `close`. */
export class SharedSimHashes {
  private file: AppendFile;
  private readonly path: string;

  /** `keepLines`: the lines the index can hold (`dedup.near.maxFingerprints`); no rewrite without it. */
  constructor(
    stateDir: string,
    private readonly keepLines = Number.POSITIVE_INFINITY,
  ) {
    this.path = join(stateDir, SHARED_SIMHASHES_FILE);
    this.file = SharedSimHashes.appendFile(this.path);
  }

  private static appendFile(path: string): AppendFile {
    return new AppendFile({ path, framing: { kind: 'lines' }, isValidRecord: (record) => LINE.test(record.toString('utf8')) });
  }

  /**
   * Creates the file or repairs its tail, then yields the pages of its lines, oldest first, as the
   * near-duplicate index restores them (a line that does not parse is skipped); rewrites the file
   * with its newest `keepLines` lines when it holds more than twice as many (see the file comment).
   */
  async *open(): AsyncGenerator<KeptPage> {
    await this.file.start();
    const keep = this.keepLines;
    // Where each of the newest `keep` lines starts, in a ring: the rewrite copies from the oldest.
    const starts = Number.isFinite(keep) && keep > 0 ? new Float64Array(keep) : null;
    let lines = 0;
    for await (const { text, offset } of readLines(this.path)) {
      if (starts !== null) starts[lines % keep] = offset;
      lines++;
      const m = LINE.exec(text);
      if (m !== null) yield { url: m[2] as string, simhash: m[1] as string, nearDuplicateOf: null };
    }
    if (starts !== null && lines > 2 * keep) await this.rewriteFrom(starts[lines % keep] as number);
  }

  /** Replaces the file by its lines from byte `from` on: a copy beside it, synced, renamed over it. */
  private async rewriteFrom(from: number): Promise<void> {
    await this.file.close();
    const copy = `${this.path}.rewrite`;
    await pipeline(createReadStream(this.path, { start: from }), createWriteStream(copy));
    const fd = openSync(copy, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(copy, this.path);
    syncDirectory(dirname(this.path));
    this.file = SharedSimHashes.appendFile(this.path);
    await this.file.start();
  }

  /** Appends a fingerprint (two unsigned 32-bit words, high first) added to the index. */
  append(url: string, hi: number, lo: number): void {
    this.file.append(`${(hi >>> 0).toString(16).padStart(8, '0')}${(lo >>> 0).toString(16).padStart(8, '0')}\t${url}\n`);
  }

  /** Makes every line appended so far durable. */
  flush(): Promise<void> {
    return this.file.flush();
  }

  /** Flushes and closes; idempotent. */
  close(): Promise<void> {
    return this.file.close();
  }
}
