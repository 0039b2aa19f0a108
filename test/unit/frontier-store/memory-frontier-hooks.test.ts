/**
 * The two hooks the persistent frontier needs from MemoryFrontier (src/frontier/memory-frontier.ts):
 * `addAt` (a URL paged back in from disk keeps its add order and attempt count) and `withdraw` (the
 * worst URL of a window goes back to disk). Manual clock; default politeness unless stated.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier } from '../../../src/frontier/memory-frontier.js';
import { entry, take, waitUntil } from '../../helpers/frontier.js';

describe('MemoryFrontier.addAt', () => {
  test('the given seq decides the order among equal priorities; the attempt is carried to the lease', () => {
    // Same host, same priority, added in the order x, y, z with seqs 30, 10, 20: y (10) leaves first.
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    frontier.addAt(entry('http://a.test/x'), 0, { seq: 30, attempt: 1 });
    frontier.addAt(entry('http://a.test/y'), 0, { seq: 10, attempt: 3 });
    frontier.addAt(entry('http://a.test/z'), 0, { seq: 20, attempt: 1 });
    const order: string[] = [];
    for (let i = 0; i < 3; i++) {
      const lease = take(frontier, i);
      order.push(`${lease.entry.url}#${lease.attempt}`);
      frontier.complete(lease, { fetchDurationMs: 0 }, i);
    }
    assert.deepEqual(order, ['http://a.test/y#3', 'http://a.test/z#1', 'http://a.test/x#1']);
  });

  test('a plain add after addAt comes after the highest seq seen', () => {
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    frontier.addAt(entry('http://a.test/1'), 0, { seq: 100, attempt: 1 });
    frontier.add(entry('http://a.test/2'), 0);
    frontier.addAt(entry('http://a.test/3'), 0, { seq: 50, attempt: 1 });
    const order = [0, 1, 2].map((t) => {
      const lease = take(frontier, t);
      frontier.complete(lease, { fetchDurationMs: 0 }, t);
      return lease.entry.url;
    });
    assert.deepEqual(order, ['http://a.test/3', 'http://a.test/1', 'http://a.test/2']);
  });

  test('across hosts the given seq decides which ready host goes first', () => {
    const frontier = new MemoryFrontier();
    frontier.addAt(entry('http://a.test/'), 0, { seq: 9, attempt: 1 });
    frontier.addAt(entry('http://b.test/'), 0, { seq: 4, attempt: 1 });
    assert.equal(take(frontier, 0).entry.url, 'http://b.test/');
  });

  test('a URL already held is refused; bad seq or attempt throws RangeError', () => {
    const frontier = new MemoryFrontier();
    assert.equal(frontier.addAt(entry('http://a.test/'), 0, { seq: 1, attempt: 1 }), true);
    assert.equal(frontier.addAt(entry('http://a.test/'), 0, { seq: 2, attempt: 1 }), false);
    assert.throws(() => frontier.addAt(entry('http://a.test/b'), 0, { seq: -1, attempt: 1 }), RangeError);
    assert.throws(() => frontier.addAt(entry('http://a.test/b'), 0, { seq: 0.5, attempt: 1 }), RangeError);
    assert.throws(() => frontier.addAt(entry('http://a.test/b'), 0, { seq: 3, attempt: 0 }), RangeError);
    assert.equal(frontier.stats().queued, 1);
  });
});

describe('MemoryFrontier.withdraw', () => {
  test('a withdrawn URL is never leased; the host goes on with the others', () => {
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    for (const p of ['1', '2', '3']) frontier.add(entry(`http://a.test/${p}`), 0);
    assert.equal(frontier.withdraw('http://a.test/1', 0), true);
    assert.equal(frontier.stats().queued, 2);
    const urls: string[] = [];
    for (let r = frontier.next(0); r.kind === 'url'; r = frontier.next(0)) {
      urls.push(r.lease.entry.url);
      frontier.complete(r.lease, { fetchDurationMs: 0 }, 0);
    }
    assert.deepEqual(urls, ['http://a.test/2', 'http://a.test/3']);
    assert.equal(frontier.next(0).kind, 'empty');
  });

  test('only queued URLs can be withdrawn: unknown and in-flight URLs are refused', () => {
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    const lease = take(frontier, 0);
    assert.equal(frontier.withdraw('http://a.test/1', 0), false);
    assert.equal(frontier.withdraw('http://a.test/never', 0), false);
    assert.equal(frontier.stats().inFlight, 1);
    frontier.complete(lease, { fetchDurationMs: 0 }, 0);
  });

  test('withdrawing the last URL of an idle host frees its back queue for a host in the front queue', () => {
    // One back queue: a.test holds it, b.test waits in the front queue.
    const frontier = new MemoryFrontier({ backQueueCount: 1 });
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://b.test/1'), 0);
    assert.deepEqual([frontier.stats().activeHosts, frontier.stats().frontQueued], [1, 1]);
    assert.equal(frontier.withdraw('http://a.test/1', 0), true);
    assert.deepEqual([frontier.stats().activeHosts, frontier.stats().frontQueued], [1, 0]);
    assert.equal(take(frontier, 0).entry.url, 'http://b.test/1');
  });

  test('a URL waiting in the front queue can be withdrawn', () => {
    const frontier = new MemoryFrontier({ backQueueCount: 1 });
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://b.test/1'), 0);
    assert.equal(frontier.withdraw('http://b.test/1', 0), true);
    assert.equal(frontier.stats().frontQueued, 0);
    frontier.complete(take(frontier, 0), { fetchDurationMs: 0 }, 0);
    assert.equal(frontier.next(0).kind, 'empty');
  });

  test('a host that loses its back queue by a withdrawal keeps its delay', () => {
    // a.test/1 fetched 0..100 ms: next contact at 1100. Its queued a.test/2 is withdrawn at 200 and
    // added again at 300: the host must still wait until 1100.
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    frontier.complete(take(frontier, 0), { fetchDurationMs: 100 }, 100);
    assert.equal(frontier.withdraw('http://a.test/2', 200), true);
    assert.equal(frontier.stats().activeHosts, 0);
    frontier.add(entry('http://a.test/2'), 300);
    assert.equal(waitUntil(frontier.next(300)), 1100);
    assert.equal(take(frontier, 1100).entry.url, 'http://a.test/2');
  });

  test("withdrawing a ready host's best URL re-ranks the host among ready hosts", () => {
    // a.test holds a priority-9 and a priority-1 URL, b.test a priority-5 one: a goes first until
    // its 9 is withdrawn, then b's 5 beats a's 1.
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/9', { priority: 9 }), 0);
    frontier.add(entry('http://a.test/1', { priority: 1 }), 0);
    frontier.add(entry('http://b.test/5', { priority: 5 }), 0);
    frontier.withdraw('http://a.test/9', 0);
    assert.equal(take(frontier, 0).entry.url, 'http://b.test/5');
    assert.equal(take(frontier, 0).entry.url, 'http://a.test/1');
  });
});
