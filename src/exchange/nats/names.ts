/**
 * Every name a crawl uses on the broker, in one place, so the exchange, the membership buckets, the
 * docs (docs/nats.md) and an operator's `nats stream ls` agree:
 *
 * | what | name |
 * |---|---|
 * | stream (one per crawl) | `SHOAL_<crawlId>` |
 * | its subjects | `shoal.<crawlId>.p.*` |
 * | subject of partition p | `shoal.<crawlId>.p.<p>` |
 * | durable consumer of partition p | `p-<p>` |
 * | message id (deduplication) | `<nodeId>:<seq>` |
 * | membership bucket (TTL) | `shoal_<crawlId>_members` |
 * | crawl bucket (config, stats) | `shoal_<crawlId>` |
 *
 * Ids are restricted to `[A-Za-z0-9_-]` because they become parts of subjects (where `.`, `*`, `>`
 * and spaces have meaning), stream and bucket names, and KV keys.
 */
import { ConfigError } from '../../core/errors.js';
import type { PartitionId } from '../../partition/partitioner.js';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws a {@link ConfigError} unless `value` is a usable crawl or node id. */
export function checkId(path: 'crawlId' | 'nodeId', value: string): string {
  if (!ID.test(value)) {
    throw new ConfigError([
      { path, message: `"${value}" must be 1–64 characters of [A-Za-z0-9_-] (it names NATS subjects, streams and keys)` },
    ]);
  }
  return value;
}

/** Throws a {@link ConfigError} unless `p` is a partition number. */
export function checkPartition(p: PartitionId): PartitionId {
  if (!Number.isSafeInteger(p) || p < 0) {
    throw new ConfigError([{ path: 'partitions', message: `${p} is not a partition number (an integer ≥ 0)` }]);
  }
  return p;
}

/** The crawl's stream. */
export function streamName(crawlId: string): string {
  return `SHOAL_${crawlId}`;
}

/** The wildcard subject the crawl's stream stores. */
export function streamSubjects(crawlId: string): string {
  return `shoal.${crawlId}.p.*`;
}

/** The subject messages for partition `p` are published on. */
export function partitionSubject(crawlId: string, p: PartitionId): string {
  return `shoal.${crawlId}.p.${p}`;
}

/** The durable consumer that delivers partition `p` to whichever node owns it. */
export function consumerName(p: PartitionId): string {
  return `p-${p}`;
}

/** The JetStream message id: the server drops a second publish of the same id within its window. */
export function messageId(nodeId: string, seq: number): string {
  return `${nodeId}:${seq}`;
}

/** The bucket of live members (entries expire unless renewed). */
export function membersBucket(crawlId: string): string {
  return `shoal_${crawlId}_members`;
}

/** The bucket of crawl-wide values: `config` and `stats.<nodeId>`. */
export function crawlBucket(crawlId: string): string {
  return `shoal_${crawlId}`;
}
