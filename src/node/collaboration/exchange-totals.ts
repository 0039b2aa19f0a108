/**
 * `exchange.json` in a collaborative node's crawl directory: what the node sent to and received
 * from other nodes over every run on that directory (each run adds its own counts when it closes),
 * for `shoal eval` and reports (communication overhead, exported and imported ratios).
 */
import { join } from 'node:path';
import type { NodeExchangeCounts } from '../../eval/collab-input.js';
import type { ExchangeStats } from '../../exchange/exchange.js';
import { readStateFile, writeStateFile } from '../../store/state-file.js';

/** The file name in a node's crawl directory. */
export const EXCHANGE_TOTALS_FILE = 'exchange.json';

/**
 * Counts over every run (message bytes as encoded): the collaboration metrics' per-node counts
 * (`NodeExchangeCounts`), and the messages behind them.
 */
export interface ExchangeTotals extends NodeExchangeCounts {
  readonly runs: number;
  readonly messagesSent: number;
  readonly messagesReceived: number;
  readonly linkSummariesSent: number;
  readonly linkSummariesReceived: number;
  /** Page fingerprints shared for near-duplicate detection (one per page and receiving partition), and their encoded bytes. */
  readonly simhashesSent: number;
  readonly simhashesReceived: number;
  readonly simhashBytesSent: number;
  readonly simhashBytesReceived: number;
  /** Messages received that could not be decoded. */
  readonly invalidReceived: number;
}

const ZERO: ExchangeTotals = {
  runs: 0,
  messagesSent: 0,
  messagesReceived: 0,
  bytesSent: 0,
  bytesReceived: 0,
  urlsSent: 0,
  urlsReceived: 0,
  pagesSent: 0,
  pagesReceived: 0,
  pageBytesSent: 0,
  pageBytesReceived: 0,
  linkSummariesSent: 0,
  linkSummariesReceived: 0,
  simhashesSent: 0,
  simhashesReceived: 0,
  simhashBytesSent: 0,
  simhashBytesReceived: 0,
  invalidReceived: 0,
};

/** Counts added after the file's first version: a file written before them reads them as 0. */
const LATER: ReadonlySet<string> = new Set(['simhashesSent', 'simhashesReceived', 'simhashBytesSent', 'simhashBytesReceived']);

/** The totals in `dir`, or zeros when the file does not exist yet. */
export function readExchangeTotals(dir: string): ExchangeTotals {
  return (
    readStateFile(join(dir, EXCHANGE_TOTALS_FILE), 'the exchange totals', (parsed) => {
      const out: Record<string, number> = {};
      for (const key of Object.keys(ZERO)) {
        const v = (parsed as Record<string, unknown>)[key] ?? (LATER.has(key) ? 0 : undefined);
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} is not a count`);
        out[key] = v;
      }
      return out as unknown as ExchangeTotals;
    }) ?? ZERO
  );
}

/** Adds one run's endpoint counters to the totals in `dir` (written durably: store/state-file.ts). */
export function addExchangeTotals(dir: string, run: ExchangeStats): ExchangeTotals {
  const t = readExchangeTotals(dir);
  const s = run.sent;
  const r = run.received;
  const next: ExchangeTotals = {
    runs: t.runs + 1,
    messagesSent: t.messagesSent + s.messages,
    messagesReceived: t.messagesReceived + r.messages,
    bytesSent: t.bytesSent + s.bytes,
    bytesReceived: t.bytesReceived + r.bytes,
    urlsSent: t.urlsSent + s.urls,
    urlsReceived: t.urlsReceived + r.urls,
    pagesSent: t.pagesSent + s.pages,
    pagesReceived: t.pagesReceived + r.pages,
    pageBytesSent: t.pageBytesSent + s.pageBytes,
    pageBytesReceived: t.pageBytesReceived + r.pageBytes,
    linkSummariesSent: t.linkSummariesSent + s.linkSummaries,
    linkSummariesReceived: t.linkSummariesReceived + r.linkSummaries,
    simhashesSent: t.simhashesSent + s.simhashes,
    simhashesReceived: t.simhashesReceived + r.simhashes,
    simhashBytesSent: t.simhashBytesSent + s.simhashBytes,
    simhashBytesReceived: t.simhashBytesReceived + r.simhashBytes,
    invalidReceived: t.invalidReceived + r.invalid,
  };
  writeStateFile(join(dir, EXCHANGE_TOTALS_FILE), next, 'the exchange totals');
  return next;
}
