/**
 * The verdict rules of `npm run experiment:cho` (scripts/experiment/verdicts.ts) on PST rows written
 * by hand: when one crawler beats another (ahead by at least MIN_MARGIN at more of the report's five
 * points than it is behind, and a higher mean), how claims make a verdict, and how experiments 1 and 4
 * read their tables.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Evaluation, Row } from '../../../scripts/experiment/evaluate.js';
import type { GraphFacts, HotFacts } from '../../../scripts/experiment/graph-facts.js';
import { beats, experiment1, experiment4, MIN_MARGIN, verdictOf, type Claim, type Labels } from '../../../scripts/experiment/verdicts.js';

/** A crawl row with PST `at` the report's five points (10, 20, 40, 60, 80 % of the crawl). */
function row(label: string, at: readonly number[]): Row {
  return { label, kind: 'crawl', at, mean: at.reduce((a, b) => a + b, 0) / at.length };
}

const claim = (isTrue: boolean): Claim => ({ text: 'c', isTrue, evidence: 'e' });

describe('beats', () => {
  it('is true when ahead at more points than behind and the mean is higher', () => {
    // Ahead by 10, 10, 5 at the first three points, behind by 2 at the fourth, level at the fifth.
    const b = beats(row('a', [30, 50, 70, 88, 95]), row('b', [20, 40, 65, 90, 95]));
    assert.equal(b.isTrue, true);
    assert.ok(Math.abs(b.lead - 4.6) < 1e-9, String(b.lead));
    assert.match(b.evidence, /ahead at 3 and behind at 1 of 5 points/);
  });

  it('is false when ahead and behind at as many points, whatever the mean', () => {
    // Ahead by 20 and 20, behind by 1 and 1: the mean is far higher, the points are even.
    const b = beats(row('a', [40, 60, 79, 89, 95]), row('b', [20, 40, 80, 90, 95]));
    assert.ok(b.lead > 0);
    assert.equal(b.isTrue, false);
    assert.match(b.evidence, /ahead at 2 and behind at 2/);
  });

  it('is false when ahead at more points but the mean is lower', () => {
    // Ahead by 1 at three points, behind by 30 at two.
    const b = beats(row('a', [11, 21, 41, 30, 40]), row('b', [10, 20, 40, 60, 70]));
    assert.ok(b.lead < 0);
    assert.equal(b.isTrue, false);
    assert.match(b.evidence, /ahead at 3 and behind at 2/);
  });

  it(`counts a point only when the difference reaches MIN_MARGIN (${MIN_MARGIN})`, () => {
    // Higher everywhere, but by less than the margin: no point decides, so no win.
    const below = beats(row('a', [10.5, 20.5, 40.5, 60.5, 80.5]), row('b', [10, 20, 40, 60, 80]));
    assert.equal(below.isTrue, false);
    assert.match(below.evidence, /ahead at 0 and behind at 0/);
    // Exactly the margin at one point counts as ahead there.
    const at = beats(row('a', [10 + MIN_MARGIN, 20, 40, 60, 80]), row('b', [10, 20, 40, 60, 80]));
    assert.equal(at.isTrue, true);
    assert.match(at.evidence, /ahead at 1 and behind at 0/);
  });

  it('is not symmetric: the loser does not beat the winner', () => {
    const a = row('a', [30, 50, 70, 88, 95]);
    const b = row('b', [20, 40, 65, 90, 95]);
    assert.equal(beats(b, a).isTrue, false);
    assert.equal(beats(b, a).lead, -beats(a, b).lead);
  });
});

describe('verdictOf', () => {
  it('holds when every claim does, holds partly when some do, does not hold when none does', () => {
    assert.equal(verdictOf([claim(true), claim(true), claim(true)], []).word, 'holds');
    assert.equal(verdictOf([claim(true), claim(false), claim(true)], []).word, 'holds partly');
    assert.equal(verdictOf([claim(false), claim(true)], []).word, 'holds partly');
    assert.equal(verdictOf([claim(false), claim(false)], []).word, 'does not hold');
  });

  it('keeps the claims and notes it was given', () => {
    const claims = [claim(true), claim(false)];
    const v = verdictOf(claims, ['a note']);
    assert.deepEqual(v.claims, claims);
    assert.deepEqual(v.notes, ['a note']);
  });
});

const LABELS: Labels = { bfs: 'bfs', ib: 'ib', ir: 'ir', random: 'random crawler' };

/** A graph of 1,000 pages on 20 hosts (more than a few sites: no per-site note). */
const GRAPH: GraphFacts = {
  pages: 1_000,
  links: 5_000,
  hosts: 20,
  sameHostShare: 0.5,
  depth: new Int32Array(0),
  nearDepth: 2,
  nearShare: 0.2,
  largestHostShare: 0.1,
  largestHost: 0,
  meanDepth: 4,
  isReached: new Uint8Array(0),
};
const HOT: HotFacts = { hotPages: 10, nearShare: 0.5, hosts: 5, meanDepth: 2, sameHostInShare: 0.3, largestHostShare: 0.1 };

function evaluation(rows: readonly Row[]): Evaluation {
  return { hot: { importance: 'ib', threshold: 100 }, pages: 1_000, hotPages: 10, curves: [], rows, isHot: () => false };
}

describe('experiment1', () => {
  it('holds partly when IR′ beats IB′ and the random crawler but not breadth-first', () => {
    const e = evaluation([
      row('bfs', [40, 60, 80, 90, 95]),
      row('ib', [20, 35, 60, 75, 90]),
      row('ir', [40, 60, 80, 90, 95]),
      row('random crawler', [10, 20, 40, 60, 80]),
    ]);
    const v = experiment1(e, LABELS, GRAPH, HOT, []);
    assert.deepEqual(
      v.claims.map((c) => c.isTrue),
      [true, false, true],
    );
    assert.equal(v.word, 'holds partly');
  });

  it('does not hold when IR′ trails both and breadth-first does no better than random', () => {
    const e = evaluation([
      row('bfs', [10, 20, 40, 60, 80]),
      row('ib', [30, 50, 70, 85, 95]),
      row('ir', [10, 20, 40, 60, 80]),
      row('random crawler', [10, 20, 40, 60, 80]),
    ]);
    const v = experiment1(e, LABELS, GRAPH, HOT, []);
    assert.deepEqual(
      v.claims.map((c) => c.isTrue),
      [false, false, false],
    );
    assert.equal(v.word, 'does not hold');
  });
});

describe('experiment4', () => {
  it('asks for strictly more than the share at the reading point', () => {
    // At 40 % of the crawl (the third point) IR′ has 81 % of the hot pages, breadth-first exactly 80 %.
    const e = evaluation([row('bfs', [30, 50, 80, 90, 95]), row('ib', [20, 40, 60, 80, 90]), row('ir', [30, 50, 81, 90, 95])]);
    const v = experiment4(e, LABELS, GRAPH, HOT, [], 0.4, 80);
    assert.deepEqual(
      v.claims.map((c) => c.isTrue),
      [true, false],
    );
    assert.equal(v.word, 'holds partly');
    assert.match(v.claims[0]?.evidence ?? '', /PST 81\.0 at 40 %/);
  });
});
