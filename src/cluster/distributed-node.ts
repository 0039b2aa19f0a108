/**
 * One node of a distributed collaborative crawl (`shoal node`, SPEC §4.5): a complete crawler in its
 * own process and crawl directory, anywhere, joined to the others only through NATS JetStream
 * (`src/exchange/nats/`): the crawl's stream carries the messages, its key-value buckets the
 * membership, the partitioning and live statistics. Nothing else is shared.
 *
 * - **Partitions.** `cluster.nats.partitions`, or the ones this directory owned before
 *   (`node.json`, so a restarted node takes its partitions back), or else the lowest free one.
 * - **Configuration.** The partitioning (`cluster.nodes`, `cluster.partition`, `cluster.forward`)
 *   must be the same on every node: the first node stores it in the crawl's bucket, and a node with
 *   another one is refused. Seeds may be given to any node (each keeps those placed on it).
 * - **The end.** Every `checkIntervalMs` the node publishes whether it is idle and how many of its
 *   messages the broker has not stored yet (with its latest progress and slowest hosts, which
 *   `shoal dashboard` shows). The crawl is over when every partition has a live owner,
 *   every owner is idle with nothing unstored, and the stream holds no message (none sent and
 *   not yet acknowledged), at two checks in a row with every owner's statistics renewed in between.
 *   The node that sees it first marks the crawl done; the others follow.
 * - **Failure.** A node killed with `kill -9` leaves its partitions claimed until its membership
 *   lease expires; messages for them wait in the stream. The same command on the same directory
 *   takes them back and catches up. Other nodes go on meanwhile, and wait for it before ending.
 */
import { isDefaultNormalize } from '../config/normalize-config.js';
import { readFileSync, renameSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError, ShoalError } from '../core/errors.js';
import { NatsExchange } from '../exchange/nats/nats-exchange.js';
import type { NatsMembership } from '../exchange/nats/nats-membership.js';
import { buildNode, type NodeDeps } from '../node/build-node.js';
import type { CrawlConfig } from '../config/crawl-config.js';
import {
  crawlDirLayout,
  expectCrawlDirKind,
  lockCrawlDir,
  NODE_MANIFEST,
  type CrawlDirLayout,
  type CrawlDirLock,
} from '../store/crawl-dir.js';
import type { CrawlNode } from '../node/crawl-node.js';
import type { CrawlSummary } from '../node/crawl-stats.js';
import type { CrawlProgress, StopReason } from '../obs/events.js';
import type { SlowHost } from '../obs/dashboard/snapshot.js';
import { OwnProgress } from './own-progress.js';
import { createPartitioner, defaultForwardMode, type PartitionModels } from '../partition/registry.js';
import type { Partitioner, PartitionId } from '../partition/partitioner.js';
import { partitionModelsOf } from './partition-models.js';

/** `node.json` in the node's crawl directory: which crawl and partitions the directory belongs to. */
interface NodeFile {
  readonly crawlId: string;
  readonly nodeId: string;
  readonly partitions: readonly PartitionId[];
}

/** What a node publishes about itself every check (`stats.<nodeId>` in the crawl's bucket). */
interface NodeStats {
  readonly atMs: number;
  readonly isIdle: boolean;
  /** Messages sent that the broker has not stored yet. */
  readonly unconfirmed: number;
  readonly partitions: readonly PartitionId[];
  readonly pages: number;
  /** Set by the node that saw the crawl end. */
  readonly isDone: boolean;
  /** Why the node stopped, once it has. */
  readonly stopReason: StopReason | null;
  /** Its latest progress event, for `shoal dashboard` (null before the first). */
  readonly progress?: CrawlProgress | null;
  /** Its slowest hosts so far, for `shoal dashboard`. */
  readonly slowHosts?: readonly SlowHost[];
}

/** Options of {@link DistributedNode}. */
export interface DistributedNodeOptions {
  readonly deps?: Partial<NodeDeps>;
  readonly models?: PartitionModels;
  /** How often the node publishes its state and checks for the end, ms. Default 1,000. */
  readonly checkIntervalMs?: number;
}

const NODE_FILE = NODE_MANIFEST;

