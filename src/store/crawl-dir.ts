/**
 * The crawl directory (SPEC §1): where a node keeps everything it writes, and the lock that keeps a
 * second process from writing into it at the same time (two writers would interleave WARC records).
 *
 *     <out>/warc/            WARC files (<node>-<time>-<serial>.warc.gz) and index.cdxj
 *     <out>/state/seen/      the URL-seen set
 *     <out>/state/frontier/  the persistent frontier
 *     <out>/state/dedup/     first captures of content digests, for revisits across runs
 *     <out>/state/lock       the directory's lock (flock), with the pid of its holder for the message
 *     <out>/state/budget.json  pages fetched, pages per host and bytes counted so far, and the crawl
 *                            log's offset they were counted to (crash recovery reads from there)
 *     <out>/state/numbered.json  URLs admitted per endless numbered space (the trap bound)
 *     <out>/state/shared-simhashes.tsv  fingerprints other nodes shared, for near-duplicates across runs
 *     <out>/crawl-log.jsonl, pages.jsonl, links/   the crawl log, page metadata, link graph (src/store/)
 *     <out>/logs/node.jsonl  structured log lines
 *
 * **The lock** is an advisory kernel lock on `state/lock` (through `fs-native-extensions`: an
 * open-file-description lock, `fcntl(F_OFD_SETLK)`, on Linux; `flock` on macOS). The kernel releases
 * it when the holder's file descriptor is closed, which happens however the process ends, `kill -9`
 * included, before its parent has even reaped it. So a supervisor that restarts a killed crawl at
 * once is never refused, and two live processes are never both let in; no pid is ever checked. The
 * pid written into the file is only there to name the holder in the refusal. The file stays after
 * release: removing it would let a third process lock a fresh file while a second one still waits on
 * the old one. The lock belongs to the open file, not the process, so two nodes of one process (an
 * embedded crawl, in any thread) that point at the same directory are refused like two processes.
 *
 * A killed process gives its files back a moment after it is killed (while its threads are torn
 * down): a lock found held is asked again for up to {@link LOCK_WAIT_MS} before the crawl is refused.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';
import { ConfigError, ShoalError } from '../core/errors.js';
import type { PartitionerSpec } from '../partition/partitioner.js';

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
  readonly numbered: string;
  /** The exchange's outbox (collaborative crawls): messages sent and not yet confirmed. */
  readonly outbox: string;
  readonly log: string;
}

/** The layout under `root`. */
export function crawlDirLayout(root: string): CrawlDirLayout {
  const state = join(root, 'state');
  return {
    root,
    warc: join(root, 'warc'),
    state,
    seen: join(state, 'seen'),
    frontier: join(state, 'frontier'),
    dedup: join(state, 'dedup'),
    lock: join(state, 'lock'),
    budget: join(state, 'budget.json'),
    numbered: join(state, 'numbered.json'),
    outbox: join(state, 'outbox'),
    log: join(root, 'logs', 'node.jsonl'),
  };
}

/** A held crawl-directory lock. */
export interface CrawlDirLock {
  /** The directory it holds. */
  readonly root: string;
  /** Releases the lock (idempotent). */
  release(): void;
}

/** How long a lock found held is asked for again before the crawl is refused, ms (see the file comment). */
export const LOCK_WAIT_MS = 2000;
const LOCK_RETRY_MS = 50;

/** Blocks the thread for `ms` (only while a held lock is waited for, at start-up). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Takes the lock on `fd`, asking again for up to {@link LOCK_WAIT_MS}; false when it stays held. */
function takeLock(fd: number): boolean {
  for (let waited = 0; ; waited += LOCK_RETRY_MS) {
    if (tryLock(fd)) return true;
    if (waited >= LOCK_WAIT_MS) return false;
    pause(LOCK_RETRY_MS);
  }
}

/** The pid another process wrote into the lock file, or null. */
function holderOf(path: string): number | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Makes `root` (and its `state/`) a directory, or says clearly why it cannot be one.
 * @throws ConfigError `USAGE` when `root` or a parent is a file; ShoalError `IO` when it cannot be created.
 */
