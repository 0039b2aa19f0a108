/**
 * The geographic metrics (src/eval/geo-metrics.ts) on small hand-drawn graphs, each answer worked out
 * by hand in the test's comment.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csrFromEdges, type Csr } from '../../../src/eval/csr.js';
import {
  downloadedNeighbours,
  geoCentralities,
  geoCoverage,
  geoFocus,
  geoLocality,
  geoMetrics,
  geoPages,
  meanGeoCentrality,
  uniqueEntityRatio,
  type PageEntities,
} from '../../../src/eval/geo-metrics.js';
import { Rng } from '../../../src/core/prng.js';

function graph(n: number, edges: readonly (readonly [number, number])[]): Csr {
  return csrFromEdges(
    n,
    Uint32Array.from(edges, (e) => e[0]),
    Uint32Array.from(edges, (e) => e[1]),
  );
}

/** Entities from a list per page: [city, key] pairs. */
function entitiesOf(perPage: readonly (readonly (readonly [number, string])[])[]): PageEntities {
  const offsets = new Uint32Array(perPage.length + 1);
  const city: number[] = [];
  const key: string[] = [];
  perPage.forEach((list, p) => {
    for (const [c, k] of list) {
      city.push(c);
      key.push(k);
    }
    offsets[p + 1] = city.length;
  });
  return { offsets, city: Int32Array.from(city), key };
}

const ones = (n: number): Uint8Array => new Uint8Array(n).fill(1);
const close = (actual: number | null, expected: number, what = ''): void =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-12, `${what} ${actual} != ${expected}`);

/*
 * The worked example of the paper's Figure 2, pages renumbered from 0:
 *
 *            0
 *         /  |  \
 *        1   2   3
 *       / \  |   |
 *      4   5 6   7
 *
 * Every page holds an entity. GC_2(0) = 1 + 3·0.1 + 4·0.01 = 1.34; GC_2(1) = 1 + 2·0.1 = 1.2;
 * GC_2(2) = GC_2(3) = 1.1; each leaf 1 (no out-links). Mean = (1.34 + 1.2 + 1.1 + 1.1 + 4) / 8 = 1.0925.
 */
const TREE: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, 2],
  [0, 3],
  [1, 4],
  [1, 5],
  [2, 6],
  [3, 7],
];

