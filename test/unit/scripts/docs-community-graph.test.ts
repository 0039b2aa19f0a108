/**
 * How the real-graph section of `npm run experiment:community` (scripts/experiment/docs-community-graph.ts)
 * turns a crawl graph into a graph with known communities: pages renumbered in URL order, each page
 * labelled with its documentation site, repeated links and self-links dropped, and links leaving a
 * site counted. The graph, written as URL → out-links in document order:
 *
 *     python/b  → python/a, python/a, python/b, postgresql/x      (a repeat, a self-link, a link across)
 *     python/a  → python/b
 *     postgresql/x → postgresql/y, other/z                           (a link off the three sites)
 *
 * URL order, the ids: docs.postgresql.test/x 0, /y 1, docs.python.test/a 2, /b 3, other.test/z 4.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { siteCommunityGraph, type DocsCommunityGraph } from '../../../scripts/experiment/docs-community-graph.js';
import { graphFromAdjacency } from '../../../src/sim/graph/memory-graph.js';

const PY = 'http://docs.python.test:18004';
const PG = 'http://docs.postgresql.test:18004';

const crawl = graphFromAdjacency(
  {
    [`${PY}/b`]: [`${PY}/a`, `${PY}/a`, `${PY}/b`, `${PG}/x`],
    [`${PY}/a`]: [`${PY}/b`],
    [`${PG}/x`]: [`${PG}/y`, 'http://other.test/z'],
  },
  [`${PY}/b`],
);

/** The out-links of page `p` as ids. */
function linksOf(g: DocsCommunityGraph, p: number): number[] {
  return Array.from(g.graph.targets.subarray(g.graph.offsets[p], g.graph.offsets[p + 1]));
}

describe('siteCommunityGraph', () => {
  const g = siteCommunityGraph(crawl);

  it('numbers pages in URL order and labels each with its site (−1 off the sites)', () => {
    // DOCS_SITES order: python 0, postgresql 1, apache 2.
    assert.deepEqual(Array.from(g.community), [1, 1, 0, 0, -1]);
    assert.deepEqual(
      g.sitePages.map((p) => [...p]),
      [[2, 3], [0, 1], []],
    );
  });

  it('keeps each distinct link once, in document order, without self-links', () => {
    assert.deepEqual(linksOf(g, 3), [2, 0]); // python/b → python/a, postgresql/x
    assert.deepEqual(linksOf(g, 2), [3]);
    assert.deepEqual(linksOf(g, 0), [1, 4]);
    assert.equal(g.graph.offsets[g.graph.nodeCount], 5);
    assert.equal(g.parsedLinks, 7);
  });

  it('counts the links that leave each site', () => {
    assert.deepEqual(g.siteLinks, [
      { all: 3, crossing: 1 },
      { all: 2, crossing: 1 },
      { all: 0, crossing: 0 },
    ]);
  });
});
