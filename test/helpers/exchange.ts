/**
 * An exchange that sends nowhere and records every message handed to it, in order, with the
 * partition it was for: what a router or a node sent, for tests to read.
 */
import type { Exchange, ExchangeStats } from '../../src/exchange/exchange.js';
import type { OutgoingMessage } from '../../src/exchange/messages.js';
import type { PartitionId } from '../../src/partition/partitioner.js';

/** A message the recorder was given. */
export interface SentMessage {
  readonly to: PartitionId;
  readonly message: OutgoingMessage;
}

/** A recording exchange and the messages it was given so far. */
export function recordingExchange(): { exchange: Exchange; sent: SentMessage[] } {
  const sent: SentMessage[] = [];
  const exchange: Exchange = {
    spec: { id: 'recorder', params: {} },
    start: async () => {},
    send: (to, message) => sent.push({ to, message }),
    flush: async () => {},
    close: async () => {},
    stats: () => ({}) as ExchangeStats,
  };
  return { exchange, sent };
}