describe('geo centrality', () => {
  test("the paper's Figure 2: GC_2 of the root is 1.34 with m = 10", () => {
    const gc = geoCentralities(graph(8, TREE), ones(8), ones(8));
    close(gc[0] as number, 1.34, 'root');
    close(gc[1] as number, 1.2, 'page 1');
    close(gc[2] as number, 1.1, 'page 2');
    close(gc[7] as number, 1, 'leaf');
    const mean = meanGeoCentrality(graph(8, TREE), ones(8), ones(8));
    assert.equal(mean.pages, 8);
    assert.equal(mean.geoPages, 8);
    close(mean.mean, 8.74 / 8);
  });

  test('only geo pages count: with the root alone geo, the root has 1 and the others 0 (links go down)', () => {
    const isGeo = new Uint8Array(8);
    isGeo[0] = 1;
    const gc = geoCentralities(graph(8, TREE), ones(8), isGeo);
    assert.deepEqual([...gc], [1, 0, 0, 0, 0, 0, 0, 0]);
    // Only the leaves 4 and 6 geo: root 0.01 + 0.01 = 0.02, page 1 0.1, page 2 0.1.
    const leaves = Uint8Array.from([0, 0, 0, 0, 1, 0, 1, 0]);
    const g = geoCentralities(graph(8, TREE), ones(8), leaves);
    close(g[0] as number, 0.02, 'root');
    close(g[1] as number, 0.1, 'page 1');
    close(g[2] as number, 0.1, 'page 2');
    close(g[3] as number, 0, 'page 3');
  });

  test('the walk stays within the downloaded pages', () => {
    // Page 1 not downloaded: 4 and 5 are not reached from 0 (nor counted). GC_2(0) = 1 + 0.2 + 0.02 = 1.22.
    const downloaded = ones(8);
    downloaded[1] = 0;
    const gc = geoCentralities(graph(8, TREE), downloaded, ones(8));
    close(gc[0] as number, 1.22, 'root');
    assert.equal(gc[1], 0, 'a page not downloaded has no GC');
    // Mean over the 7 downloaded: (1.22 + 1.1 + 1.1 + 4) / 7.
    close(meanGeoCentrality(graph(8, TREE), downloaded, ones(8)).mean, 7.42 / 7);
  });

  test('each page counts once, at its shortest distance, and repeated links do not add', () => {
    // A shortcut 0 → 4 and a repeated 0 → 1: 4 is at distance 1. GC_2(0) = 1 + 4·0.1 + 3·0.01 = 1.43.
    const gc = geoCentralities(graph(8, [...TREE, [0, 4], [0, 1]]), ones(8), ones(8));
    close(gc[0] as number, 1.43);
    // A cycle 0 → 1 → 0: 0 is not counted again at distance 2. GC_2(0) = 1 + 0.1 = 1.1.
    close(
      geoCentralities(
        graph(2, [
          [0, 1],
          [1, 0],
        ]),
        ones(2),
        ones(2),
      )[0] as number,
      1.1,
    );
  });

  test('k and m are parameters: a chain with k = 3, m = 2 gives 1 + 1/2 + 1/4 + 1/8', () => {
    const chain = graph(5, [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ]);
    close(geoCentralities(chain, ones(5), ones(5), 3, 2)[0] as number, 1.875);
    close(geoCentralities(chain, ones(5), ones(5), 0, 10)[0] as number, 1, 'k = 0: the page itself');
    assert.throws(() => geoCentralities(chain, ones(5), ones(5), 1.5, 10), RangeError);
    assert.throws(() => geoCentralities(chain, ones(5), ones(5), 2, 0), RangeError);
  });

  test('nothing downloaded: mean is null', () => {
    const r = meanGeoCentrality(graph(8, TREE), new Uint8Array(8), ones(8));
    assert.equal(r.pages, 0);
    assert.equal(r.mean, null);
  });
});

describe('geo coverage and unique entities', () => {
  // Page 1 geo (city 0); page 2 only an entity of a city that is no target; page 0 none.
  const entities = entitiesOf([[], [[0, 'a']], [[-1, 'x']]]);

  test('coverage counts every download, and distinct pages apart', () => {
    const isGeo = geoPages(entities, 3);
    assert.deepEqual([...isGeo], [0, 1, 0]);
    // Node A fetched 0, 1, 1; node B 1, 2: 5 downloads, 3 of page 1 → 3/5; distinct 3 pages, 1 geo → 1/3.
    const r = geoCoverage([{ pages: [0, 1, 1] }, { pages: [1, 2] }], isGeo);
    assert.deepEqual(r, { downloads: 5, geoDownloads: 3, coverage: 0.6, uniquePages: 3, uniqueGeoPages: 1, uniqueCoverage: 1 / 3 });
    const none = geoCoverage([{ pages: [] }], isGeo);
    assert.equal(none.coverage, null);
    assert.equal(none.uniqueCoverage, null);
  });

  test('unique-entity ratio: repeats of a page and of an address count in the total', () => {
    // Page 0: a; page 1: a, c (a repeated on another page); page 2: x of a city that is no target.
    const e = entitiesOf([
      [[0, 'a']],
      [
        [1, 'a'],
        [2, 'c'],
      ],
      [[-1, 'x']],
    ]);
    // A fetched 0, 1, 2 and B fetched 1: entities 1 + 2 + 0 + 2 = 5, distinct {a, c} = 2 → 0.4.
    assert.deepEqual(uniqueEntityRatio([{ pages: [0, 1, 2] }, { pages: [1] }], e), { entities: 5, unique: 2, ratio: 0.4 });
    assert.deepEqual(uniqueEntityRatio([{ pages: [2] }], e), { entities: 0, unique: 0, ratio: null });
  });
});

