/**
 * The crawl's JetStream stream and its per-partition consumers.
 *
 * One stream per crawl (`SHOAL_<crawlId>`, subjects `shoal.<crawlId>.p.*`), file storage, *work-queue*
 * retention: a message stays until the consumer of its partition acknowledges it, then the server
 * removes it, so the stream holds exactly the messages not yet processed by their owners — those
 * of a node that is down wait there. `discard: new` makes a full stream (if an operator sets
 * limits) refuse publishes, which senders retry, instead of silently dropping old messages.
 *
 * The duplicate window (default 2 min) is the time within which a second publish with the same
 * `Nats-Msg-Id` (`<nodeId>:<seq>`) is dropped: it absorbs republishes after lost acks, reconnects
 * and sender restarts. A republish later than that is stored again, and the receiver's URL-seen
 * test absorbs it.
 *
 * nats-server 2.9 allows one filter subject per consumer and, on a work queue, no two consumers
 * with overlapping filters. So the durable consumer is per *partition* (`p-<p>`), not per node: a
 * node that owns partitions 3 and 7 consumes `p-3` and `p-7`. This is the SPEC's "durable consumer
 * per node" with a finer grain: what a node has not acknowledged stays with the partition, and when
 * another node takes the partition over it attaches to the same durable consumer and gets it.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type ConsumerInfo,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { ConfigError, ShoalError } from '../../core/errors.js';
import type { PartitionId } from '../../partition/partitioner.js';
import { consumerName, partitionSubject, streamName, streamSubjects } from './names.js';

/** Default duplicate window, ms (the server's own default; shoal requires at least this). */
export const DUPLICATE_WINDOW_MS = 120_000;

/**
 * Creates the crawl's stream, or checks that the existing one is shaped as shoal needs (a
 * {@link ConfigError} lists what differs). Broker trouble throws `EXCHANGE_UNAVAILABLE`.
 */
export async function ensureStream(jsm: JetStreamManager, crawlId: string): Promise<StreamInfo> {
  const name = streamName(crawlId);
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(name);
  } catch (err) {
    if (!isApiError(err, JetStreamApiCodes.StreamNotFound)) throw unavailable(`cannot look up stream ${name}`, err);
    try {
      return await jsm.streams.add({
        name,
        subjects: [streamSubjects(crawlId)],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        discard: DiscardPolicy.New,
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
        description: `shoal crawl ${crawlId}: messages between nodes, one subject per partition`,
      });
    } catch (addErr) {
      // Another node may have created it between our lookup and our add: then use theirs.
      info = await jsm.streams.info(name).catch(() => {
        throw unavailable(`cannot create stream ${name}`, addErr);
      });
    }
  }
  const c = info.config;
  const problems: string[] = [];
  if (c.subjects.length !== 1 || c.subjects[0] !== streamSubjects(crawlId))
    problems.push(`subjects ${JSON.stringify(c.subjects)} (need ["${streamSubjects(crawlId)}"])`);
  if (c.retention !== RetentionPolicy.Workqueue) problems.push(`retention "${c.retention}" (need "workqueue")`);
  if (c.storage !== StorageType.File) problems.push(`storage "${c.storage}" (need "file")`);
  if (c.duplicate_window < nanos(DUPLICATE_WINDOW_MS))
    problems.push(`duplicate window ${c.duplicate_window / 1e6} ms (need ≥ ${DUPLICATE_WINDOW_MS})`);
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((message) => ({
        path: 'crawlId',
        message: `stream ${name} exists with ${message}; delete it (nats stream rm ${name}) or use another crawl id`,
      })),
    );
  }
  return info;
}

/** Consumer settings a node asks for; the first node to create a consumer sets them, later ones update. */
export interface ConsumerSettings {
  readonly ackWaitMs: number;
  readonly maxAckPending: number;
}

/** Creates the durable consumer of partition `p`, or updates its ack settings if they differ. */
export async function ensureConsumer(
  jsm: JetStreamManager,
  crawlId: string,
  p: PartitionId,
  settings: ConsumerSettings,
): Promise<ConsumerInfo> {
  const stream = streamName(crawlId);
  const name = consumerName(p);
  const subject = partitionSubject(crawlId, p);
  let info: ConsumerInfo | null = null;
  try {
    info = await jsm.consumers.info(stream, name);
  } catch (err) {
    if (!isApiError(err, JetStreamApiCodes.ConsumerNotFound)) throw unavailable(`cannot look up consumer ${name} of ${stream}`, err);
  }
  try {
    if (info === null) {
      return await jsm.consumers.add(stream, {
        durable_name: name,
        filter_subject: subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(settings.ackWaitMs),
        max_ack_pending: settings.maxAckPending,
        max_deliver: -1,
        description: `shoal: messages for partition ${p}`,
      });
    }
    if (info.config.filter_subject !== subject) {
      throw new ConfigError([
        {
          path: 'partitions',
          message: `consumer ${name} of ${stream} filters "${info.config.filter_subject ?? ''}", not "${subject}"; delete it (nats consumer rm ${stream} ${name})`,
        },
      ]);
    }
    if (info.config.ack_wait !== nanos(settings.ackWaitMs) || info.config.max_ack_pending !== settings.maxAckPending) {
      return await jsm.consumers.update(stream, name, { ack_wait: nanos(settings.ackWaitMs), max_ack_pending: settings.maxAckPending });
    }
    return info;
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    throw unavailable(`cannot create or update consumer ${name} of ${stream}`, err);
  }
}

/** Whether `err` is a JetStream API error with `code`. */
export function isApiError(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

function unavailable(what: string, cause: unknown): ShoalError {
  return new ShoalError('EXCHANGE_UNAVAILABLE', `${what}: ${String(cause)}`, { cause });
}