type ClusterForward = 'urls' | 'pages' | 'both';

/** See the file comment. */
export class DistributedNode {
  constructor(
    private readonly config: CrawlConfig,
    private readonly options: DistributedNodeOptions = {},
  ) {}

  /** Joins the crawl, crawls until the crawl as a whole is over (or the signal), leaves; resolves to this node's summary. */
  async run(signal: AbortSignal): Promise<CrawlSummary> {
    const config = this.config;
    const nats = config.cluster.nats;
    const outDir = config.store.outDir;
    if (outDir === null) throw new ConfigError([{ path: 'store.outDir', message: 'the crawl directory is required (--out DIR)' }]);
    if (nats.servers.length === 0)
      throw new ConfigError([{ path: 'cluster.nats.servers', message: 'at least one NATS server is needed (--nats URL)' }]);
    if (nats.crawlId === null)
      throw new ConfigError([{ path: 'cluster.nats.crawlId', message: 'the crawl to join is required (--crawl ID)' }]);
    const crawlId = nats.crawlId;
    const n = config.cluster.nodes;
    const partitioner = createPartitioner(config.cluster.partition, n, this.options.models ?? (await partitionModelsOf(config)));
    const forward = config.cluster.forward ?? defaultForwardMode(partitioner);
    const previous = readNodeFile(outDir, crawlId);
    const wanted = nats.partitions ?? previous?.partitions ?? null;
    for (const p of wanted ?? []) {
      if (p >= n)
        throw new ConfigError([
          { path: 'cluster.nats.partitions', message: `partition ${p} does not exist: the crawl has ${n} (cluster.nodes)` },
        ]);
    }
    const isNamed = config.nodeId !== 'shoal';
    if (previous !== null && isNamed && previous.nodeId !== config.nodeId) {
      throw new ConfigError([
        { path: 'nodeId', message: `${outDir} belongs to node ${previous.nodeId} of crawl ${crawlId}; give that id, or another --out` },
      ]);
    }
    const nodeId = previous?.nodeId ?? (isNamed ? config.nodeId : `${hostname().replace(/[^A-Za-z0-9_-]/g, '-')}-${process.pid}`);
    const layout = crawlDirLayout(outDir);
    // Locked before the broker is contacted; the node releases it when its run ends.
    const lock = lockCrawlDir(layout);
    let isHandedOver = false;
    try {
      expectCrawlDirKind(outDir, 'distributed-node');
      const summary = await this.join(signal, {
        crawlId,
        nodeId,
        n,
        partitioner,
        forward,
        wanted,
        layout,
        lock,
        handOver: () => {
          isHandedOver = true;
        },
      });
      return summary;
    } finally {
      if (!isHandedOver) lock.release();
    }
  }