function ensureDirectory(layout: CrawlDirLayout): void {
  try {
    mkdirSync(layout.state, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') {
      const isFile = (() => {
        try {
          return !statSync(layout.root).isDirectory();
        } catch {
          return false;
        }
      })();
      throw new ConfigError(
        [
          {
            path: 'store.outDir',
            message: isFile
              ? `${layout.root} is a file, not a crawl directory`
              : `${layout.root} cannot be a directory: a part of its path is a file`,
          },
        ],
        { cause: err, code: 'USAGE' },
      );
    }
    throw new ShoalError('IO', `cannot create the crawl directory ${layout.root}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Takes the directory's lock (see the file comment), creating the directory if needed. Nothing else
 * of the crawl should open or start before it: a refused crawl then has nothing to undo.
 * @throws ShoalError `CRAWL_DIR_LOCKED` when another crawl holds it; ConfigError `USAGE` when `root` is
 *   a file; ShoalError `IO` when the directory cannot be created or locked.
 */
export function lockCrawlDir(layout: CrawlDirLayout): CrawlDirLock {
  ensureDirectory(layout);
  let fd: number;
  try {
    // 'a+': create if missing, never truncate (the holder's pid stays readable).
    fd = openSync(layout.lock, 'a+');
  } catch (err) {
    throw new ShoalError('IO', `cannot lock the crawl directory ${layout.root}: ${(err as Error).message}`, { cause: err });
  }
  let isLocked: boolean;
  try {
    isLocked = takeLock(fd);
  } catch (err) {
    closeSync(fd);
    throw new ShoalError('IO', `cannot lock the crawl directory ${layout.root}: ${(err as Error).message}`, { cause: err });
  }
  if (!isLocked) {
    closeSync(fd);
    const pid = holderOf(layout.lock);
    throw new ShoalError(
      'CRAWL_DIR_LOCKED',
      `another crawl${pid === null ? '' : ` (pid ${pid})`} is writing into ${layout.root}; stop it first or choose another --out`,
    );
  }
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, `${process.pid}\n`, 0);
  } catch {
    // The pid is only for the message of a refused crawl; the lock itself is held.
  }
  let isReleased = false;
  return {
    root: layout.root,
    release: () => {
      if (isReleased) return;
      isReleased = true;
      // Closing the descriptor releases the lock; the file stays (see the file comment).
      closeSync(fd);
    },
  };
}

/** `cluster.json`: the manifest at the root of an embedded collaborative crawl (src/cluster/). */
export const CLUSTER_MANIFEST = 'cluster.json';

/** What `cluster.json` says: the strategy, and which node owns which partitions in which directory. */
export interface ClusterManifest {
  readonly format: 'shoal-cluster';
  readonly version: 1;
  readonly partitioner: PartitionerSpec;
  readonly partitionCount: number;
  readonly forward: 'urls' | 'pages' | 'both';
  readonly nodes: readonly { readonly nodeId: string; readonly partitions: readonly number[]; readonly dir: string }[];
}

/**
 * The node directories of `dir`: each node's, with its id, for a collaborative crawl; the directory
 * itself with no id for a crawl of one node.
 * @throws ShoalError `IO` when `cluster.json` is unreadable or no shoal cluster manifest.
 */
export function nodeDirsOf(dir: string): { manifest: ClusterManifest | null; nodes: [string | null, string][] } {
  const path = join(dir, CLUSTER_MANIFEST);
  if (!exists(path)) return { manifest: null, nodes: [[null, dir]] };
  let manifest: ClusterManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as ClusterManifest;
  } catch (err) {
    throw new ShoalError('IO', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
  }
  if (manifest.format !== 'shoal-cluster' || !Array.isArray(manifest.nodes))
    throw new ShoalError('IO', `${path} is not a shoal cluster manifest`);
  return { manifest, nodes: manifest.nodes.map((m) => [m.nodeId, join(dir, m.dir)]) };
}
/** `node.json`: the membership file of a node of a distributed crawl (src/cluster/distributed-node.ts). */
export const NODE_MANIFEST = 'node.json';

/** What a crawl directory holds. */
export type CrawlDirKind =
  /** Nothing of a crawl yet (a new or empty directory). */
  | 'new'
  /** One node crawled into it (`shoal crawl` without `--nodes`). */
  | 'node'
  /** A node of a distributed crawl (`shoal node`). */
  | 'distributed-node'
  /** An embedded collaborative crawl (`shoal crawl --nodes N`): its nodes live under `nodes/`. */
  | 'cluster';

const KIND_WORDS: Readonly<Record<CrawlDirKind, string>> = {
  new: 'a new crawl',
  node: 'the crawl of one node (shoal crawl without --nodes)',
  'distributed-node': 'a node of a distributed crawl (shoal node)',
  cluster: 'a collaborative crawl of several nodes (shoal crawl --nodes N)',
};

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** What `root` holds, judged by the files each kind of crawl writes first. */
export function crawlDirKind(root: string): CrawlDirKind {
  if (exists(join(root, CLUSTER_MANIFEST))) return 'cluster';
  if (exists(join(root, NODE_MANIFEST))) return 'distributed-node';
  const layout = crawlDirLayout(root);
  return [layout.frontier, layout.seen, layout.warc, join(root, 'crawl-log.jsonl')].some(exists) ? 'node' : 'new';
}

/**
 * Refuses to go on in a directory that holds another kind of crawl: resuming there would mix two
 * crawls' state (a single node's frontier beside a cluster's nodes, say).
 * @throws ConfigError `USAGE` naming what the directory holds.
 */
export function expectCrawlDirKind(root: string, wanted: Exclude<CrawlDirKind, 'new'>): void {
  const kind = crawlDirKind(root);
  if (kind === 'new' || kind === wanted) return;
  throw new ConfigError(
    [
      {
        path: 'store.outDir',
        message: `${root} holds ${KIND_WORDS[kind]}, not ${KIND_WORDS[wanted]}; run it the way it was started, or choose another --out`,
      },
    ],
    { code: 'USAGE' },
  );
}
