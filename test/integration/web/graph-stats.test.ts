/**
 * Measured statistics of the test web's ground-truth graph against the knobs that are meant to
 * produce them: the in-degree tail exponent (links.inDegreeExponent), topic locality
 * (links.topicLocality) and the ring-community graph of SPEC §4.4 (links.model = community).
 *
 * Every statistic is measured on the exported truth (export, then read back), so the test also
 * covers what eval/ and the simulator will see.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fitPowerLaw } from '../../../src/eval/power-law.js';
import { LinkKind, pageLinks } from '../../../src/web/links.js';
import { WebModel } from '../../../src/web/model.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { LINK_KIND_MASK } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';
import type { WebConfigInput } from '../../../src/web/config.js';

let tmp: string;
let counter = 0;

async function truthOf(config: WebConfigInput): Promise<{ model: WebModel; truth: Truth }> {
  const model = new WebModel(config);
  const dir = join(tmp, `truth-${counter++}`);
  await exportTruth(model, dir);
  return { model, truth: await readTruth(dir) };
}

/** In-degrees counting only the edges `keep` accepts (edge index, source, target). */
function inDegreesWhere(truth: Truth, keep: (e: number, u: number, v: number) => boolean): Uint32Array {
  const deg = new Uint32Array(truth.pageCount);
  const { offsets, targets } = truth.graph;
  for (let u = 0; u < truth.pageCount; u++) {
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      const v = targets[e] as number;
      if (keep(e, u, v)) deg[v] = (deg[v] as number) + 1;
    }
  }
  return deg;
}

const isContent = (truth: Truth, e: number): boolean => ((truth.linkKinds[e] as number) & LINK_KIND_MASK) === LinkKind.content;

before(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'shoal-graph-stats-'));
});

after(async () => {
  await rm(tmp, { recursive: true, force: true });
});

// Two webs of 200 hosts / 40k pages; each varies both knobs (they act on different draws).
const WEBS = [
  { exponent: 2.1, topicLocality: 0.3 },
  { exponent: 2.6, topicLocality: 0.8 },
] as const;

for (const knobs of WEBS) {
  describe(`web with inDegreeExponent ${knobs.exponent}, topicLocality ${knobs.topicLocality}`, () => {
    let truth: Truth;

    before(async () => {
      ({ truth } = await truthOf({
        seed: 1,
        hosts: 200,
        pages: 40_000,
        links: { inDegreeExponent: knobs.exponent, topicLocality: knobs.topicLocality },
      }));
    });

    // The knob is the tail exponent of inter-host links (next test). Navigation links put home pages
    // in the tail (a home page's in-degree is its host's size) and intra-host Zipf draws over each
    // host's own short page list are steeper (measured, seed 1: 2.69 for knob 2.1, 3.38 for 2.6), so
    // the whole graph is checked only for a heavy tail (measured: 2.52 and 2.61).
    it(`has a heavy-tailed in-degree over all links (knob ${knobs.exponent})`, () => {
      const fit = fitPowerLaw(inDegreesWhere(truth, () => true));
      assert.ok(fit.tailCount >= 200, `tail of ${fit.tailCount} pages`);
      assert.ok(fit.exponent > 2 && fit.exponent < 3.2, `fitted ${fit.exponent.toFixed(3)} (xmin ${fit.xmin})`);
    });

    it(`has an inter-host content-link in-degree tail exponent of ${knobs.exponent} ± 0.2`, () => {
      const fit = fitPowerLaw(inDegreesWhere(truth, (e, u, v) => isContent(truth, e) && truth.pageHost[u] !== truth.pageHost[v]));
      assert.ok(fit.tailCount >= 500, `tail of ${fit.tailCount} pages`);
      assert.ok(
        Math.abs(fit.exponent - knobs.exponent) <= 0.2,
        `fitted ${fit.exponent.toFixed(3)} (xmin ${fit.xmin}, ${fit.tailCount} pages)`,
      );
    });

    // Measured (seed 1): 0.3 -> 0.298, 0.8 -> 0.799 (before the model drew the locality coin once
    // per link, redraws on same-host targets pulled it 0.035-0.05 low).
    it(`sends ${knobs.topicLocality} ± 0.03 of inter-host content links from non-geographic pages to the same topic`, () => {
      let links = 0;
      let sameTopic = 0;
      inDegreesWhere(truth, (e, u, v) => {
        if (isContent(truth, e) && truth.city[u] === -1 && truth.pageHost[u] !== truth.pageHost[v]) {
          links++;
          if (truth.topic[u] === truth.topic[v]) sameTopic++;
        }
        return false;
      });
      assert.ok(links > 10_000, `${links} links measured`);
      const share = sameTopic / links;
      assert.ok(Math.abs(share - knobs.topicLocality) <= 0.03, `same-topic share ${share.toFixed(4)} of ${links} links`);
    });
  });
}

describe('community model (SPEC §4.4)', () => {
  const community = { count: 17, size: 100, k: 32, o: 2 };

  /** Checks the ring structure of every page; returns the pages that break it. */
  function ringViolations(model: WebModel, truth: Truth): string[] {
    const { size, k, o } = community;
    const bad: string[] = [];
    for (let g = 0; g < model.pageCount; g++) {
      const t = Math.floor(g / size);
      const i = g % size;
      const links = pageLinks(model, g);
      const own = links.filter((l) => Math.floor(l.target / size) === t).map((l) => l.target % size);
      const others = links.filter((l) => Math.floor(l.target / size) !== t);
      const distances = own.map((j) => Math.min(Math.abs(i - j), size - Math.abs(i - j)));
      const isRing = own.length === k && new Set(own).size === k && distances.every((d) => d >= 1 && d <= k / 2);
      if (!isRing || others.length !== o) {
        bad.push(`${g} (${model.pageKind[g]}): ${own.length} ring, ${others.length} other`);
        continue;
      }
      const outDegree = (truth.graph.offsets[g + 1] as number) - (truth.graph.offsets[g] as number);
      if (outDegree !== k + new Set(others.map((l) => l.target)).size) bad.push(`${g}: out-degree ${outDegree} in the truth`);
    }
    return bad;
  }

  let defaults: { model: WebModel; truth: Truth };

  before(async () => {
    defaults = await truthOf({ links: { model: 'community' }, community });
  });

  it('has count × size pages, each in the community of its block of ids', () => {
    assert.equal(defaults.model.pageCount, 1700);
    assert.equal(defaults.truth.pageCount, 1700);
    for (let g = 0; g < 1700; g++) assert.equal(defaults.truth.community[g], Math.floor(g / community.size), `page ${g}`);
  });

  it('gives every page exactly k ring links within k/2 and o links out of its community', () => {
    const { truth } = defaults;
    const bad = ringViolations(defaults.model, truth);
    assert.deepEqual(bad.slice(0, 10), [], `${bad.length} pages break the ring`);
    // The o cross-community links are the only edges leaving a community.
    let crossing = 0;
    inDegreesWhere(truth, (_e, u, v) => {
      if (Math.floor(u / community.size) !== Math.floor(v / community.size)) crossing++;
      return false;
    });
    assert.ok(crossing > truth.pageCount * community.o * 0.9 && crossing <= truth.pageCount * community.o, `${crossing} crossing edges`);
  });
});
