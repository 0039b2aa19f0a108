/**
 * The crawl directory (SPEC §1): where a node keeps everything it writes, and the lock that keeps a
 * second process from writing into it at the same time (two writers would interleave WARC records).
 *
 *     <out>/warc/            WARC files (<node>-<time>-<serial>.warc.gz) and index.cdxj
 *     <out>/state/seen/      the URL-seen set (LMDB)
 *     <out>/state/frontier/  the persistent frontier (LMDB)
 *     <out>/state/dedup/     first captures of content digests (LMDB), for revisits across runs
 *     <out>/state/lock       pid of the process crawling into the directory
 *     <out>/state/budget.json  pages per host and bytes counted so far (only with a budget set)
 *     <out>/crawl-log.jsonl, pages.jsonl, links/   the crawl log, page metadata, link graph (src/store/)
 *     <out>/logs/node.jsonl  structured log lines
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';

/** The paths of a crawl directory. */
export interface CrawlDirLayout {
  readonly root: string;
  readonly warc: string;
  readonly state: string;
  readonly seen: string;
  readonly frontier: string;
  readonly dedup: string;
  readonly lock: string;
  readonly budget: string;
  /** The exchange's outbox (collaborative crawls): messages sent and not yet confirmed. */
  readonly outbox: string;
  readonly log: string;
}

/** The layout under `root`. */
export function crawlDirLayout(root: string): CrawlDirLayout {
  const state = join(root, 'state');
  return {
    root, warc: join(root, 'warc'), state, seen: join(state, 'seen'), frontier: join(state, 'frontier'), dedup: join(state, 'dedup'), lock: join(state, 'lock'), budget: join(state, 'budget.json'),
    outbox: join(state, 'outbox'), log: join(root, 'logs', 'node.jsonl'),
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the directory's lock: creates `state/lock` holding our pid. A lock left by a process that is
 * gone (killed with `kill -9`) is taken over.
 * @returns a function that releases the lock (idempotent).
 * @throws ShoalError `IO` when another live process holds the lock or the directory is not writable.
 */
export function lockCrawlDir(layout: CrawlDirLayout): () => void {
  try {
    mkdirSync(layout.state, { recursive: true });
  } catch (err) {
    throw new ShoalError('IO', `cannot create the crawl directory ${layout.root}: ${(err as Error).message}`, { cause: err });
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(layout.lock, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ShoalError('IO', `cannot lock the crawl directory ${layout.root}: ${(err as Error).message}`, { cause: err });
      }
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(layout.lock, 'utf8').trim());
      } catch {
        // Removed meanwhile, or unreadable: try to take it below.
      }
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
        throw new ShoalError('IO', `another crawl (pid ${holder}) is writing into ${layout.root}; stop it first or choose another --out`);
      }
      rmSync(layout.lock, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    let isReleased = false;
    return () => {
      if (isReleased) return;
      isReleased = true;
      rmSync(layout.lock, { force: true });
    };
  }
  throw new ShoalError('IO', `cannot lock the crawl directory ${layout.root}: the lock file keeps reappearing`);
}
