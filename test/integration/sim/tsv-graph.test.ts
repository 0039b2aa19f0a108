/**
 * TSV edge lists: sparse ids renumbered in increasing order, URLs normalized, host columns, nofollow
 * flags, comments, and a clear error naming the file and line for each kind of malformed line.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { detectGraphFormat } from '../../../src/sim/graph/load-graph.js';
import type { SimGraph } from '../../../src/sim/graph/sim-graph.js';
import { loadTsvGraph } from '../../../src/sim/graph/tsv-graph.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root } = scratchDirs('shoal-sim-tsv-');
let files = 0;
function file(text: string): string {
  const path = join(root, `graph-${files++}.tsv`);
  writeFileSync(path, text);
  return path;
}

function edges(g: SimGraph): string[] {
  const out: string[] = [];
  for (let p = 0; p < g.pageCount; p++) {
    for (let e = g.csr.offsets[p] as number; e < (g.csr.offsets[p + 1] as number); e++) {
      out.push(`${g.nameOf(p)}>${g.nameOf(g.csr.targets[e] as number)}${g.edgeNofollow?.[e] === 1 ? '!' : ''}`);
    }
  }
  return out;
}

describe('TSV edge lists', () => {
  it('renumbers sparse ids in increasing order and keeps each page’s links in file order', async () => {
    const g = await loadTsvGraph(file('# a sparse graph\n900\t7\n7\t42\n\n900\t42\tnofollow\n42\t900\r\n7\t7\n'));
    assert.equal(g.format, 'tsv');
    assert.deepEqual(
      Array.from({ length: g.pageCount }, (_, p) => g.nameOf(p)),
      ['7', '42', '900'],
    );
    assert.deepEqual(edges(g), ['7>42', '7>7', '42>900', '900>7', '900>42!']);
    assert.deepEqual(
      Array.from(g.seeds, (s) => g.nameOf(s)),
      ['900'],
    );
    assert.equal(g.pageIdOf('42'), 1);
    assert.equal(g.pageIdOf('43'), -1);
    // Without host columns every page is its own host, and URLs are made up.
    assert.equal(g.hosts.count, 3);
    assert.equal(g.hasUrls, false);
    assert.equal(g.urlOf(1), 'http://page-42.sim/42');
  });

  it('takes hosts from a host column, the others from their own', async () => {
    const g = await loadTsvGraph(file('1\t2\tA.example\tb.example\n2\t3\n3\t1\t\ta.example\n'));
    const hostOf = (name: string): string => g.hosts.nameOf(g.pageHost[g.pageIdOf(name)] as number);
    assert.deepEqual(['1', '2', '3'].map(hostOf), ['a.example', 'b.example', 'page-3.sim']);
  });

  it('normalizes URLs and derives their hosts', async () => {
    const g = await loadTsvGraph(
      file('HTTP://Example.COM:80/a#top\thttp://example.com/b\nhttp://example.com/b\thttps://other.example:8443/\n'),
    );
    assert.equal(g.hasUrls, true);
    assert.deepEqual(edges(g), ['http://example.com/a>http://example.com/b', 'http://example.com/b>https://other.example:8443/']);
    assert.equal(g.hosts.nameOf(g.pageHost[g.pageIdOf('https://other.example:8443/')] as number), 'other.example:8443');
    assert.equal(g.pageIdOf('http://EXAMPLE.com/b'), 1);
    assert.equal(detectGraphFormat([file('1\t2\n')]), 'tsv');
  });

  const malformed: [string, string, RegExp][] = [
    ['one field', '1\t2\n3\n', /:2: expected src<TAB>dst .* got 1 field$/],
    ['too many fields', '1\t2\ta\tb\tnofollow\tx\n', /:1: .*got 6 fields/],
    ['an empty id', '1\t2\n\t3\n', /:2: src and dst must not be empty/],
    ['a URL among ids', '1\t2\n2\thttp://x.example/\n', /:2: dst "http:\/\/x.example\/" is not an id/],
    ['an id among URLs', 'http://x.example/\thttp://y.example/\nhttp://y.example/\t3\n', /:2: dst "3" is not an http\(s\) URL/],
    ['a negative id', '1\t-2\n', /:1: dst "-2" is not an id/],
    ['an unknown flag', '1\t2\tsponsored\n', /:1: unknown flag "sponsored"/],
    ['two hosts for one page', '1\t2\ta\tb\n1\t3\tc\td\n', /:2: page 1 is on host c here but on a/],
    ['no link at all', '# nothing\n\n', /names no link/],
  ];
  for (const [what, text, message] of malformed) {
    it(`refuses ${what}, naming the file and line`, async () => {
      const path = file(text);
      await assert.rejects(
        loadTsvGraph(path),
        (err: unknown) =>
          err instanceof ShoalError && err.code === 'GRAPH_FORMAT' && err.message.includes(path) && message.test(err.message),
      );
    });
  }
});