describe('geo focus', () => {
  // Cities 0..2. Page 0: city 0; page 1: city 1; page 2: cities 0 and 2; page 3: a city that is no
  // target; page 4: no entity.
  const entities = entitiesOf([
    [[0, 'a']],
    [[1, 'b']],
    [
      [0, 'c'],
      [2, 'd'],
    ],
    [[-1, 'x']],
    [],
  ]);

  test('per node and both means', () => {
    const f = geoFocus(
      [
        // Owns city 0; geo pages 0, 1, 2 (3 and 4 are not geo), own 0 and 2 → 2/3.
        { node: 'a', cities: [0], pages: [0, 1, 2, 3, 4] },
        // Owns 1 and 2; distinct pages {1, 3}: geo 1, own 1 → 1 (the repeat of 1 counts once).
        { node: 'b', cities: [1, 2], pages: [1, 1, 3] },
        // General: no focus.
        { node: 'g', cities: [], pages: [0] },
        // Geo-sensitive without geo pages: focus null, left out of the mean.
        { node: 'd', cities: [2], pages: [4] },
      ],
      entities,
    );
    assert.deepEqual(
      f.nodes.map((r) => [r.node, r.cities, r.pages, r.geoPages, r.ownPages]),
      [
        ['a', 1, 5, 3, 2],
        ['b', 2, 2, 1, 1],
        ['g', 0, 1, 1, 0],
        ['d', 1, 1, 0, 0],
      ],
    );
    close(f.nodes[0]?.focus ?? null, 2 / 3);
    assert.equal(f.nodes[1]?.focus, 1);
    assert.equal(f.nodes[2]?.focus, null);
    assert.equal(f.nodes[3]?.focus, null);
    // Unweighted mean of 2/3 and 1; pooled (2 + 1) / (3 + 1).
    close(f.mean, 5 / 6, 'mean');
    close(f.pooled, 3 / 4, 'pooled');
  });

  test('no geo-sensitive node: both means null', () => {
    const f = geoFocus([{ node: 'g', cities: [], pages: [0, 1] }], entities);
    assert.equal(f.mean, null);
    assert.equal(f.pooled, null);
  });
});

describe('geographic locality', () => {
  /*
   * Pages 0..6, city of each: 0 → 0, 1 → 0, 2 → 1, 3 → none, 4 → 1, 5 → 1 (not downloaded), 6 → none.
   *
   *   0 ⇄ 1 → 2 → 3 → 4 ↺      0 → 5      6 (no links)
   *
   * Linked pairs (each once, either direction, self-link and the pair with 5 left out):
   * {0,1} same; {1,2} differ; {2,3} differ; {3,4} differ → 4 pairs, 4 counted, 1 same: δ = 1/4.
   * Unlinked pairs of the 6 downloaded pages: 15 − 4 = 11: {0,2} {0,3} {0,4} {0,6} {1,3} {1,4}
   * {1,6} {2,4} {2,6} {3,6} {4,6}; {3,6} has no city (not counted) → 10 counted, {2,4} same:
   * δ̃ = 1/10.
   */
  const links = graph(7, [
    [0, 1],
    [1, 0],
    [1, 2],
    [2, 3],
    [3, 4],
    [4, 4],
    [0, 5],
  ]);
  const cityOf = Int32Array.from([0, 0, 1, -1, 1, 1, -1]);
  const downloaded = Uint8Array.from([1, 1, 1, 1, 1, 0, 1]);
  const noDraws = { int: (): number => assert.fail('an exact count draws nothing') };

  test('δ over linked pairs and exact δ̃ over every unlinked pair', () => {
    const r = geoLocality(links, downloaded, cityOf, 11, noDraws);
    assert.deepEqual(r.linked, { pairs: 4, counted: 4, same: 1, share: 0.25 });
    assert.deepEqual(r.unlinked, { pairs: 11, counted: 10, same: 1, share: 0.1, isExact: true });
  });

  test('the undirected neighbour lists: sorted, once, downloaded only', () => {
    const g = downloadedNeighbours(links, downloaded);
    const of = (u: number): number[] => [...g.targets.subarray(g.offsets[u] as number, g.offsets[u + 1] as number)];
    assert.deepEqual(of(0), [1]);
    assert.deepEqual(of(1), [0, 2]);
    assert.deepEqual(of(4), [3]);
    assert.deepEqual(of(5), []);
  });

  test('pairs without a city are not "the same city"', () => {
    const r = geoLocality(links, downloaded, new Int32Array(7).fill(-1), 100, noDraws);
    assert.deepEqual(r.linked, { pairs: 4, counted: 0, same: 0, share: null });
    assert.equal(r.unlinked.share, null);
  });

  test('sampled δ̃ is deterministic per seed and near the exact value', () => {
    // 400 pages, each linked to 3 random others, a city among 4 for half of them.
    const rng = new Rng(5, 1, 0);
    const n = 400;
    const edges: [number, number][] = [];
    for (let u = 0; u < n; u++) for (let i = 0; i < 3; i++) edges.push([u, rng.int(n)]);
    const big = graph(n, edges);
    const cities = Int32Array.from({ length: n }, () => (rng.chance(0.5) ? rng.int(4) : -1));
    const all = ones(n);
    const exact = geoLocality(big, all, cities, n * n, noDraws);
    assert.equal(exact.unlinked.isExact, true);
    assert.equal(exact.unlinked.pairs, (n * (n - 1)) / 2 - exact.linked.pairs);
    const draw = (seed: number) => geoLocality(big, all, cities, 20_000, new Rng(seed, 2, 0)).unlinked;
    const a = draw(1);
    assert.equal(a.isExact, false);
    assert.equal(a.pairs, 20_000);
    assert.deepEqual(draw(1), a);
    assert.notDeepEqual(draw(2), a);
    // Exact δ̃ ≈ P(same city | a city) = (1/2 · 1/2 · 1/4) / (1 − 1/4) = 1/12; about 15 000 counted pairs drawn: within 0.02.
    assert.ok(Math.abs((a.share as number) - (exact.unlinked.share as number)) < 0.02, `${a.share} vs ${exact.unlinked.share}`);
  });
});

