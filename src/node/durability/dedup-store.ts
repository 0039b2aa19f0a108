/**
 * The first captures of a crawl's content digests on disk (`state/dedup/captures.jsonl`), so that a
 * resumed crawl still recognises a page it fetched before a stop or a crash: a copy met after the
 * restart is written as a `revisit` record pointing at the capture in an earlier run's WARC file.
 *
 * Only captures whose response record is durable may be written here (the checkpoint writes them
 * after the WARC files are fsynced; see dedup-index.ts): a revisit must never point at a record a
 * crash cut from the WARC tail. A capture lost in a crash costs at most a full response record
 * where a revisit would have done.
 *
 * A JSON-lines log, appended at checkpoints. On `open` the newest `maxDigests` captures are read
 * back (the in-memory index of dedup-index.ts remembers as many within a run, least recently seen
 * dropped first, so a resumed crawl knows what an uninterrupted one would); `get` hands each to the
 * index once. Nothing is memory-mapped and nothing grows with the log but its size on disk.
 */
import { join } from 'node:path';
import { ShoalError } from '../../core/errors.js';
import { Checks, JsonLinesWriter, readJsonLines, type RecordShape } from '../../store/json-lines.js';
import { packCapture, unpackCapture, type DedupStore, type FirstCapture } from './dedup-index.js';

/** The log's file name in the store's directory. */
const CAPTURES_FILE = 'captures.jsonl';

/** One line of the log. */
interface CaptureLine extends FirstCapture {
  readonly contentDigest: string;
}

const SHAPE: RecordShape<CaptureLine> = {
  contentDigest: Checks.nonEmptyString,
  url: Checks.nonEmptyString,
  payloadDigest: Checks.string,
  recordId: Checks.nonEmptyString,
  warcDate: Checks.nonEmptyString,
};

/** The durable first captures; see the file comment. Lifecycle: `open()`, `get`/`putAll`, `close()`. */
export class LogDedupStore implements DedupStore {
  private readonly path: string;
  private writer: JsonLinesWriter<CaptureLine> | null = null;
  /** Captures read back at open and not handed to the index yet, packed (dedup-index.ts). */
  private readonly loaded = new Map<string, string>();

  /** @param maxDigests how many of the newest captures `open` reads back. */
  constructor(
    dir: string,
    private readonly maxDigests: number,
  ) {
    this.path = join(dir, CAPTURES_FILE);
  }

  /** Opens (or creates) the log, repairs a torn last line, reads back the newest captures. */
  async open(): Promise<void> {
    const writer = new JsonLinesWriter<CaptureLine>(this.path, 'first capture', SHAPE);
    try {
      const { isNew } = await writer.start();
      if (!isNew && this.maxDigests > 0) {
        for await (const c of readJsonLines(this.path, 'first capture', SHAPE)) {
          this.loaded.delete(c.contentDigest);
          this.loaded.set(c.contentDigest, packCapture(c));
          if (this.loaded.size > this.maxDigests) this.loaded.delete(this.loaded.keys().next().value as string);
        }
      }
    } catch (err) {
      await writer.close().catch(() => undefined);
      throw err instanceof ShoalError
        ? err
        : new ShoalError('IO', `cannot open the duplicate index ${this.path}: ${(err as Error).message}`, { cause: err });
    }
    this.writer = writer;
  }

  /** Captures read back at open and not handed out yet. */
  get size(): number {
    return this.loaded.size;
  }

  /** The stored first capture of `contentDigest`, handed out once (the index keeps it from then on). */
  get(contentDigest: string): FirstCapture | undefined {
    const hit = this.loaded.get(contentDigest);
    if (hit === undefined) return undefined;
    this.loaded.delete(contentDigest);
    return unpackCapture(hit);
  }

  /** Appends captures and makes them durable. */
  async putAll(captures: readonly (readonly [string, FirstCapture])[]): Promise<void> {
    const writer = this.writer;
    if (writer === null || captures.length === 0) return;
    for (const [contentDigest, c] of captures) writer.append({ contentDigest, ...c });
    await writer.flush();
  }

  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    this.loaded.clear();
    await writer?.close();
  }
}
