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
 */
import { join } from 'node:path';
import { AppendFile } from '../../store/append-file.js';
import { readLines } from '../../store/read-lines.js';
import type { KeptPage } from '../stages/near-duplicates.js';

/** The file's name in the crawl directory's `state/`. */
export const SHARED_SIMHASHES_FILE = 'shared-simhashes.tsv';

const LINE = /^([0-9a-f]{16})\t(https?:\/\/[^\x00-\x20\x7f]+)$/;

/** See the file comment. Lifecycle: `open()` (yields what earlier runs wrote), `append`, `flush`, `close`. */
export class SharedSimHashes {
  private readonly file: AppendFile;

  constructor(stateDir: string) {
    this.file = new AppendFile({
      path: join(stateDir, SHARED_SIMHASHES_FILE),
      framing: { kind: 'lines' },
      isValidRecord: (record) => LINE.test(record.toString('utf8')),
    });
  }

  /**
   * Creates the file or repairs its tail, then yields the pages of its lines, oldest first, as the
   * near-duplicate index restores them (a line that does not parse is skipped).
   */
  async *open(): AsyncGenerator<KeptPage> {
    await this.file.start();
    for await (const { text } of readLines(this.file.path)) {
      const m = LINE.exec(text);
      if (m !== null) yield { url: m[2] as string, simhash: m[1] as string, nearDuplicateOf: null };
    }
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