describe('geoMetrics', () => {
  test('gathers every metric and checks its input', () => {
    // The Figure 2 tree; every page geo for city 0 except 7 (city 1) and 6 (no entity).
    const perPage = Array.from({ length: 8 }, (_, p): [number, string][] => (p === 6 ? [] : [[p === 7 ? 1 : 0, `addr-${p % 4}`]]));
    const cityOf = Int32Array.from({ length: 8 }, (_, p) => (p === 6 ? -1 : p === 7 ? 1 : 0));
    const input = {
      pageCount: 8,
      nodes: [
        { node: 'geo-0', cities: [0], pages: [0, 1, 2, 3] },
        { node: 'geo-1', cities: [1], pages: [4, 5, 6, 7, 7] },
      ],
      entities: entitiesOf(perPage),
      links: graph(8, TREE),
      cityOf,
    };
    const m = geoMetrics(input);
    // 9 downloads, 8 of geo pages (6 is not); distinct 8 pages, 7 geo.
    assert.deepEqual([m.coverage.downloads, m.coverage.geoDownloads, m.coverage.uniquePages, m.coverage.uniqueGeoPages], [9, 8, 8, 7]);
    // geo-0: 4 geo pages, all city 0 → 1. geo-1: geo pages 4, 5, 7, own 7 → 1/3. Mean 2/3, pooled 5/7.
    close(m.focus.mean, 2 / 3);
    close(m.focus.pooled, 5 / 7);
    // Entities over the downloads: 8 (7 counted twice), keys addr-0..addr-3 → 4/8.
    assert.deepEqual(m.uniqueEntities, { entities: 8, unique: 4, ratio: 0.5 });
    // GC: root 1 + 0.3 + 0.03 (6 not geo) = 1.33; 1 → 1.2; 2 → 1 (6 not geo); 3 → 1.1; leaves 1, 1, 0, 1.
    close(m.centrality.mean, (1.33 + 1.2 + 1 + 1.1 + 3) / 8);
    // Linked pairs: 7 tree edges; counted all but none with both -1 → 7; same: 0-1 0-2 0-3 1-4 1-5 → 5 (2-6, 3-7 differ).
    assert.deepEqual(m.locality.linked, { pairs: 7, counted: 7, same: 5, share: 5 / 7 });
    assert.equal(m.locality.unlinked.pairs, 28 - 7);
    assert.throws(() => geoMetrics({ ...input, nodes: [{ node: 'x', cities: [], pages: [8] }] }), /page 8/);
    assert.throws(() => geoMetrics({ ...input, cityOf: new Int32Array(7) }), RangeError);
  });
});