  private async join(
    signal: AbortSignal,
    j: {
      crawlId: string;
      nodeId: string;
      n: number;
      partitioner: Partitioner;
      forward: ClusterForward;
      wanted: readonly PartitionId[] | null;
      layout: CrawlDirLayout;
      lock: CrawlDirLock;
      handOver: () => void;
    },
  ): Promise<CrawlSummary> {
    const config = this.config;
    const nats = config.cluster.nats;
    const outDir = j.layout.root;
    const { crawlId, nodeId, n, partitioner, forward, wanted, layout } = j;
    const exchange = new NatsExchange({
      servers: nats.servers,
      crawlId,
      nodeId,
      outboxDir: layout.outbox,
      ackWaitMs: nats.ackWaitMs,
      membership: { ttlMs: nats.memberTtlMs, heartbeatMs: Math.max(200, Math.floor(nats.memberTtlMs / 3)) },
      ...authOf(nats),
      ...tlsOf(nats),
    });
    // A signal while the broker is away ends the wait at once (the client would try for ever); the
    // endpoint is closed below, which stops its attempts.
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new ShoalError('EXCHANGE_UNAVAILABLE', `stopped while waiting for NATS at ${nats.servers.join(', ')}`));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    aborted.catch(() => {});
    try {
      await Promise.race([exchange.connect(), aborted]);
      const membership = exchange.membership();
      // Nodes that normalize otherwise would give one URL two fingerprints and two owners; the
      // default section is left out so that crawls published without one still match.
      const shared = {
        nodes: n,
        partition: partitioner.spec,
        forward,
        ...(isDefaultNormalize(config.normalize) ? {} : { normalize: config.normalize }),
      };
      if ((await membership.publishConfig(shared)) === 'different') {
        const theirs = (await membership.readConfig()) as { partition?: { id?: string; params?: { model?: unknown } } } | null;
        const theirModel = theirs?.partition?.params?.model;
        const ourModel = partitioner.spec.params.model;
        if (theirs?.partition?.id === partitioner.spec.id && ourModel !== undefined && theirModel !== ourModel) {
          throw new ConfigError([
            {
              path: 'cluster.model',
              message:
                `crawl ${crawlId} classifies with another topic model (digest ${String(theirModel)}; ` +
                `this node loaded ${String(ourModel)}): every node must load the same model file`,
            },
          ]);
        }
        const options = `cluster.nodes, cluster.partition${partitioner.spec.id === 'geo' ? ', cluster.geo (and its files)' : ''}, cluster.forward and normalize`;
        throw new ConfigError([
          { path: 'cluster', message: `crawl ${crawlId} is partitioned otherwise (${JSON.stringify(theirs)}); use the same ${options}` },
        ]);
      }
      const partitions = wanted ?? [await firstFreePartition(membership, n)];
      writeNodeFile(outDir, { crawlId, nodeId, partitions });
      const checkMs = this.options.checkIntervalMs ?? 1000;
      // A limit ends the crawl for every node: say so while the broker can still be told (best effort:
      // the broker may be away; the others then see this node leave and wait for its partitions).
      const beforeClose = async (stopReason: StopReason | null): Promise<void> => {
        if (stopReason !== 'max-pages' && stopReason !== 'max-bytes') return;
        const stats: NodeStats = { atMs: Date.now(), isIdle: false, unconfirmed: 0, partitions, pages: 0, isDone: false, stopReason };
        await Promise.race([
          membership.putStats(stats).catch(() => {}),
          new Promise((resolve) => setTimeout(resolve, 5 * checkMs).unref()),
        ]);
      };
      j.handOver();
      const node = buildNode(
        { ...config, nodeId },
        this.options.deps ?? {},
        { lock: j.lock },
        {
          partitioner,
          partitions,
          exchange,
          forward,
          maxMessageBytes: exchange.maxMessageBytes,
          beforeClose,
        },
      );
      const ownProgress = new OwnProgress(nodeId);
      ownProgress.start();
      try {
        const run = node.run(signal);
        const watching = this.watch(node, exchange, membership, n, partitions, run, ownProgress);
        const summary = await run;
        await watching;
        return summary;
      } finally {
        ownProgress.stop();
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Idempotent: the node closed it already unless it failed before starting it.
      await exchange.close();
    }
  }

