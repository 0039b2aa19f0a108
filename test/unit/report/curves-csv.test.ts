/**
 * Curves as CSV and JSON (src/report/curves-csv.ts): shared x column, empty cells for missing or
 * undefined values, quoting, unique column names, and a JSON round trip that keeps every spec.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Curve, CurveSpec } from '../../../src/eval/ordering-models.js';
import {
  columnNames,
  csvField,
  curvesFromJson,
  curvesToCsv,
  curvesToJson,
  formatCsvNumber,
  summaryToCsv,
} from '../../../src/report/curves-csv.js';

function curve(label: string, x: readonly number[], y: readonly number[], overrides: Partial<CurveSpec> = {}): Curve {
  return {
    spec: {
      id: 'pst',
      params: { pages: 4, threshold: 3 },
      crawler: { kind: 'crawl', policy: { id: 'bfs', params: {} } },
      importance: { id: 'backlinks', params: { distinctSources: true } },
      label,
      xUnit: 'fraction',
      yUnit: 'percent',
      ...overrides,
    },
    x: Float64Array.from(x),
    y: Float64Array.from(y),
  };
}

describe('curvesToCsv', () => {
  it('writes one x column and one column per curve, empty where a curve has no value', () => {
    // bfs sampled at 0, .25, .5, .75, 1; "pagerank, d=0.9" stops at .5 and is undefined at 0.
    const csv = curvesToCsv([
      curve('bfs', [0, 0.25, 0.5, 0.75, 1], [0, 25, 50, 75, 100]),
      curve('pagerank, d=0.9', [0, 0.25, 0.5], [NaN, 100 / 3, 2 / 3]),
    ]);
    assert.equal(
      csv,
      ['fraction_crawled,bfs,"pagerank, d=0.9"', '0,0,', '0.25,25,33.333333', '0.5,50,0.666667', '0.75,75,', '1,100,', ''].join('\n'),
    );
  });

  it('names the x column elapsed_ms for time curves and refuses mixed units', () => {
    assert.ok(curvesToCsv([curve('a', [0, 10], [1, 2], { xUnit: 'ms' })]).startsWith('elapsed_ms,a\n0,1\n10,2\n'));
    assert.throws(() => curvesToCsv([curve('a', [0], [1]), curve('b', [0], [1], { xUnit: 'ms' })]), /mix x units/);
  });

  it('makes repeated labels unique', () => {
    const names = columnNames([
      curve('random', [0], [0]),
      curve('random', [0], [0], { id: 'pcs' }),
      curve('x', [0], [0]),
      curve('x', [0], [0]),
    ]);
    assert.deepEqual(names, ['random [pst]', 'random [pcs]', 'x [pst]', 'x [pst] #2']);
  });

  it('quotes fields per RFC 4180 and formats numbers without noise', () => {
    assert.equal(csvField('a "b"'), '"a ""b"""');
    assert.equal(csvField('line\nbreak'), '"line\nbreak"');
    assert.equal(csvField('plain'), 'plain');
    assert.equal(formatCsvNumber(0.1 + 0.2), '0.3');
    assert.equal(formatCsvNumber(-0.0000001), '0');
    assert.equal(formatCsvNumber(12.5, 0), '13');
    assert.equal(formatCsvNumber(Infinity), '');
  });
});

describe('summaryToCsv', () => {
  it('gives y at the report points for each curve', () => {
    // y = 100·x on [0, 1]: 10, 20, 40. The short curve ends at 0.25: 10, 20, then undefined.
    const csv = summaryToCsv([curve('line', [0, 1], [0, 100]), curve('short', [0, 0.25], [0, 25], { crawler: { kind: 'random' } })]);
    assert.equal(csv, 'curve,model,crawler,y_at_0.1,y_at_0.2,y_at_0.4\nline,pst,crawl,10,20,40\nshort,pst,random,10,20,\n');
  });
});

describe('curvesToJson / curvesFromJson', () => {
  it('round-trips curves with their specs, NaN as null', () => {
    const curves = [curve('bfs', [0, 0.5, 1], [NaN, 50, 100]), curve('ideal', [0, 1], [0, 100], { crawler: { kind: 'ideal' }, id: 'pcs' })];
    const text = curvesToJson(curves);
    const doc = JSON.parse(text) as { format: string; curves: { y: (number | null)[] }[] };
    assert.equal(doc.format, 'shoal-curves/1');
    assert.deepEqual(doc.curves[0]?.y, [null, 50, 100]);
    const back = curvesFromJson(text);
    assert.deepEqual(
      back.map((c) => c.spec),
      curves.map((c) => c.spec),
    );
    assert.ok(Number.isNaN(back[0]?.y[0]));
    assert.deepEqual(Array.from(back[0]?.y.subarray(1) ?? []), [50, 100]);
    assert.deepEqual(Array.from(back[1]?.x ?? []), [0, 1]);
  });

  it('reports every problem of a wrong document with its path', () => {
    const wrong = JSON.stringify({ format: 'shoal-curves/1', curves: [{ spec: { id: 'nope' }, x: [0], y: [0, 1] }] });
    assert.throws(
      () => curvesFromJson(wrong),
      (err: Error) => /curves\.0\.spec\.id/.test(err.message) && /curves\.0\.spec\.label/.test(err.message),
    );
    assert.throws(() => curvesFromJson('{"format":"other","curves":[]}'), /format/);
    assert.throws(() => curvesFromJson('not json'), SyntaxError);
  });
});
