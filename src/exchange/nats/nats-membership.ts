/**
 * Who is in the crawl, what it was configured with, and how each node is doing: the JetStream
 * key-value buckets of SPEC §4.5. Nothing else is shared between machines.
 *
 * Two buckets per crawl:
 *
 * - `shoal_<crawlId>_members`, with a TTL (default 15 s; the server removes entries older than
 *   that): `node.<nodeId>` → {@link Member} JSON, and `partition.<p>` → `{ nodeId }`, the claim of
 *   partition p. A member renews both every heartbeat (default 5 s), so a node that dies vanishes
 *   within one TTL and its partitions can then be claimed by another node.
 * - `shoal_<crawlId>` (no TTL): `config`, the crawl configuration (the first node creates it; every
 *   later node must bring the same), and `stats.<nodeId>`, each node's live statistics.
 *
 * Claiming is atomic: `partition.<p>` is created with "expect no value", so of two nodes claiming p
 * at once exactly one wins. A claim still held by another node is refused with
 * {@link PartitionClaimedError}; a claim held under our own node id (we were killed and restarted
 * within the TTL) is taken back. If a node cannot renew for longer than the TTL (cut off from the
 * broker) and another node claims its partition meanwhile, the next heartbeat notices: the partition
 * is reported through `onLost` and the node must stop consuming it.
 *
 * The TTL is a property of the bucket, fixed by whichever node creates it first: give every node
 * the same `ttlMs`, and a `heartbeatMs` well under it.
 */
import { hostname } from 'node:os';
import { JetStreamApiCodes } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ShoalError } from '../../core/errors.js';
import type { PartitionId } from '../../partition/partitioner.js';
import { canonicalJson, parseJson } from './json.js';
import { checkId, checkPartition, crawlBucket, membersBucket } from './names.js';
import { isApiError } from './stream.js';

/** A live node, as it announced itself. */
export interface Member {
  readonly nodeId: string;
  readonly partitions: readonly PartitionId[];
  readonly host: string;
  readonly pid: number;
  /** When the node joined, ms since the epoch. */
  readonly startedAtMs: number;
  /** Its last heartbeat, ms since the epoch (its own clock). */
  readonly heartbeatAtMs: number;
}

/** Settings of a {@link NatsMembership}. */
export interface NatsMembershipOptions {
  /** Ms an entry lives without renewal (the bucket's TTL, set by its creator); default 15 000. */
  readonly ttlMs?: number;
  /** Ms between heartbeats; default 5 000 (keep it well under `ttlMs`). */
  readonly heartbeatMs?: number;
  /** Host name announced; default `os.hostname()`. */
  readonly host?: string;
  /** Process id announced; default `process.pid`. */
  readonly pid?: number;
  /** Called when another node has claimed a partition this node held (this node must stop consuming it). */
  readonly onLost?: (partition: PartitionId, holder: string) => void;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** A partition this node asked for is held by another live node. */
export class PartitionClaimedError extends ShoalError {
  readonly partition: PartitionId;
  readonly holder: string;
  constructor(partition: PartitionId, holder: string, ttlMs: number) {
    super(
      'EXCHANGE_UNAVAILABLE',
      `partition ${partition} is held by live node "${holder}"; if that node is dead, its claim ` +
        `expires within ${ttlMs} ms of its last heartbeat — retry then, or choose other partitions`,
    );
    this.name = 'PartitionClaimedError';
    this.partition = partition;
    this.holder = holder;
  }
}

/** What {@link NatsMembership.publishConfig} found. */
export type ConfigOutcome = 'created' | 'same' | 'different';

/** Membership, claims, configuration and statistics of one node in the crawl's buckets. */
export class NatsMembership {
  private readonly nc: NatsConnection;
  private readonly crawlId: string;
  private readonly nodeId: string;
  private readonly ttlMs: number;
  private readonly options: NatsMembershipOptions;
  private membersKv: KV | null = null;
  private crawlKv: KV | null = null;
  private self: Omit<Member, 'heartbeatAtMs'> | null = null;
  /** Partition → revision of our claim entry. */
  private readonly claims = new Map<PartitionId, number>();
  private timer: NodeJS.Timeout | null = null;
  /** The heartbeat in flight (settled). */
  private beat: Promise<void> = Promise.resolve();

  constructor(nc: NatsConnection, crawlId: string, nodeId: string, options: NatsMembershipOptions = {}) {
    this.nc = nc;
    this.crawlId = checkId('crawlId', crawlId);
    this.nodeId = checkId('nodeId', nodeId);
    this.ttlMs = options.ttlMs ?? 15_000;
    this.options = options;
  }

