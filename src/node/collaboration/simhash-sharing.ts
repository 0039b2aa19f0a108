/**
 * Near-duplicates across the nodes of a collaborative crawl (SPEC §2.10, §4.5;
 * docs/near-duplicates.md): each node sends the fingerprint and URL of every page it keeps as the
 * first of its kind to every other node, and adds what the others send to its own index.
 *
 * Why a broadcast rather than routing each fingerprint to an owner: the permuted-table index finds a
 * match through any one of its C(m, k) tables, so an owner per table key would have to receive each
 * fingerprint once per table (9 copies at the default k = 8, more than the other nodes of most
 * crawls) and answer each lookup, a round trip the crawl cannot wait for. A broadcast costs
 * (nodes − 1) × (8 bytes + the URL) per page kept, before deflate, is one-way, and lets every node
 * answer exactly what a single index would, for the pages whose fingerprints have reached it.
 *
 * Fingerprints are batched (`cluster.batchUrls` per message, or whatever is waiting when `flush` is
 * called: every `cluster.batchDelayMs` and at each checkpoint, with the URL batches). A batch goes to
 * every partition this node does not own; a node owning several partitions gets it once per
 * partition, and its index keeps one copy (`NearDuplicates.addRemote`).
 */
import type { Exchange } from '../../exchange/exchange.js';
import type { SimHashBatchMessage } from '../../exchange/messages.js';
import type { PartitionId } from '../../partition/partitioner.js';

/** Options of {@link SimHashSharing}. */
export interface SimHashSharingOptions {
  readonly nodeId: string;
  readonly exchange: Exchange;
  /** Partitions of the crawl (ids 0 .. partitionCount − 1). */
  readonly partitionCount: number;
  /** The partitions this node owns: nothing is sent to them. */
  readonly partitions: readonly PartitionId[];
  /** Fingerprints per message. */
  readonly batchSize: number;
  /** Adds a page another node kept to this node's index; false when it held it already. */
  readonly addRemote: (url: string, hi: number, lo: number) => boolean;
}

/** What was shared and taken, for the node's statistics. */
export interface SimHashSharingCounts {
  /** Pages of this node whose fingerprints were sent (once each, whatever the number of partitions). */
  shared: number;
  /** Fingerprints of other nodes' pages added to this node's index. */
  taken: number;
  /** Fingerprints received that the index held already. */
  repeated: number;
}

/** See the file comment. */
export class SimHashSharing {
  readonly counts: SimHashSharingCounts = { shared: 0, taken: 0, repeated: 0 };
  private readonly targets: readonly PartitionId[];
  private urls: string[] = [];
  private words: number[] = [];

  constructor(private readonly options: SimHashSharingOptions) {
    if (!Number.isInteger(options.batchSize) || options.batchSize < 1)
      throw new RangeError(`batchSize must be at least 1, got ${options.batchSize}`);
    const own = new Set(options.partitions);
    this.targets = Array.from({ length: options.partitionCount }, (_, p) => p).filter((p) => !own.has(p));
  }

  /** Fingerprints waiting for the next batch. */
  get batched(): number {
    return this.urls.length;
  }

  /** Queues a page this node kept (fingerprint as two unsigned 32-bit words, high first). */
  readonly share = (url: string, hi: number, lo: number): void => {
    if (this.targets.length === 0) return;
    this.urls.push(url);
    this.words.push(hi >>> 0, lo >>> 0);
    this.counts.shared++;
    if (this.urls.length >= this.options.batchSize) this.flush();
  };

  /** Sends what is waiting to every other partition. */
  flush(): void {
    if (this.urls.length === 0) return;
    const simhashes = new Uint8Array(8 * this.urls.length);
    const view = new DataView(simhashes.buffer);
    this.words.forEach((w, i) => view.setUint32(4 * i, w));
    const message = { kind: 'simhashes', from: this.options.nodeId, urls: this.urls, simhashes } as const;
    this.urls = [];
    this.words = [];
    for (const p of this.targets) this.options.exchange.send(p, message);
  }

  /** Adds the pages of a batch another node sent to this node's index; returns how many were new to it. */
  receive(m: SimHashBatchMessage): number {
    const view = new DataView(m.simhashes.buffer, m.simhashes.byteOffset, m.simhashes.byteLength);
    let taken = 0;
    m.urls.forEach((url, i) => {
      if (this.options.addRemote(url, view.getUint32(8 * i), view.getUint32(8 * i + 4))) taken++;
    });
    this.counts.taken += taken;
    this.counts.repeated += m.urls.length - taken;
    return taken;
  }
}
