/**
 * `exchange.json` (src/node/collaboration/exchange-totals.ts): each run adds its endpoint's counts,
 * the shared SimHash fingerprints among them; a file written before those counts existed reads them
 * as 0, while any other missing or bad count is still refused.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ExchangeStats, MessageCounts } from '../../../../src/exchange/exchange.js';
import { addExchangeTotals, EXCHANGE_TOTALS_FILE, readExchangeTotals } from '../../../../src/node/collaboration/exchange-totals.js';
import { scratchDirs } from '../../../helpers/scratch.js';

const { root } = scratchDirs('shoal-exchange-totals-');

const counts = (n: number): MessageCounts => ({
  messages: n,
  bytes: 100 * n,
  urlBatches: n,
  urls: 10 * n,
  pages: 0,
  pageBytes: 0,
  linkSummaries: 0,
  linkCounts: 0,
  linkSummaryBytes: 0,
  simhashBatches: n,
  simhashes: 3 * n,
  simhashBytes: 40 * n,
  controls: 0,
});
const run = (sent: number, received: number): ExchangeStats => ({
  sent: counts(sent),
  received: { ...counts(received), invalid: 0 },
  unconfirmed: 0,
});

describe('exchange totals', () => {
  test('runs add their SimHash counts; a file from before them reads them as 0', () => {
    const dir = join(root, 'old');
    const old = {
      runs: 1,
      messagesSent: 2,
      messagesReceived: 3,
      bytesSent: 4,
      bytesReceived: 5,
      urlsSent: 6,
      urlsReceived: 7,
      pagesSent: 0,
      pagesReceived: 0,
      pageBytesSent: 0,
      pageBytesReceived: 0,
      linkSummariesSent: 0,
      linkSummariesReceived: 0,
      invalidReceived: 0,
    };
    writeFileSync(join(root, EXCHANGE_TOTALS_FILE), JSON.stringify(old));
    const before = readExchangeTotals(root);
    assert.deepEqual([before.simhashesSent, before.simhashBytesSent, before.simhashesReceived, before.simhashBytesReceived], [0, 0, 0, 0]);
    const after = addExchangeTotals(root, run(2, 5));
    assert.equal(after.runs, 2);
    assert.equal(after.bytesSent, 204);
    assert.deepEqual([after.simhashesSent, after.simhashBytesSent, after.simhashesReceived, after.simhashBytesReceived], [6, 80, 15, 200]);
    assert.deepEqual(readExchangeTotals(root), after);
    assert.equal(readExchangeTotals(dir).runs, 0, 'no file: zeros');
  });

  test('a count that was always there is still required', () => {
    writeFileSync(join(root, EXCHANGE_TOTALS_FILE), JSON.stringify({ runs: 1 }));
    assert.throws(() => readExchangeTotals(root), /exchange totals/);
  });
});