  /** The partitions this node holds right now. */
  get partitions(): readonly PartitionId[] {
    return [...this.claims.keys()].sort((a, b) => a - b);
  }

  /**
   * Claims `partitions` (all or none: on refusal the ones already taken are released), announces this
   * node and starts the heartbeat. Throws {@link PartitionClaimedError} when another live node holds one.
   */
  async join(partitions: readonly PartitionId[]): Promise<void> {
    // A join tried again after a failure starts over: claims left from the failed try are our own.
    this.stopHeartbeat();
    const kv = await this.openMembers();
    for (const p of partitions) {
      try {
        this.claims.set(checkPartition(p), await this.claim(kv, p));
      } catch (err) {
        await this.releaseClaims(kv);
        throw err;
      }
    }
    this.self = {
      nodeId: this.nodeId,
      partitions: [...partitions],
      host: this.options.host ?? hostname(),
      pid: this.options.pid ?? process.pid,
      startedAtMs: Date.now(),
    };
    await this.announce(kv);
    this.timer = setInterval(
      () => void this.heartbeat().catch((err: unknown) => this.log('nats-heartbeat-failed', { error: String(err) })),
      this.options.heartbeatMs ?? 5_000,
    );
    this.timer.unref();
  }

  /**
   * Renews this node's entry and claims now (the timer calls it every `heartbeatMs`). Heartbeats run
   * one at a time, and `leave` waits for the one in flight, so a late renewal never undoes a leave.
   */
  heartbeat(): Promise<void> {
    const run = this.beat.then(() => this.renew());
    this.beat = run.catch(() => undefined);
    return run;
  }

  private async renew(): Promise<void> {
    const kv = await this.openMembers();
    if (this.self === null) return;
    for (const [p, revision] of [...this.claims]) {
      try {
        this.claims.set(p, await kv.update(claimKey(p), this.claimValue(), revision));
      } catch (err) {
        if (!isApiError(err, JetStreamApiCodes.StreamWrongLastSequence)) throw unavailable(`cannot renew the claim on partition ${p}`, err);
        await this.reclaim(kv, p);
      }
    }
    // Announced after the claims, so the entry lists the partitions this node still holds.
    await this.announce(kv);
  }

  /** The live members, by node id. */
  async members(): Promise<Member[]> {
    const kv = await this.openMembers();
    const out: Member[] = [];
    for (const key of await keysOf(kv, 'node.*')) {
      const entry = await kv.get(key);
      if (entry !== null && entry.operation === 'PUT') out.push(entry.json<Member>());
    }
    return out.sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  }

  /** Stops the heartbeat and removes this node and its claims at once (a clean shutdown). */
  async leave(): Promise<void> {
    this.stopHeartbeat();
    await this.beat;
    const kv = await this.openMembers();
    await this.releaseClaims(kv);
    if (this.self !== null)
      await kv.delete(`node.${this.nodeId}`).catch((err: unknown) => {
        throw unavailable('cannot leave', err);
      });
    this.self = null;
  }

  /** Stops the heartbeat and leaves the entries to expire (what a crash looks like to the others). */
  destroy(): void {
    this.stopHeartbeat();
    this.self = null;
    this.claims.clear();
  }

