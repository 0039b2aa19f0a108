/**
 * X4's per-host activity cap in the simulator: the simulated node's frontier is the crawl's slot
 * frontier, so the cap reorders a virtual crawl exactly as a real one (one fetch slot, 10 ms
 * fetches, no politeness gap, four connections per host).
 *
 *   big/ ──▶ big/1 … big/6, then s/
 *   s/   ──▶ s/1 s/2 s/3
 *
 * Breadth-first takes big's six pages before s/ (they were found first). With a share of one half,
 * big goes only while it took at most half of the fetches so far:
 *   big/ (0 of 0)  s/ (big: 1 of 1)  big/1 (1 of 2)  s/1 (2 of 3)  big/2 (2 of 4)  s/2  big/3  s/3
 * then s has nothing left and big, over its share, goes anyway: big/4 big/5 big/6.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BreadthFirstPolicy } from '../../../src/order/bfs.js';
import { graphFromAdjacency } from '../../../src/sim/graph/memory-graph.js';
import { simulate, type SimPoliteness } from '../../../src/sim/simulator.js';

const WEB = {
  'http://big/': [1, 2, 3, 4, 5, 6].map((i) => `http://big/${i}`).concat(['http://s/']),
  'http://s/': ['http://s/1', 'http://s/2', 'http://s/3'],
};
const graph = graphFromAdjacency(WEB, ['http://big/']);
const POLITENESS: SimPoliteness = { minDelayMs: 0, delayFactor: 0, maxConnectionsPerHost: 4, maxConnectionsPerIp: 4 };

async function order(politeness: SimPoliteness): Promise<string[]> {
  const run = await simulate({ graph, createPolicy: () => new BreadthFirstPolicy(), concurrency: 1, latencyMs: 10, politeness });
  return Array.from(run.visits.pages, (p) => graph.urlOf(p).replace('http://', ''));
}

describe('simulator with the activity cap', () => {
  it('visits as the crawl would: the dominant host passed over while the other may go', async () => {
    assert.deepEqual(await order(POLITENESS), ['big/', 'big/1', 'big/2', 'big/3', 'big/4', 'big/5', 'big/6', 's/', 's/1', 's/2', 's/3']);
    assert.deepEqual(await order({ ...POLITENESS, activityCap: { maxShare: 0.5, windowMs: 3_600_000 } }), [
      'big/',
      's/',
      'big/1',
      's/1',
      'big/2',
      's/2',
      'big/3',
      's/3',
      'big/4',
      'big/5',
      'big/6',
    ]);
  });
});
