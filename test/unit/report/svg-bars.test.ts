/**
 * Bar charts and histograms (src/report/svg-bars.ts): well-formed SVG, one bar per defined value
 * at the height its value gives, bars below the axis for negative values, escaped names, textures
 * and a legend for several series, turned labels for long names, contiguous histogram bins with
 * the overflow bar and percentile markers, and the compact number format of their labels.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DomUtils } from 'htmlparser2';
import type { Element } from 'domhandler';
import { barChartSvg, compactNumber, histogramSvg } from '../../../src/report/svg-bars.js';
import { byClass, parseSvg } from '../../helpers/xml.js';

const attr = (e: Element, name: string): number => Number(e.attribs[name]);
const bars = (root: Element): Element[] => byClass(root, 'bar');

describe('barChartSvg', () => {
  it('draws one bar per defined value, its height proportional to the value, none for NaN', () => {
    const root = parseSvg(
      barChartSvg({
        title: 'Outcomes',
        xLabel: 'outcome',
        yLabel: 'lines',
        categories: ['ok', 'redirect', 'timeout'],
        series: [{ name: 'lines', values: [400, 100, NaN] }],
      }),
    );
    const drawn = bars(root);
    assert.equal(drawn.length, 2);
    const [ok, redirect] = drawn as [Element, Element];
    assert.equal(ok.attribs['data-value'], '400');
    assert.ok(Math.abs(attr(ok, 'height') / attr(redirect, 'height') - 4) < 0.01, 'heights in proportion to the values');
    assert.equal(attr(ok, 'y') + attr(ok, 'height'), attr(redirect, 'y') + attr(redirect, 'height'), 'both stand on the zero line');
    assert.equal(byClass(root, 'legend').length, 0, 'no legend for one series');
    const values = byClass(root, 'value').map((t) => DomUtils.textContent(t));
    assert.deepEqual(values, ['400', '100']);
  });

  it('hangs a negative value below the zero line', () => {
    const root = parseSvg(
      barChartSvg({
        title: 'τ',
        xLabel: 'group',
        yLabel: 'τ',
        categories: ['a', 'b'],
        series: [{ name: 'τ', values: [0.5, -0.5] }],
        yDomain: [-1, 1],
      }),
    );
    const [up, down] = bars(root) as [Element, Element];
    assert.equal(attr(up, 'y') + attr(up, 'height'), attr(down, 'y'), 'the positive bar ends where the negative one starts');
    assert.ok(Math.abs(attr(up, 'height') - attr(down, 'height')) < 0.02);
  });

  it('gives each series its colour and texture, with a legend, and escapes every name', () => {
    const svg = barChartSvg({
      title: 'a <b> & "c"',
      xLabel: 'node',
      yLabel: 'URLs',
      categories: ['n<1>', 'n&2'],
      series: [
        { name: 'sent', values: [1, 2] },
        { name: 'received <all>', values: [3, 4] },
        { name: 'tried', values: [5, 6] },
      ],
      idPrefix: 'x y',
    });
    const root = parseSvg(svg);
    assert.equal(bars(root).length, 6);
    assert.equal(byClass(root, 'legend-entry').length, 3);
    const fills = new Set(bars(root).map((b) => b.attribs['fill']));
    assert.equal(fills.size, 3, 'three fills');
    assert.ok(fills.has('url(#x_y-fill-1)') && fills.has('url(#x_y-fill-2)'), 'textures for the second and third series');
    assert.equal(DomUtils.findAll((e) => e.name === 'pattern', [root]).length, 2);
    assert.ok(svg.includes('n&lt;1&gt;') && svg.includes('received &lt;all&gt;') && svg.includes('a &lt;b&gt; &amp; &quot;c&quot;'));
  });

  it('turns category labels too long for their slot', () => {
    const long = barChartSvg({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      categories: Array.from({ length: 12 }, (_, i) => `a-rather-long-category-${i}`),
      series: [{ name: 's', values: Array.from({ length: 12 }, (_, i) => i + 1) }],
    });
    const short = barChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', categories: ['a', 'b'], series: [{ name: 's', values: [1, 2] }] });
    const turned = (svg: string): number =>
      byClass(parseSvg(svg), 'tick').filter((t) => (t.attribs['transform'] ?? '').startsWith('rotate(-35')).length;
    assert.equal(turned(long), 12);
    assert.equal(turned(short), 0);
  });

  it('refuses a series without one value per category', () => {
    assert.throws(
      () => barChartSvg({ title: 't', xLabel: 'x', yLabel: 'y', categories: ['a', 'b'], series: [{ name: 's', values: [1] }] }),
      RangeError,
    );
  });
});

describe('histogramSvg', () => {
  it('draws contiguous bins, the overflow bar hatched with its label, and the markers', () => {
    const root = parseSvg(
      histogramSvg({
        title: 'latency',
        xLabel: 'ms',
        yLabel: 'requests',
        edges: [0, 10, 20, 30],
        counts: [5, 0, 2],
        overflow: 1,
        markers: [
          { label: 'p50', at: 5 },
          { label: 'p99', at: 25 },
        ],
      }),
    );
    const drawn = bars(root);
    assert.deepEqual(
      drawn.map((b) => b.attribs['data-value']),
      ['5', '2', '1'],
      'an empty bin draws nothing',
    );
    const [first, third, overflow] = drawn as [Element, Element, Element];
    const binWidth = attr(first, 'width') + 1;
    assert.ok(Math.abs(attr(third, 'x') - attr(first, 'x') - 2 * binWidth) < 0.02, 'bins side by side');
    assert.ok(Math.abs(attr(overflow, 'x') - attr(third, 'x') - binWidth) < 0.02, 'the overflow bar follows the last bin');
    assert.match(overflow.attribs['fill'] ?? '', /^url\(#histogram-overflow\)$/);
    assert.ok(byClass(root, 'tick').some((t) => DomUtils.textContent(t) === '≥ 30'));
    const markers = byClass(root, 'markers')[0] as Element;
    assert.deepEqual(
      DomUtils.findAll((e) => e.name === 'text', [markers]).map((t) => DomUtils.textContent(t)),
      ['p50', 'p99'],
    );
  });

  it('refuses edges that do not ascend or counts that do not fit them', () => {
    const base = { title: 't', xLabel: 'x', yLabel: 'y' };
    assert.throws(() => histogramSvg({ ...base, edges: [0, 10], counts: [1, 2] }), RangeError);
    assert.throws(() => histogramSvg({ ...base, edges: [0, 10, 10], counts: [1, 2] }), RangeError);
  });
});

describe('compactNumber', () => {
  it('groups integers, shortens large values with a suffix, and keeps three digits of small ones', () => {
    assert.equal(compactNumber(12345), '12,345');
    assert.equal(compactNumber(6_544_045), '6.54M');
    assert.equal(compactNumber(2e9), '2G');
    assert.equal(compactNumber(0.123456), '0.123');
    assert.equal(compactNumber(-0.5), '-0.5');
    assert.equal(compactNumber(NaN), '–');
  });
});
