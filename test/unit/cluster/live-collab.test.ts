/**
 * The live collaboration metrics of an embedded crawl (src/cluster/live-collab.ts), counted from
 * fetch records as they come: the same numbers `src/eval/` computes afterwards.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LiveCollab } from '../../../src/cluster/live-collab.js';
import { communityScores, meanCommunityScores, ringCommunityGraph } from '../../../src/eval/community-metrics.js';
import { LiveCommunityScores } from '../../../src/eval/live-community-scores.js';

const record = (node: string, url: string, status: number | null = 200) => ({
  node,
  url,
  host: `${new URL(url).hostname}:8080`,
  status,
  fromUrl: null,
  topic: null,
});

describe('LiveCollab', () => {
  test('overlap, diversity, load balance and URLs per page from the records so far', () => {
    const live = new LiveCollab(['a', 'b', 'c']);
    // a: x, y, z; b: z, w; c: z (again), no response for v; a record of a node not in the crawl.
    for (const r of [
      record('a', 'http://h1.test/x'),
      record('a', 'http://h1.test/y'),
      record('a', 'http://h2.test/z'),
      record('b', 'http://h2.test/z'),
      record('b', 'http://h3.test/w'),
      record('c', 'http://h2.test/z'),
      record('c', 'http://h3.test/v', null),
      record('stranger', 'http://h9.test/q'),
      // The copy a node writes of a page forwarded to it names the fetcher: the page counted once.
      { ...record('a', 'http://h1.test/x'), isReceived: true },
    ])
      live.add(r);
    // N = 6 downloads, I = 4 distinct (x, y, z, w): overlap 2/6; hosts h1, h2, h3: 3/6; pages 3, 2, 1: max/mean 3/2.
    assert.deepEqual(live.figures(12), {
      downloads: 6,
      uniquePages: 4,
      overlap: 2 / 6,
      diversity: 3 / 6,
      loadMaxOverMean: 1.5,
      urlsPerPage: 2,
      topicLocality: null,
      geoCoverage: null,
      geoFocus: null,
      community: null,
    });
  });

  test('geo coverage and focus from the cities whose addresses each node found', () => {
    // a owns cities 0 and 1, b owns 2, g is general.
    const live = new LiveCollab(['a', 'b', 'g'], [[0, 1], [2], []]);
    const page = (node: string, url: string, geoCities: readonly number[] | null) => ({ ...record(node, url), geoCities });
    live.add(page('a', 'http://h.test/1', [0]));
    live.add(page('a', 'http://h.test/2', [2]));
    live.add(page('a', 'http://h.test/3', []));
    live.add(page('b', 'http://h.test/4', [2, 0]));
    live.add(page('g', 'http://h.test/5', [1]));
    live.add(page('g', 'http://h.test/6', null));
    const f = live.figures(0);
    // Analysed 5 (the 6th was not), 4 with an address: coverage 4/5; focus mean(a 1/2, b 1/1) = 3/4.
    assert.equal(f.geoCoverage, 4 / 5);
    assert.equal(f.geoFocus, 3 / 4);
    assert.equal(new LiveCollab(['a']).figures(0).geoCoverage, null);
  });

  test('topic locality of the discovery links: pages with a category whose discoverer has one', () => {
    const live = new LiveCollab(['a', 'b']);
    const page = (node: string, url: string, fromUrl: string | null, category: string | null) => ({
      ...record(node, url),
      fromUrl,
      topic: category === null ? null : { category, probability: 0.9, reason: 'classifier' as const },
    });
    live.add(page('a', 'http://h.test/', null, 'ARTS'));
    live.add(page('a', 'http://h.test/1', 'http://h.test/', 'ARTS'));
    live.add(page('b', 'http://h.test/2', 'http://h.test/', 'NEWS'));
    live.add(page('b', 'http://h.test/3', 'http://h.test/2', null));
    live.add(page('a', 'http://h.test/4', 'http://h.test/3', 'NEWS'));
    // Pairs: / → 1 same, / → 2 differ; 3 has no category, so 3 → 4 does not count.
    assert.equal(live.figures(0).topicLocality, 1 / 2);
  });

  test('community cohesion, precision and recall of each node’s downloads, against the truth’s communities', () => {
    const { graph, community } = ringCommunityGraph({ communities: 3, size: 20, k: 6, o: 1, seed: 4 });
    const pageOf = (url: string): number => (url.startsWith('http://h.test/p') ? Number(url.slice('http://h.test/p'.length)) : -1);
    const live = new LiveCollab(['a', 'b'], null, { scores: new LiveCommunityScores(graph, community, 2), pageOf });
    const a = [0, 1, 2, 25, 3];
    const b = [40, 41, 40, 59];
    for (const p of a) live.add(record('a', `http://h.test/p${p}`));
    for (const p of b) live.add(record('b', `http://h.test/p${p}`));
    live.add(record('b', 'http://elsewhere.test/'));
    live.add(record('a', 'http://h.test/p7', null));
    const want = meanCommunityScores([communityScores(graph, community, a), communityScores(graph, community, b)]);
    assert.deepEqual(live.figures(0).community, { cohesion: want.cohesion, precision: want.precision, recall: want.recall });
    assert.equal(live.figures(0).community?.precision, (4 / 5 + 1) / 2);
  });

  test('before any download: overlap 0, the ratios null', () => {
    assert.deepEqual(new LiveCollab(['a']).figures(0), {
      downloads: 0,
      uniquePages: 0,
      overlap: 0,
      diversity: null,
      loadMaxOverMean: null,
      urlsPerPage: null,
      topicLocality: null,
      geoCoverage: null,
      geoFocus: null,
      community: null,
    });
  });
});
