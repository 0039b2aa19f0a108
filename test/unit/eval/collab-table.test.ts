/**
 * Number formatting of the collaboration table (the table itself is checked against a whole crawl in
 * collab-metrics.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatCount, formatFixed, formatRatio } from '../../../src/eval/collab-table.js';

describe('formatCount', () => {
  it('groups digits by three with commas, whatever the locale', () => {
    assert.equal(formatCount(0), '0');
    assert.equal(formatCount(999), '999');
    assert.equal(formatCount(1000), '1,000');
    assert.equal(formatCount(1234567), '1,234,567');
    assert.equal(formatCount(-98765), '-98,765');
    assert.equal(formatCount(1999.6), '2,000');
  });
});

describe('formatFixed', () => {
  it('groups the integer part and keeps the decimals', () => {
    assert.equal(formatFixed(1001000, 2), '1,001,000.00');
    assert.equal(formatFixed(823044.66666, 4), '823,044.6667');
    assert.equal(formatFixed(-1234.5, 1), '-1,234.5');
    // A negative value that rounds to zero loses its sign.
    assert.equal(formatFixed(-0.0001, 2), '0.00');
  });
});

describe('formatRatio', () => {
  it('prints fixed decimals and n/a for null', () => {
    assert.equal(formatRatio(1 / 3), '0.3333');
    assert.equal(formatRatio(2, 2), '2.00');
    assert.equal(formatRatio(12345.5, 1), '12,345.5');
    assert.equal(formatRatio(null), 'n/a');
  });
});
