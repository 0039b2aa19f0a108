/**
 * The evaluation of simulated runs on a drawn graph:
 *
 *   a ──▶ b ──▶ c ┄┄▶ d      (c → d is nofollow)
 *   └─────────▶ c ◀── e      (e is linked from nowhere)
 *
 * From seed a the crawl reaches a, b, c (T = 3). IB over the whole graph: a 0, b 1, c 3 (a, b, e),
 * d 1, e 0; on the T pages [0, 1, 3]; the top 1 % (one page) is c, so G = 3 and H = 1.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { BacklinkPolicy } from '../../../src/order/backlink.js';
import { countTermsIn } from '../../../src/order/terms.js';
import { graphFromAdjacency } from '../../../src/sim/graph/memory-graph.js';
import { BASELINE_LABELS, baselineCurves, evalContext, reachablePages, runCurves, topShareThreshold } from '../../../src/sim/evaluation.js';
import { simConfigSchema } from '../../../src/sim/sim-config.js';
import { simulate } from '../../../src/sim/simulator.js';

const web = { 'http://a/': ['http://b/', 'http://c/'], 'http://b/': ['http://c/'], 'http://c/': ['http://d/'], 'http://e/': ['http://c/'] };
const graph = graphFromAdjacency(web, ['http://a/'], { nofollow: [['http://c/', 'http://d/']] });
const id = (url: string): number => graph.pageIdOf(url);
const evalConfig = (over: object = {}) => simConfigSchema.parse({ eval: { points: 3, ...over } }).eval;

describe('evaluation of simulated runs', () => {
  it('counts the pages reachable over followed links', () => {
    const reached = reachablePages(graph, [id('http://a/')]);
    assert.deepEqual(
      ['http://a/', 'http://b/', 'http://c/', 'http://d/', 'http://e/'].map((u) => reached[id(u)]),
      [1, 1, 1, 0, 0],
    );
  });

  it('takes G as the smallest value of the top share', () => {
    assert.equal(topShareThreshold(Float64Array.of(5, 1, 9, 3), 0.5), 5);
    assert.equal(topShareThreshold(Float64Array.of(5, 1, 9, 3), 0.01), 9);
  });

  it('measures IB on the whole graph and counts T over the reachable pages', () => {
    const ctx = evalContext(graph, [id('http://a/')], evalConfig());
    assert.equal(ctx.pages, 3);
    assert.deepEqual(Array.from(ctx.importance.values), [0, 1, 3]);
    assert.equal(ctx.threshold, 3);
    assert.equal(ctx.hotPages, 1);
    const all = evalContext(graph, [id('http://a/')], evalConfig({ scope: 'all', threshold: 1 }));
    assert.equal(all.pages, 5);
    assert.equal(all.hotPages, 3);
  });

  it('draws PST, PCS and WC of a run, PBC with a buffer, and the two reference crawlers', async () => {
    const ctx = evalContext(graph, [id('http://a/')], evalConfig({ bufferPages: 1 }));
    const run = await simulate({
      graph,
      createPolicy: () => new BacklinkPolicy(),
      concurrency: 1,
      politeness: { minDelayMs: 0 },
      latencyMs: 1,
      isBufferRecorded: true,
    });
    assert.deepEqual(
      Array.from(run.visits.pages, (p) => graph.urlOf(p)),
      ['http://a/', 'http://b/', 'http://c/'],
    );
    const curves = runCurves(ctx, graph, { label: 'backlink', policy: run.policy, visitPages: run.visits.pages, bufferLog: run.bufferLog });
    const pst = curves.find((c) => c.spec.id === 'pst');
    assert.deepEqual(Array.from(pst?.y ?? []), [0, 0, 0, 100]);
    assert.deepEqual(
      curves.map((c) => c.spec.id),
      ['pst', 'pcs', 'wc', 'pbc'],
    );
    const pbc = curves.find((c) => c.spec.id === 'pbc');
    // The buffer keeps one page; c (IB′ 2 when visited) replaces b (IB′ 1): the hot page is kept at the end.
    assert.equal(pbc?.y[pbc.y.length - 1], 100);
    const baselines = baselineCurves(ctx);
    assert.deepEqual(new Set(baselines.map((c) => c.spec.label)), new Set(Object.values(BASELINE_LABELS)));
    assert.equal(baselines.length, 8);
  });

  it('reads a topic from the truth labels or page text, and refuses a graph without either', () => {
    const texts: Record<string, string> = { 'http://a/': 'Computer computer', 'http://b/': 'nothing', 'http://c/': 'computer '.repeat(10) };
    const withText = graphFromAdjacency(web, ['http://a/'], {
      content: (url) => ({ title: url === 'http://a/' ? 'A computer' : '', text: texts[url] ?? '' }),
    });
    const ctx = evalContext(withText, [0], evalConfig({ importance: 'topic', topic: 'computer' }));
    // This graph follows c → d: T = a, b, c, d. a has the word in its title, c ten times in its text.
    assert.deepEqual(Array.from(ctx.importance.values), [1, 0, 1, 0]);
    assert.throws(() => evalContext(graph, [0], evalConfig({ importance: 'topic', topic: 'computer' })), ConfigError);
    assert.deepEqual(countTermsIn('Computers, computer; COMPUTER-science', ['computer']), [2]);
  });
});
