/**
 * The tables of the frontier store, and the two walks over them that run inside one write
 * transaction each: a flush making completions final, and the recovery when a store is opened.
 * `frontier-store.ts` has the table layout and the narrative; this file only opens the tables and
 * walks them.
 */
import type { Database, RootDatabase } from 'lmdb';
import { hostBytesOf, hostEnd, hostIndexKey, hostOfUrlKey, hostStart, rankOfUrlKey } from './frontier-keys.js';

/** One named database: binary keys, values as its encoding gives them. */
export type Table = Database<unknown, Buffer>;

/**
 * The value stored under a URL key. The last two were added later: values written before them have
 * four elements and read as `fromUrl` null and not a sitemap.
 */
export type UrlValue = [url: string, depth: number, ip: string | null, attempt: number, fromUrl?: string | null, isSitemap?: boolean];

/** The value of tables whose keys say everything. */
export const EMPTY = Buffer.alloc(0);

/** The named databases of one environment (see the table in `frontier-store.ts`). */
export interface StoreTables {
  readonly root: RootDatabase<unknown, string>;
  readonly urls: Table;
  readonly fingerprints: Table;
  readonly done: Table;
  readonly leases: Table;
  readonly hosts: Table;
  readonly hostRanks: Table;
  readonly resident: Table;
}

/** Opens (creating when missing) every table of the store in `root`. */
export function openTables(root: RootDatabase<unknown, string>): StoreTables {
  const table = (name: string, encoding: 'binary' | 'msgpack'): Table => root.openDB<unknown, Buffer>({ name, keyEncoding: 'binary', encoding });
  return {
    root,
    urls: table('urls', 'msgpack'),
    fingerprints: table('fingerprint', 'binary'),
    done: table('done', 'binary'),
    leases: table('leases', 'msgpack'),
    hosts: table('hosts', 'binary'),
    hostRanks: table('host-rank', 'binary'),
    resident: table('resident', 'binary'),
  };
}

/** Tombstones deleted per range read while a walk goes over them. */
const SWEEP_CHUNK = 1024;

/**
 * Walks every tombstone; call inside a write transaction. `shouldRevive` false (a flush): the
 * completion becomes final, record and fingerprint go. True (a recovery): the completion is undone
 * and the URL is queued again, unless it was added anew since (its fingerprint then names the newer
 * record, and this one goes); the hosts of revived URLs are collected in `revivedHosts`.
 * @returns the number of URLs revived.
 */
export function sweepTombstones(t: StoreTables, shouldRevive: boolean, revivedHosts?: Set<string>): number {
  let revived = 0;
  for (;;) {
    // Deleting while a cursor walks the same table is unsafe: read a chunk, then delete it.
    const chunk = Array.from(t.done.getRange({ limit: SWEEP_CHUNK }));
    if (chunk.length === 0) return revived;
    for (const { key, value } of chunk) {
      const fingerprint = value as Buffer;
      const named = t.fingerprints.get(fingerprint) as Buffer | undefined;
      const isCurrent = named === undefined || named.equals(key);
      if (shouldRevive && isCurrent) {
        if (named === undefined) t.fingerprints.putSync(fingerprint, key);
        revivedHosts?.add(hostOfUrlKey(key));
        revived++;
      } else {
        t.urls.removeSync(key);
        if (isCurrent && named !== undefined) t.fingerprints.removeSync(fingerprint);
      }
      t.done.removeSync(key);
    }
  }
}

/**
 * The recovery of a store opened after a crash or a close; call inside a write transaction. Revives
 * every tombstone (the completions not made final by a flush), drops the lease records (those URLs
 * are simply queued again) and puts a revived URL's host back in the host index unless it holds a
 * back queue. Leaves the `resident` table alone: those hosts get their back queues again.
 */
export function recoverTables(t: StoreTables): { recoveredLeases: number; restoredCompletions: number } {
  const revivedHosts = new Set<string>();
  const restoredCompletions = sweepTombstones(t, true, revivedHosts);
  let recoveredLeases = 0;
  for (const key of Array.from(t.leases.getKeys({}))) {
    t.leases.removeSync(key);
    recoveredLeases++;
  }
  // A host that gave up its back queue after its last completion, which the crash undid.
  for (const host of revivedHosts) if (!t.resident.doesExist(hostBytesOf(host))) reindexHost(t, host);
  return { recoveredLeases, restoredCompletions };
}

/** Gives `host` its right place in the host index: the rank of its best URL, or none. */
function reindexHost(t: StoreTables, host: string): void {
  const hostKey = hostBytesOf(host);
  const current = t.hostRanks.get(hostKey) as Buffer | undefined;
  if (current !== undefined) t.hosts.removeSync(hostIndexKey(current, host));
  let first: Buffer | undefined;
  for (const key of t.urls.getKeys({ start: hostStart(host), end: hostEnd(host), limit: 1 })) first = key;
  if (first === undefined) {
    t.hostRanks.removeSync(hostKey);
    return;
  }
  const rank = rankOfUrlKey(first);
  t.hosts.putSync(hostIndexKey(rank, host), EMPTY);
  t.hostRanks.putSync(hostKey, rank);
}
