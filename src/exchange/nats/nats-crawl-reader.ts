/**
 * Reads a distributed crawl from the outside (`shoal dashboard --nats URL --crawl ID`): the live
 * members and every node's last statistics, from the crawl's key-value buckets
 * (nats-membership.ts), without joining the crawl or writing anything. Buckets are opened, never
 * created: the first node creates them with its own settings (the membership TTL), and a reader
 * started before any node must not fix those. A bucket that does not exist yet reads as empty.
 */
import { JetStreamApiCodes, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { ShoalError } from '../../core/errors.js';
import { connectNats, type NatsAuthOptions, type NatsTlsOptions } from './connection.js';
import { parseJson } from './json.js';
import { keysOf, type Member } from './nats-membership.js';
import { checkId, crawlBucket, membersBucket } from './names.js';
import { isApiError } from './stream.js';

/** Options of {@link NatsCrawlReader}. */
export interface NatsCrawlReaderOptions {
  readonly servers: readonly string[];
  readonly crawlId: string;
  readonly auth?: NatsAuthOptions;
  readonly tls?: NatsTlsOptions;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** What the crawl's buckets hold now. */
export interface CrawlReading {
  /** The live members (their membership entries have not expired). */
  readonly members: readonly Member[];
  /** Each node's last `stats.<nodeId>` value, by node id (nodes that left included). */
  readonly stats: Readonly<Record<string, unknown>>;
}

/** See the file comment. */
export class NatsCrawlReader {
  private nc: NatsConnection | null = null;
  private jsm: JetStreamManager | null = null;
  private readonly buckets = new Map<string, KV>();
  private isClosed = false;

  constructor(private readonly options: NatsCrawlReaderOptions) {
    checkId('crawlId', options.crawlId);
  }

  /** Connects, waiting for the broker as long as it takes (or until `close`). */
  async connect(): Promise<void> {
    const nc = await connectNats(
      {
        servers: this.options.servers,
        name: `shoal-${this.options.crawlId}-dashboard`,
        auth: this.options.auth,
        tls: this.options.tls,
        log: this.options.log,
      },
      () => this.isClosed,
    );
    this.nc = nc;
    this.jsm = await jetstreamManager(nc);
  }

  /** Reads the members and statistics. @throws ShoalError `EXCHANGE_UNAVAILABLE` when the broker does not answer. */
  async read(): Promise<CrawlReading> {
    const members: Member[] = [];
    const stats: Record<string, unknown> = {};
    const membersKv = await this.bucket(membersBucket(this.options.crawlId));
    if (membersKv !== null) {
      for (const key of await keysOf(membersKv, 'node.*')) {
        const entry = await membersKv.get(key);
        if (entry !== null && entry.operation === 'PUT') members.push(entry.json<Member>());
      }
    }
    const crawlKv = await this.bucket(crawlBucket(this.options.crawlId));
    if (crawlKv !== null) {
      for (const key of await keysOf(crawlKv, 'stats.*')) {
        const entry = await crawlKv.get(key);
        if (entry !== null && entry.operation === 'PUT') stats[key.slice('stats.'.length)] = parseJson(entry.string());
      }
    }
    return { members: members.sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0)), stats };
  }

  /** Closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.isClosed = true;
    const nc = this.nc;
    if (nc !== null && !nc.isClosed()) await nc.close();
  }

  /** The bucket `name`, or null while it does not exist. */
  private async bucket(name: string): Promise<KV | null> {
    const known = this.buckets.get(name);
    if (known !== undefined) return known;
    const { nc, jsm } = this;
    if (nc === null || jsm === null) throw new Error('NatsCrawlReader.read before connect() resolved');
    try {
      await jsm.streams.info(`KV_${name}`);
    } catch (err) {
      if (isApiError(err, JetStreamApiCodes.StreamNotFound)) return null;
      throw new ShoalError('EXCHANGE_UNAVAILABLE', `cannot look up key-value bucket ${name}: ${String(err)}`, { cause: err });
    }
    const kv = await new Kvm(nc).open(name);
    this.buckets.set(name, kv);
    return kv;
  }
}
