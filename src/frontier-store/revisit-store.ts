/**
 * The revisit schedule of a re-crawl (SPEC §2 item 12): for every page fetched, when it is due
 * again and what the crawl knows of its last capture (validators for a conditional GET, the payload
 * digest that tells a change, the record a `revisit` record refers to, the change history the next
 * interval is estimated from). It lives beside the frontier's log, in `revisits.jsonl` of the
 * frontier's directory, one JSON line per scheduling, the last line of a URL winning.
 *
 * ## Contract
 *
 * - `set` replaces a URL's state in memory and writes its line to the file (to the kernel); `flush`
 *   fdatasyncs the file. A checkpoint flushes this store *before* the frontier: a page's next visit
 *   is durable before its completion is, so a crash never loses a schedule (it may keep an older one,
 *   and then the page is visited once more than needed).
 * - Handing a due revisit to the frontier writes nothing: after a restart every schedule is armed
 *   again, and a due one is offered to the frontier, which refuses it if it holds the URL already.
 * - `open` reads the file, ignores a torn last line, and rewrites the file (to a temporary name,
 *   fsynced, renamed, directory fsynced) when it holds more than twice as many lines as URLs.
 * - Times are wall-clock milliseconds: they outlive the process, unlike the monotonic clock.
 * - Without a directory the store is memory only (a crawl with a memory frontier).
 */
import { closeSync, existsSync, fdatasyncSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from '../store/sync-dir.js';
import type { ChangeHistory } from '../frontier/change-rate.js';

/** The file's name in the frontier's directory. */
export const REVISITS_FILE = 'revisits.jsonl';

/** The last capture of a page, as a `revisit` record refers to it. */
export interface LastCapture {
  /** `WARC-Record-ID` of the response record. */
  readonly recordId: string;
  /** Its `WARC-Date`. */
  readonly warcDate: string;
  /** Its target URI (another URL's when the page was a duplicate). */
  readonly url: string;
}

/** One page's schedule and what its last visit found. Immutable. */
export interface RevisitState {
  readonly url: string;
  readonly host: string;
  readonly depth: number;
  /** When the page is due again, wall-clock ms. */
  readonly dueWallMs: number;
  /** When it was last fetched (a 2xx or a 304), wall-clock ms. */
  readonly visitedWallMs: number;
  readonly history: ChangeHistory;
  /** `sha1:BASE32` of the last payload as received (what a revisit record names). */
  readonly payloadDigest: string;
  /** Digest of the last decoded body: a different one on the next visit is a change. */
  readonly contentDigest: string;
  /** Validators of the last 2xx, for If-None-Match and If-Modified-Since. */
  readonly etag: string | null;
  readonly lastModified: string | null;
  /** The record the last payload lies in; null when it was not archived. */
  readonly capture: LastCapture | null;
  /**
   * The page's link set as last followed (`src/node/stages/revisit-links.ts`: its distinct link
   * targets' fingerprints, base64), so that a changed page offers only its new links; absent when
   * its links were never followed, or in a line of an older shoal.
   */
  readonly links?: string;
}

/** The revisit schedule; see the file comment. */
export class RevisitStore {
  private readonly states = new Map<string, RevisitState>();
  private isDirty = false;
  private fd: number | null = null;
  private lines = 0;

  /** @param dir the frontier's directory, or null for a store in memory only. */
  constructor(private readonly dir: string | null) {}

  /** Reads the schedule a previous run left (nothing without a directory). */
  open(): Promise<void> {
    if (this.dir === null) return Promise.resolve();
    const path = join(this.dir, REVISITS_FILE);
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (line === '') continue;
        let state: RevisitState;
        try {
          state = JSON.parse(line) as RevisitState;
        } catch {
          continue; // a line torn by a crash: the last one, written after the last checkpoint
        }
        this.states.set(state.url, state);
        this.lines++;
      }
    }
    if (this.lines > 2 * this.states.size + 1000) this.rewrite(path);
    this.fd = openSync(path, 'a');
    return Promise.resolve();
  }

  /** The URLs scheduled. */
  get size(): number {
    return this.states.size;
  }

  get(url: string): RevisitState | undefined {
    return this.states.get(url);
  }

  /** Every schedule (a resumed run arms them all). */
  all(): IterableIterator<RevisitState> {
    return this.states.values();
  }

  /**
   * Replaces the URL's state. Its line reaches the kernel now (a process killed after this keeps it,
   * as the crawl log it is written beside), the disk at the next {@link flush}.
   */
  set(state: RevisitState): void {
    this.states.set(state.url, state);
    if (this.fd === null) return;
    writeSync(this.fd, `${JSON.stringify(state)}\n`);
    this.lines++;
    this.isDirty = true;
  }

  /** Makes the lines written so far durable. */
  flush(): Promise<void> {
    if (this.fd === null || !this.isDirty) return Promise.resolve();
    this.isDirty = false;
    fdatasyncSync(this.fd);
    return Promise.resolve();
  }

  /** Flushes and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (this.fd === null) return;
    await this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private rewrite(path: string): void {
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      const all = [...this.states.values()].map((s) => JSON.stringify(s));
      if (all.length > 0) writeSync(fd, `${all.join('\n')}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    syncDirectory(this.dir as string);
    this.lines = this.states.size;
  }
}