  /** Publishes this node's state and ends the node once the crawl as a whole is over; see the file comment. */
  private async watch(
    node: CrawlNode,
    exchange: NatsExchange,
    membership: NatsMembership,
    n: number,
    partitions: readonly PartitionId[],
    run: Promise<unknown>,
    ownProgress: OwnProgress,
  ): Promise<void> {
    let isEnded = false;
    const ended = run.then(
      () => {
        isEnded = true;
      },
      () => {
        isEnded = true;
      },
    );
    const everyMs = this.options.checkIntervalMs ?? 1000;
    let quiet = 0;
    let lastSeen = new Map<string, number>();
    while (!isEnded) {
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, everyMs).unref())]);
      if (isEnded) return;
      try {
        const own: NodeStats = {
          atMs: Date.now(),
          isIdle: node.isIdle,
          unconfirmed: exchange.stats().unconfirmed,
          partitions,
          pages: node.pagesFetched,
          isDone: false,
          stopReason: node.stopReason,
          progress: ownProgress.progress,
          slowHosts: ownProgress.slowHosts(),
        };
        await membership.putStats(own);
        if (own.stopReason !== null) return;
        const stats = (await membership.readStats()) as Record<string, Partial<NodeStats>>;
        // A node stopped by a limit ends the crawl: its partitions would not be served any more. (Ctrl-C
        // on one node does not: like a crash, the others wait for it.) Only recent figures count, so that
        // a limit of an earlier run does not stop a resumed crawl.
        const limited = Object.values(stats).find(
          (s) =>
            (s.stopReason === 'max-pages' || s.stopReason === 'max-bytes') && s.atMs !== undefined && Date.now() - s.atMs < 10 * everyMs,
        );
        if (limited !== undefined) {
          node.stop(limited.stopReason as StopReason);
          return;
        }
        if (Object.values(stats).some((s) => s.isDone === true)) {
          node.finish();
          return;
        }
        const members = await membership.members();
        const owned = new Set(members.flatMap((m) => m.partitions));
        const isEveryPartitionOwned = Array.from({ length: n }, (_, p) => p).every((p) => owned.has(p));
        const renewed = members.every((m) => {
          const s = stats[m.nodeId];
          return s !== undefined && s.atMs !== undefined && s.atMs !== lastSeen.get(m.nodeId);
        });
        const isQuiet =
          isEveryPartitionOwned &&
          own.isIdle &&
          members.every((m) => stats[m.nodeId]?.isIdle === true && stats[m.nodeId]?.unconfirmed === 0) &&
          (await exchange.streamMessages()) === 0;
        quiet = isQuiet ? (renewed ? quiet + 1 : quiet) : 0;
        lastSeen = new Map(members.map((m) => [m.nodeId, stats[m.nodeId]?.atMs ?? -1]));
        if (quiet >= 2) {
          await membership.putStats({ ...own, isDone: true });
          node.finish();
          return;
        }
      } catch (err) {
        // The broker is away (a timeout, a closed connection): the crawl goes on, and the check is
        // made again next time. Bugs are not the broker's.
        if (err instanceof TypeError || err instanceof RangeError || err instanceof ReferenceError) throw err;
        quiet = 0;
      }
    }
  }
}

/** The lowest partition no live member holds. */
async function firstFreePartition(membership: NatsMembership, n: number): Promise<PartitionId> {
  const held = new Set((await membership.members()).flatMap((m) => m.partitions));
  for (let p = 0; p < n; p++) if (!held.has(p)) return p;
  throw new ConfigError([{ path: 'cluster.nats.partitions', message: `every one of the crawl's ${n} partitions has a live owner` }]);
}

function readNodeFile(outDir: string, crawlId: string): NodeFile | null {
  let text: string;
  try {
    text = readFileSync(join(outDir, NODE_FILE), 'utf8');
  } catch {
    return null;
  }
  const file = JSON.parse(text) as NodeFile;
  if (file.crawlId !== crawlId) {
    throw new ConfigError([
      { path: 'cluster.nats.crawlId', message: `${outDir} belongs to crawl ${file.crawlId}, not ${crawlId}; use another --out` },
    ]);
  }
  return file;
}

function writeNodeFile(outDir: string, file: NodeFile): void {
  const path = join(outDir, NODE_FILE);
  try {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`);
    renameSync(`${path}.tmp`, path);
  } catch (err) {
    throw new ShoalError('IO', `cannot write ${path}: ${(err as Error).message}`, { cause: err });
  }
}

type NatsConfig = CrawlConfig['cluster']['nats'];

function authOf(n: NatsConfig): { auth?: { user?: string; pass?: string; token?: string; credsFile?: string } } {
  const auth = {
    ...(n.user === null ? {} : { user: n.user }),
    ...(n.pass === null ? {} : { pass: n.pass }),
    ...(n.token === null ? {} : { token: n.token }),
    ...(n.credsFile === null ? {} : { credsFile: n.credsFile }),
  };
  return Object.keys(auth).length === 0 ? {} : { auth };
}

function tlsOf(n: NatsConfig): { tls?: { caFile?: string; certFile?: string; keyFile?: string } } {
  const tls = {
    ...(n.caFile === null ? {} : { caFile: n.caFile }),
    ...(n.certFile === null ? {} : { certFile: n.certFile }),
    ...(n.keyFile === null ? {} : { keyFile: n.keyFile }),
  };
  return n.tls || Object.keys(tls).length > 0 ? { tls } : {};
}
