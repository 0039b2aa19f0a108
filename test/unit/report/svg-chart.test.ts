/**
 * The SVG line chart (src/report/svg-chart.ts): parsed back with htmlparser2 in XML mode and checked
 * for well-formedness (every tag closed in order, no stray `&`), one group and one legend entry per
 * series, escaped text, distinct styles, gaps at undefined values, and nice ticks.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomUtils } from 'htmlparser2';
import type { Element } from 'domhandler';
import type { Curve } from '../../../src/eval/ordering-models.js';
import { curvesChartSvg, escapeXml, lineChartSvg, niceTicks, type ChartSeries } from '../../../src/report/svg-chart.js';
import { assertWellFormed, byClass, parseSvg as parse } from '../../helpers/xml.js';

const SERIES: ChartSeries[] = [
  { name: 'IR′ (pagerank)', x: [0, 50, 100], y: [0, 80, 100] },
  { name: 'a<b & "c"', x: [0, 50, 100], y: [0, 60, 100] },
  { name: 'breadth-first', x: [0, 25, 50, 75, 100], y: [0, NaN, 40, 70, 100] },
  { name: 'random', x: [0, 100], y: [0, 100], role: 'random' },
  { name: 'ideal', x: [0, 10, 100], y: [0, 100, 100], role: 'ideal' },
];

describe('the well-formedness check of this file', () => {
  it('rejects what an XML parser would', () => {
    assert.throws(() => assertWellFormed('<svg><g></svg>'));
    assert.throws(() => assertWellFormed('<svg><g></h></g></svg>'));
    assert.throws(() => assertWellFormed('<svg><text>a & b</text></svg>'));
    assert.throws(() => assertWellFormed('<svg><text x="<">a</text></svg>'));
    assertWellFormed('<svg><g><rect/></g><text>a &amp; b</text></svg>');
  });
});

describe('lineChartSvg', () => {
  const svg = lineChartSvg({
    title: 'PST <G = 100>',
    xLabel: 'fraction of pages crawled (%)',
    yLabel: 'PST (%)',
    series: SERIES,
    idPrefix: 'pst 1',
  });
  const root = parse(svg);

  it('is an SVG 1.1 document with its namespace, size and view box', () => {
    assert.equal(root.attribs['xmlns'], 'http://www.w3.org/2000/svg');
    assert.equal(root.attribs['version'], '1.1');
    assert.equal(root.attribs['viewBox'], '0 0 760 440');
    assert.ok(svg.startsWith('<svg '), 'no XML declaration, so it can be inlined in HTML');
  });

  it('draws one group per series and one legend entry per series, in order, with the names escaped', () => {
    const series = byClass(root, 'series');
    assert.equal(series.length, SERIES.length);
    const legend = byClass(root, 'legend-entry');
    assert.deepEqual(
      legend.map((g) => DomUtils.textContent(g)),
      SERIES.map((s) => s.name),
    );
    assert.ok(svg.includes('a&lt;b &amp; &quot;c&quot;'));
    assert.ok(!svg.includes('a<b'));
    assert.equal(DomUtils.textContent(byClass(root, 'title')), 'PST <G = 100>');
    assert.equal(DomUtils.textContent(byClass(root, 'x-label')), 'fraction of pages crawled (%)');
    assert.equal(DomUtils.textContent(byClass(root, 'y-label')), 'PST (%)');
  });

  it('gives every data series its own colour and dash, and the baselines their own styles', () => {
    const paths = byClass(root, 'series').map((g) => DomUtils.findOne((e) => e.name === 'path', [g]));
    const styles = paths.map((p) => `${p?.attribs['stroke']}|${p?.attribs['stroke-dasharray'] ?? 'solid'}`);
    assert.equal(new Set(styles).size, SERIES.length);
    const dashes = paths.slice(0, 3).map((p) => p?.attribs['stroke-dasharray'] ?? 'solid');
    assert.equal(new Set(dashes).size, 3, 'data series differ in dash pattern too, for grey prints');
    assert.equal(paths[3]?.attribs['stroke-dasharray'], '6 5');
    assert.equal(paths[4]?.attribs['stroke-dasharray'], '1 4');
    assert.deepEqual(
      byClass(root, 'series').map((g) => g.attribs['class']),
      ['series series-data', 'series series-data', 'series series-data', 'series series-random', 'series series-ideal'],
    );
  });

  it('breaks a line at an undefined value and clips lines to the plot with a sanitised id', () => {
    const bfs = DomUtils.findOne((e) => e.name === 'path', [byClass(root, 'series')[2] as Element]);
    assert.equal((bfs?.attribs['d'] ?? '').match(/M/g)?.length, 2);
    const clip = DomUtils.findOne((e) => e.name === 'clipPath', [root]);
    assert.equal(clip?.attribs['id'], 'pst_1-plot');
    assert.equal(byClass(root, 'lines')[0]?.attribs['clip-path'], 'url(#pst_1-plot)');
  });

  it('labels ticks at nice values over the data range', () => {
    const ticks = byClass(root, 'tick').map((t) => DomUtils.textContent(t));
    assert.deepEqual(ticks, ['0', '10', '20', '30', '40', '50', '60', '70', '80', '90', '100', '0', '20', '40', '60', '80', '100']);
  });

  it('refuses a series whose x and y differ in length', () => {
    assert.throws(() => lineChartSvg({ title: '', xLabel: '', yLabel: '', series: [{ name: 'bad', x: [0, 1], y: [0] }] }), /bad/);
  });

  it('renders with no series at all', () => {
    const empty = parse(lineChartSvg({ title: 'nothing', xLabel: 'x', yLabel: 'y', series: [] }));
    assert.equal(byClass(empty, 'series').length, 0);
    assert.equal(byClass(empty, 'legend-entry').length, 0);
  });
});

describe('curvesChartSvg', () => {
  it('plots curves in percent of the crawl with their labels and baseline styles', () => {
    const base = {
      id: 'pst',
      params: {},
      importance: { id: 'backlinks', params: {} },
      xUnit: 'fraction',
      yUnit: 'percent',
    } as const;
    const curves: Curve[] = [
      {
        spec: { ...base, crawler: { kind: 'crawl', policy: { id: 'bfs', params: {} } }, label: 'bfs' },
        x: Float64Array.of(0, 0.5, 1),
        y: Float64Array.of(0, 70, 100),
      },
      { spec: { ...base, crawler: { kind: 'random' }, label: 'random' }, x: Float64Array.of(0, 1), y: Float64Array.of(0, 100) },
    ];
    const root = parse(curvesChartSvg(curves));
    assert.equal(DomUtils.textContent(byClass(root, 'y-label')), 'PST (%)');
    assert.equal(DomUtils.textContent(byClass(root, 'x-label')), 'fraction of pages crawled (%)');
    assert.deepEqual(
      byClass(root, 'legend-entry').map((g) => DomUtils.textContent(g)),
      ['bfs', 'random'],
    );
    assert.equal(byClass(root, 'series')[1]?.attribs['class'], 'series series-random');
    // x = 1 (all crawled) lands on the right end of the 0–100 % axis: the same x as the last tick.
    const lastTick = byClass(root, 'tick').find((t) => DomUtils.textContent(t) === '100');
    const d = DomUtils.findOne((e) => e.name === 'path', [byClass(root, 'series')[0] as Element])?.attribs['d'] ?? '';
    assert.equal(d.split(' ').slice(-2)[0]?.replace(/^L/, ''), lastTick?.attribs['x']);
  });
});

describe('escapeXml and niceTicks', () => {
  it('escapes the five XML characters and drops the ones XML forbids', () => {
    assert.equal(escapeXml(`<a href='x'>&"</a>`), '&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;');
    assert.equal(escapeXml('bell\u0007 tab\t nul\u0000 \uD800lone'), 'bell tab\t nul lone');
    assert.equal(escapeXml('emoji \uD83D\uDE00 kept'), 'emoji \uD83D\uDE00 kept');
  });

  it('steps by 1, 2 or 5 × 10^k', () => {
    assert.deepEqual(niceTicks(0, 100, 5), [0, 20, 40, 60, 80, 100]);
    // 4 intervals of 0.25 are wanted; 0.25 is not 1, 2 or 5 × 10^k, so the step is 0.5.
    assert.deepEqual(niceTicks(0, 1, 4), [0, 0.5, 1]);
    assert.deepEqual(niceTicks(0.3, 1.7, 7), [0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6]);
    assert.deepEqual(niceTicks(5, 5), [5]);
  });
});
