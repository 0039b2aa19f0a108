/**
 * The community strategy (src/partition/community/community.ts) and the votes table nodes give it
 * (citation-table.ts): the placement rule worked by hand, the cap k, ties, stickiness, seeds by
 * host hash, parameter errors, and the table's bounded memory.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CitationTable } from '../../../../src/partition/community/citation-table.js';
import { CommunityPartitioner, readsCitations } from '../../../../src/partition/community/community.js';
import { HostHashPartitioner } from '../../../../src/partition/hash/host-hash.js';
import { PartitionParamError } from '../../../../src/partition/partition-params.js';
import type { UrlToPlace } from '../../../../src/partition/partitioner.js';
import { createPartitioner } from '../../../../src/partition/registry.js';

const url = (citedBy?: readonly number[], isKept = false): UrlToPlace => ({
  url: 'http://a.test/x',
  hostname: 'a.test',
  ip: null,
  fromUrl: 'http://a.test/',
  ...(citedBy === undefined ? {} : { community: { citedBy, isKept } }),
});

describe('CommunityPartitioner', () => {
  const p = new CommunityPartitioner(4, { k: 3 });

  test('a URL goes to the partition whose pages cite it most, when that beats the asking node', () => {
    assert.deepEqual(p.placeUrl(url([1, 0, 2, 0]), 0), [2]);
    assert.deepEqual(p.placeUrl(url([1, 0, 2, 0]), 2), [2]);
    assert.deepEqual(p.placeUrl(url([0, 1, 0, 0]), 3), [1]);
  });

  test('a tie with the asking node keeps the URL there; a tie between others goes to the first', () => {
    assert.deepEqual(p.placeUrl(url([2, 2, 0, 0]), 0), [0]);
    assert.deepEqual(p.placeUrl(url([2, 2, 0, 0]), 1), [1]);
    assert.deepEqual(p.placeUrl(url([0, 2, 0, 2]), 0), [1]);
    assert.deepEqual(p.placeUrl(url([0, 0, 0, 0]), 2), [2]);
  });

  test('votes are capped at k: past k links, more citations do not take a URL away', () => {
    assert.deepEqual(p.placeUrl(url([3, 9, 0, 0]), 0), [0]);
    assert.deepEqual(p.placeUrl(url([2, 9, 0, 0]), 0), [1]);
  });

  test('a URL the node took before stays, whatever the votes', () => {
    assert.deepEqual(p.placeUrl(url([0, 0, 5, 0], true), 0), [0]);
  });

  test('seeds and URLs without votes are placed by host hash, the same on every node', () => {
    const hosts = new HostHashPartitioner(4);
    for (const host of ['a.test', 'b.test', 'c.example', 'www.d.org']) {
      const u: UrlToPlace = { url: `http://${host}/`, hostname: host, ip: null };
      const expected = hosts.placeUrl(u, 0);
      for (const self of [0, 1, 2, 3]) assert.deepEqual(p.placeUrl(u, self), expected, host);
    }
  });

  test('votes longer or shorter than the partition count are read as far as they go', () => {
    assert.deepEqual(p.placeUrl(url([0, 1]), 3), [1]);
    assert.deepEqual(p.placeUrl(url([0, 0, 0, 0, 7]), 2), [2]);
  });

  test('it reads citations; its spec names k and trackedUrls; bad parameters name the option', () => {
    assert.ok(readsCitations(p));
    assert.ok(!readsCitations(new HostHashPartitioner(2)));
    assert.deepEqual(p.spec, { id: 'community', params: { k: 3, trackedUrls: 1 << 17 } });
    assert.throws(
      () => new CommunityPartitioner(2, { k: 0 }),
      (e: unknown) => e instanceof PartitionParamError && e.param === 'k',
    );
    assert.throws(
      () => new CommunityPartitioner(2, { trackedUrls: 1.5 }),
      (e: unknown) => e instanceof PartitionParamError && e.param === 'trackedUrls',
    );
    assert.throws(() => createPartitioner({ strategy: 'community', k: -1 } as never, 2), /partition\.k/);
    assert.equal(createPartitioner({ strategy: 'community' } as never, 3).spec.params.k, 16);
  });
});

describe('CitationTable', () => {
  test('counts links per URL and partition, marks URLs kept, and ignores partitions out of range', () => {
    const t = new CitationTable<string>(3, 10);
    t.cite('u', 0);
    t.cite('u', 2, 5);
    t.cite('u', 7, 5);
    t.cite('u', -1);
    assert.deepEqual(Array.from(t.factsOf('u')?.citedBy ?? []), [1, 0, 5]);
    assert.equal(t.factsOf('u')?.isKept, false);
    t.markKept('u');
    assert.equal(t.factsOf('u')?.isKept, true);
    assert.equal(t.factsOf('v'), undefined);
  });

  test('holds at most capacity URLs, forgetting the one counted first', () => {
    const t = new CitationTable<number>(2, 3);
    for (const k of [1, 2, 3]) t.cite(k, 1, k);
    t.markKept(1);
    t.cite(4, 0);
    assert.equal(t.size, 3);
    assert.equal(t.factsOf(1), undefined);
    assert.deepEqual(Array.from(t.factsOf(4)?.citedBy ?? []), [1, 0]);
    assert.equal(t.factsOf(4)?.isKept, false, 'a reused slot starts clean');
    t.cite(1, 0);
    assert.deepEqual(Array.from(t.factsOf(1)?.citedBy ?? []), [1, 0], 'a forgotten URL comes back with new counts only');
    assert.equal(t.factsOf(2), undefined);
  });

  test('rejects a bad size', () => {
    assert.throws(() => new CitationTable(0, 1), RangeError);
    assert.throws(() => new CitationTable(1, 0), RangeError);
  });
});