  /** Stores `config` as the crawl's configuration unless one exists; tells whether it matches. */
  async publishConfig(config: unknown): Promise<ConfigOutcome> {
    const kv = await this.openCrawl();
    const json = canonicalJson(config);
    try {
      await kv.create('config', json);
      return 'created';
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.StreamWrongLastSequence)) throw unavailable('cannot publish the crawl configuration', err);
    }
    const existing = await kv.get('config');
    return existing !== null && existing.string() === json ? 'same' : 'different';
  }

  /** The crawl's configuration, or null if no node published one yet. */
  async readConfig(): Promise<unknown> {
    const entry = await (await this.openCrawl()).get('config');
    return entry === null || entry.operation !== 'PUT' ? null : parseJson(entry.string());
  }

  /** Publishes this node's live statistics (`stats.<nodeId>`). */
  async putStats(stats: unknown): Promise<void> {
    await (await this.openCrawl()).put(`stats.${this.nodeId}`, canonicalJson(stats));
  }

  /** Every node's last published statistics, by node id. */
  async readStats(): Promise<Record<string, unknown>> {
    const kv = await this.openCrawl();
    const out: Record<string, unknown> = {};
    for (const key of await keysOf(kv, 'stats.*')) {
      const entry = await kv.get(key);
      if (entry !== null && entry.operation === 'PUT') out[key.slice('stats.'.length)] = parseJson(entry.string());
    }
    return out;
  }

  /** Creates claim `partition.<p>`, or takes back one left by our own earlier life; returns its revision. */
  private async claim(kv: KV, p: PartitionId): Promise<number> {
    try {
      return await kv.create(claimKey(p), this.claimValue());
    } catch (err) {
      if (!isApiError(err, JetStreamApiCodes.StreamWrongLastSequence)) throw unavailable(`cannot claim partition ${p}`, err);
    }
    const held = await kv.get(claimKey(p));
    const holder = held === null ? '?' : held.json<{ nodeId: string }>().nodeId;
    if (held === null || holder !== this.nodeId) throw new PartitionClaimedError(p, holder, this.ttlMs);
    return kv.update(claimKey(p), this.claimValue(), held.revision);
  }

  /** Our claim on `p` changed under us: it expired (claim it again) or another node took it (lost). */
  private async reclaim(kv: KV, p: PartitionId): Promise<void> {
    try {
      this.claims.set(p, await this.claim(kv, p));
      this.log('nats-claim-renewed', { partition: p });
    } catch (err) {
      if (!(err instanceof PartitionClaimedError)) throw err;
      this.claims.delete(p);
      this.log('nats-partition-lost', { partition: p, holder: err.holder });
      this.options.onLost?.(p, err.holder);
    }
  }

  private async announce(kv: KV): Promise<void> {
    if (this.self === null) return;
    const member: Member = { ...this.self, partitions: this.partitions, heartbeatAtMs: Date.now() };
    await kv.put(`node.${this.nodeId}`, JSON.stringify(member)).catch((err: unknown) => {
      throw unavailable('cannot announce this node', err);
    });
  }

  private async releaseClaims(kv: KV): Promise<void> {
    for (const [p, revision] of this.claims) {
      // Only delete a claim that is still ours (the expected revision guards against a new holder).
      await kv.delete(claimKey(p), { previousSeq: revision }).catch(() => {});
    }
    this.claims.clear();
  }

  private claimValue(): string {
    return JSON.stringify({ nodeId: this.nodeId });
  }

  private stopHeartbeat(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async openMembers(): Promise<KV> {
    this.membersKv ??= await openBucket(this.nc, membersBucket(this.crawlId), this.ttlMs);
    return this.membersKv;
  }

  private async openCrawl(): Promise<KV> {
    this.crawlKv ??= await openBucket(this.nc, crawlBucket(this.crawlId), 0);
    return this.crawlKv;
  }

  private log(event: string, fields: Record<string, unknown>): void {
    this.options.log?.(event, { nodeId: this.nodeId, ...fields });
  }
}

function claimKey(p: PartitionId): string {
  return `partition.${p}`;
}

/** Opens (creating if missing) bucket `name`, keeping one value per key; `ttlMs` 0 = no expiry. */
async function openBucket(nc: NatsConnection, name: string, ttlMs: number): Promise<KV> {
  try {
    return await new Kvm(nc).create(name, { history: 1, ...(ttlMs > 0 ? { ttl: ttlMs } : {}) });
  } catch (err) {
    throw unavailable(`cannot open key-value bucket ${name}`, err);
  }
}

/** How long one listing of keys may take before it is started again. */
const KEYS_TIMEOUT_MS = 3_000;
const KEYS_ATTEMPTS = 3;

/**
 * The keys of `kv` matching `filter`. A listing is an ordered consumer that expects as many entries
 * as the bucket held when it started; an entry expiring (TTL) in between leaves it waiting forever
 * on nats-server 2.9, so a listing that does not end in time is stopped and started again.
 */
export async function keysOf(kv: KV, filter: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    const listing = await kv.keys(filter);
    const out: string[] = [];
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), KEYS_TIMEOUT_MS);
    });
    const listed = (async (): Promise<'done'> => {
      for await (const key of listing) out.push(key);
      return 'done';
    })();
    const result = await Promise.race([listed, timedOut]);
    clearTimeout(timer);
    // A key written while the listing runs comes again at its new revision: each key once.
    if (result === 'done') return [...new Set(out)];
    listing.stop();
    if (attempt >= KEYS_ATTEMPTS)
      throw unavailable(`listing keys ${filter}`, new Error(`no answer in ${KEYS_ATTEMPTS} tries of ${KEYS_TIMEOUT_MS} ms`));
  }
}

function unavailable(what: string, cause: unknown): ShoalError {
  return new ShoalError('EXCHANGE_UNAVAILABLE', `${what}: ${String(cause)}`, { cause });
}
