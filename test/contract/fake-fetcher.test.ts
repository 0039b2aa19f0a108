/**
 * The Fetcher contract (fetcher-contract.ts) against FakeFetcher (test/unit/node/fake-web.ts), the
 * scripted fetcher the node's unit tests crawl with: it answers the contract web from a table, each
 * request taking 100 ms on a manual clock, which `run` moves. It has no network, so it runs the
 * part of the contract every fetcher keeps; the node tests rely on it behaving as the real one.
 */
import { ManualClock } from '../../src/core/clock.js';
import { FakeFetcher, drive, type Reply } from '../unit/node/fake-web.js';
import { ROUTES, fetcherContract } from './fetcher-contract.js';

const ORIGIN = 'http://site.test';

fetcherContract('fake (node unit tests)', {
  make: async () => {
    const clock = new ManualClock();
    const fetcher = new FakeFetcher(clock, (url): Reply => ROUTES[new URL(url).pathname] ?? { status: 404 });
    return {
      fetcher,
      origin: ORIGIN,
      run: (call) => drive(clock, call),
      hits: (path) => fetcher.received.filter((r) => new URL(r.url).pathname === path).length,
      close: () => fetcher.close(),
    };
  },
});
