/**
 * The first captures of a crawl's content digests on disk (`state/dedup/`, an LMDB environment), so
 * that a resumed crawl still recognises a page it fetched before a stop or a crash: a copy met after
 * the restart is written as a `revisit` record pointing at the capture in an earlier run's WARC file.
 *
 * Only captures whose response record is durable may be written here (the checkpoint writes them
 * after the WARC files are fsynced; see dedup-index.ts): a revisit must never point at a record a
 * crash cut from the WARC tail. A capture lost in a crash costs at most a full response record
 * where a revisit would have done.
 *
 * Key: the content digest (`sha1:BASE32`, bytes); value: `[url, payloadDigest, recordId, warcDate]`.
 */
import { open, type RootDatabase } from 'lmdb';
import { ShoalError } from '../core/errors.js';
import type { FirstCapture } from './dedup-index.js';

type Value = [url: string, payloadDigest: string, recordId: string, warcDate: string];

/** The durable first captures; see the file comment. Lifecycle: `open()`, `get`/`putAll`, `close()`. */
export class LmdbDedupStore {
  private db: RootDatabase<Value, string> | null = null;

  constructor(private readonly dir: string) {}

  /** Opens (or creates) the store. */
  open(): Promise<void> {
    try {
      this.db = open<Value, string>(this.dir, { noSubdir: false, encoding: 'msgpack' });
    } catch (err) {
      return Promise.reject(new ShoalError('IO', `cannot open the duplicate index in ${this.dir}`, { cause: err }));
    }
    return Promise.resolve();
  }

  /** Captures stored. */
  get size(): number {
    return this.db === null ? 0 : ((this.db.getStats() as { entryCount?: number }).entryCount ?? 0);
  }

  /** The stored first capture of `contentDigest`, if any. */
  get(contentDigest: string): FirstCapture | undefined {
    const v = this.db?.get(contentDigest);
    if (v === undefined) return undefined;
    const [url, payloadDigest, recordId, warcDate] = v;
    return { url, payloadDigest, recordId, warcDate };
  }

  /** Stores captures (a first capture is never replaced) and makes them durable. */
  async putAll(captures: readonly (readonly [string, FirstCapture])[]): Promise<void> {
    const db = this.db;
    if (db === null || captures.length === 0) return;
    try {
      await db.transaction(() => {
        for (const [digest, c] of captures) {
          if (db.get(digest) === undefined) void db.put(digest, [c.url, c.payloadDigest, c.recordId, c.warcDate]);
        }
      });
      await db.flushed;
    } catch (err) {
      throw new ShoalError('IO', `cannot write the duplicate index in ${this.dir}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    const db = this.db;
    this.db = null;
    await db?.close();
  }
}
