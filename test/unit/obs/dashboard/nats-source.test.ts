/**
 * A distributed crawl's statistics into the dashboard (src/obs/dashboard/nats-source.ts), with a
 * stand-in for the NATS reader: what each entry gives, what is skipped, and when the crawl is over.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DashboardAggregator } from '../../../../src/obs/dashboard/dashboard-aggregator.js';
import { applyReading, pollNatsCrawl } from '../../../../src/obs/dashboard/nats-source.js';
import type { CrawlReading } from '../../../../src/exchange/nats/nats-crawl-reader.js';
import type { Member } from '../../../../src/exchange/nats/nats-membership.js';
import type { CrawlProgress } from '../../../../src/obs/events.js';
import { progressEvent } from '../../../helpers/crawl-events.js';

function progress(node: string, pages: number): CrawlProgress {
  return progressEvent(node, { elapsedMs: 1_000 * pages, urls: pages, pages, bytes: 100 * pages });
}

function member(nodeId: string): Member {
  return { nodeId, partitions: [0], host: 'h', pid: 1, startedAtMs: 0, heartbeatAtMs: 0 };
}

const slow = { host: 'slow.test', fetches: 3, meanMs: 900, maxMs: 2_000, node: 'a' };

describe('NATS statistics into the dashboard', () => {
  test('each entry with a progress event is a node; its partitions, idleness and slow hosts come along', () => {
    const aggregator = new DashboardAggregator({ crawlId: 'x', source: 'nats' });
    const live = applyReading(
      aggregator,
      {
        members: [member('a'), member('b')],
        stats: {
          a: { atMs: 5, partitions: [0, 2], isIdle: false, progress: progress('a', 10), slowHosts: [slow, { host: 'bad' }] },
          b: { atMs: 6, partitions: [1], isIdle: true, progress: progress('b', 4) },
          // A node of an older shoal publishes no progress; a mangled entry; an entry naming another node.
          old: { atMs: 1, partitions: [3], isIdle: true, pages: 9 },
          bad: { progress: { node: 'bad', pages: 'many' } },
          c: { progress: progress('someone-else', 3) },
        },
      },
      100,
    );
    assert.equal(live, 2);
    const s = aggregator.snapshot(100);
    assert.deepEqual(
      s.nodes.map((n) => [n.id, n.pages, n.partitions, n.isIdle, n.updatedAtMs]),
      [
        ['a', 10, [0, 2], false, 5],
        ['b', 4, [1], true, 6],
      ],
    );
    assert.equal(s.totals.pages, 14);
    assert.deepEqual(s.slowHosts, [slow], 'the published slow hosts, the malformed one left out');
  });

  test('the poll ends the crawl once the members seen have all left, not before any came', async () => {
    const readings: CrawlReading[] = [
      { members: [], stats: {} },
      { members: [member('a')], stats: { a: { progress: progress('a', 1) } } },
      { members: [member('a')], stats: { a: { progress: progress('a', 2) } } },
      { members: [], stats: { a: { progress: { ...progress('a', 3), stopReason: 'exhausted' } } } },
    ];
    let reads = 0;
    const errors: unknown[] = [];
    const aggregator = new DashboardAggregator({ crawlId: 'x', source: 'nats' });
    const poll = pollNatsCrawl(
      {
        read: async () => {
          reads++;
          if (reads === 2) throw new Error('broker away');
          const next = readings.shift();
          if (next === undefined) throw new Error('read after the end');
          return next;
        },
      },
      aggregator,
      { intervalMs: 1, onError: (err) => errors.push(err) },
    );
    await poll.over;
    await poll.stop();
    assert.equal(reads, 5, 'one failed reading, tried again');
    assert.equal(errors.length, 1);
    const s = aggregator.snapshot(0);
    assert.equal(s.totals.pages, 3);
    assert.equal(s.crawl.stopReason, 'exhausted');
  });

  test('stop() ends a poll that is waiting for nodes', async () => {
    let reads = 0;
    const poll = pollNatsCrawl(
      {
        read: async () => {
          reads++;
          return { members: [], stats: {} };
        },
      },
      new DashboardAggregator({ crawlId: 'x', source: 'nats' }),
      { intervalMs: 60_000 },
    );
    await poll.stop();
    assert.equal(reads, 1);
  });
});
