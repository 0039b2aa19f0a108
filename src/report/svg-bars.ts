/**
 * Bar charts and histograms as SVG 1.1 strings, in the frame and palette of the line chart
 * (`svg-chart.ts`): a standalone `.svg` file or a chart inlined in an HTML page, no script.
 *
 * - {@link barChartSvg}: one group of bars per category (a node, an outcome, a pair), one bar per
 *   series in the group, from 0 up (or down, for a negative value such as a Kendall τ). Category
 *   names too long for their slot are turned 35°. Each bar has a `<title>` (a tooltip in a browser)
 *   with its category, series and value; the value is written above the bar while the bars are few
 *   enough to read it.
 * - {@link histogramSvg}: counts over contiguous bins of a numeric axis, with an optional overflow
 *   bar (values past the last edge, drawn hatched grey and labelled `≥ edge`) and vertical markers
 *   (percentiles).
 *
 * Readable in grey: series differ in colour (Okabe–Ito) *and* texture (solid, then stripes at
 * different angles), and the legend shows both. A NaN value draws no bar (undefined, not zero).
 */
import {
  CHAR_WIDTH,
  chartFrame,
  escapeXml,
  fmt,
  LEGEND_ROW,
  LEGEND_SAMPLE,
  niceDomain,
  niceTicks,
  SERIES_COLOURS,
  svgIdPrefix,
  tickLabel,
  type ChartLabels,
} from './svg-chart.js';

/** One series of a bar chart: a value per category, parallel to the categories; NaN draws no bar. */
export interface BarSeries {
  readonly name: string;
  readonly values: ArrayLike<number>;
}

/** Options of {@link barChartSvg}. Sizes in SVG user units (CSS pixels). */
export interface BarChartOptions extends ChartLabels {
  readonly categories: readonly string[];
  readonly series: readonly BarSeries[];
  /** Overall width. Default 760. */
  readonly width?: number;
  /** Overall height. Default 360. */
  readonly height?: number;
  /** y range shown. Default: the data's range with 0 included, widened to ticks. */
  readonly yDomain?: readonly [number, number];
  /** Text of a value (ticks, labels, tooltips). Default {@link compactNumber}. */
  readonly format?: (value: number) => string;
  /** Prefix of the ids inside the SVG (patterns), unique per page. Default `bars`. */
  readonly idPrefix?: string;
}

/** Options of {@link histogramSvg}. */
export interface HistogramOptions extends ChartLabels {
  /** Bin edges, ascending: bin i is [edges[i], edges[i + 1]). */
  readonly edges: ArrayLike<number>;
  /** Count of each bin: one fewer than the edges. */
  readonly counts: ArrayLike<number>;
  /** Values at or past the last edge, drawn as one more bar. Default 0 (no bar). */
  readonly overflow?: number;
  /** Vertical lines at values of the x axis, labelled (p50, p90, ...). */
  readonly markers?: readonly { readonly label: string; readonly at: number }[];
  readonly width?: number;
  readonly height?: number;
  readonly idPrefix?: string;
}

/** Stripe angle of each series' texture after the first (solid); cycles with the colours. */
const STRIPE_ANGLES = [45, -45, 0, 90, 30, -60] as const;
const MAX_TICK_CHARS = 24;
/** Bars up to this many carry their value as text above them. */
const MAX_LABELLED_BARS = 30;

/**
 * A number for a tick or label: integers grouped (`12,345`), large values with an SI suffix
 * (`1.5M`, `2G`), small ones with up to 3 significant digits.
 */
export function compactNumber(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  for (const [limit, suffix] of [
    [1e12, 'T'],
    [1e9, 'G'],
    [1e6, 'M'],
  ] as const) {
    if (a >= limit) return `${tickLabel(Number((v / limit).toPrecision(3)))}${suffix}`;
  }
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  return a >= 100 ? v.toFixed(0) : tickLabel(Number(v.toPrecision(3)));
}

const shorten = (label: string): string => (label.length > MAX_TICK_CHARS ? `${label.slice(0, MAX_TICK_CHARS - 1)}…` : label);

/** The fill of series `k`: its colour, solid for the first, striped for the others (a pattern in `defs`). */
function fillOf(idPrefix: string, k: number): { fill: string; stroke: string; pattern: string } {
  const colour = SERIES_COLOURS[k % SERIES_COLOURS.length] as string;
  if (k === 0) return { fill: colour, stroke: colour, pattern: '' };
  const angle = STRIPE_ANGLES[(k - 1) % STRIPE_ANGLES.length] as number;
  const id = `${idPrefix}-fill-${k}`;
  return {
    fill: `url(#${id})`,
    stroke: colour,
    pattern:
      `<pattern id="${id}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(${angle})">` +
      `<rect width="6" height="6" fill="${colour}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2"/></pattern>`,
  };
}

/** Left margin that fits the y tick labels and the y axis label. */
const leftMargin = (labels: readonly string[]): number => Math.max(64, 34 + Math.max(0, ...labels.map((l) => l.length)) * CHAR_WIDTH);

/**
 * The bar chart as an SVG document string.
 *
 * @throws RangeError if a series has not one value per category, or a size is not positive.
 */
export function barChartSvg(options: BarChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 360;
  if (!(width > 0 && height > 0)) throw new RangeError(`barChartSvg: width and height must be > 0, got ${width} × ${height}`);
  const { categories, series } = options;
  for (const s of series)
    if (s.values.length !== categories.length)
      throw new RangeError(`barChartSvg: series "${s.name}" has ${s.values.length} values for ${categories.length} categories`);
  const format = options.format ?? compactNumber;
  const idPrefix = svgIdPrefix(options.idPrefix ?? 'bars');

  let lo = 0;
  let hi = 0;
  for (const s of series)
    for (let i = 0; i < s.values.length; i++) {
      const v = s.values[i] as number;
      if (Number.isFinite(v)) [lo, hi] = [Math.min(lo, v), Math.max(hi, v)];
    }
  const [yLo, yHi] = options.yDomain ?? niceDomain(lo, hi);
  const yTickValues = niceTicks(yLo, yHi, 5).filter((t) => t >= yLo && t <= yHi);
  const yTickLabels = yTickValues.map(format);

  const hasLegend = series.length > 1;
  const longestName = Math.max(0, ...series.map((s) => s.name.length));
  const legendWidth = hasLegend ? Math.min(width * 0.4, LEGEND_SAMPLE + 16 + longestName * CHAR_WIDTH) : 0;
  const left = leftMargin(yTickLabels);
  const right = width - legendWidth - 24;
  const slot = (right - left) / Math.max(1, categories.length);
  const ticks = categories.map(shorten);
  const longestTick = Math.max(0, ...ticks.map((t) => t.length));
  const isTurned = longestTick * CHAR_WIDTH > slot * 0.95;
  const top = 44;
  const bottom = height - 52 - (isTurned ? Math.min(longestTick * CHAR_WIDTH * 0.57, height / 3) : 0);
  const py = (y: number): number => bottom - ((y - yLo) / (yHi - yLo || 1)) * (bottom - top);
  const fills = series.map((_, k) => fillOf(idPrefix, k));

  const out = chartFrame({
    ...options,
    width,
    height,
    plot: { left, right, top, bottom },
    xTicks: ticks.map((label, i) => ({ at: left + (i + 0.5) * slot, label })),
    yTicks: yTickValues.map((t, i) => ({ at: py(t), label: yTickLabels[i] as string })),
    isXTickRotated: isTurned,
    defs: fills.map((f) => f.pattern).join(''),
  });

  const groupWidth = slot * 0.8;
  const barWidth = groupWidth / Math.max(1, series.length);
  const isLabelled = categories.length * series.length <= MAX_LABELLED_BARS && barWidth >= 14;
  const zero = py(Math.min(Math.max(0, yLo), yHi));
  out.push('<g class="bars">');
  series.forEach((s, k) => {
    const f = fills[k] as (typeof fills)[number];
    out.push(`<g class="series"><title>${escapeXml(s.name)}</title>`);
    for (let i = 0; i < categories.length; i++) {
      const v = s.values[i] as number;
      if (!Number.isFinite(v)) continue;
      const x = left + i * slot + (slot - groupWidth) / 2 + k * barWidth;
      const y = py(Math.min(Math.max(v, yLo), yHi));
      const tip = `${categories[i] as string}${hasLegend ? ` · ${s.name}` : ''}: ${format(v)}`;
      out.push(
        `<rect class="bar" x="${fmt(x)}" y="${fmt(Math.min(y, zero))}" width="${fmt(barWidth)}" height="${fmt(Math.abs(zero - y))}" ` +
          `fill="${f.fill}" stroke="${f.stroke}" stroke-width="1" data-value="${v}"><title>${escapeXml(tip)}</title></rect>`,
      );
      if (isLabelled)
        out.push(
          `<text class="value" x="${fmt(x + barWidth / 2)}" y="${fmt(v >= 0 ? Math.min(y, zero) - 4 : Math.max(y, zero) + 13)}" ` +
            `text-anchor="middle" font-size="10">${escapeXml(format(v))}</text>`,
        );
    }
    out.push('</g>');
  });
  out.push('</g>');
  if (hasLegend) {
    const lx = right + 16;
    out.push('<g class="legend">');
    series.forEach((s, k) => {
      const y = top + 8 + k * LEGEND_ROW;
      const f = fills[k] as (typeof fills)[number];
      out.push(
        `<g class="legend-entry"><rect x="${fmt(lx)}" y="${fmt(y - 6)}" width="${LEGEND_SAMPLE}" height="12" fill="${f.fill}" stroke="${f.stroke}"/>` +
          `<text x="${fmt(lx + LEGEND_SAMPLE + 8)}" y="${fmt(y + 4)}">${escapeXml(s.name)}</text></g>`,
      );
    });
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/**
 * The histogram as an SVG document string.
 *
 * @throws RangeError if there is not one count fewer than edges, the edges do not ascend, or a size is not positive.
 */
export function histogramSvg(options: HistogramOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 360;
  if (!(width > 0 && height > 0)) throw new RangeError(`histogramSvg: width and height must be > 0, got ${width} × ${height}`);
  const { edges, counts } = options;
  if (edges.length < 2 || counts.length !== edges.length - 1)
    throw new RangeError(`histogramSvg: ${counts.length} counts for ${edges.length} edges; want one fewer counts than edges, at least one`);
  for (let i = 1; i < edges.length; i++)
    if (!((edges[i] as number) > (edges[i - 1] as number))) throw new RangeError(`histogramSvg: edges must ascend (edge ${i})`);
  const idPrefix = svgIdPrefix(options.idPrefix ?? 'histogram');
  const overflow = options.overflow ?? 0;
  const first = edges[0] as number;
  const last = edges[edges.length - 1] as number;
  const lastBin = last - (edges[edges.length - 2] as number);
  const xHi = overflow > 0 ? last + lastBin : last;

  let hi = overflow;
  for (let i = 0; i < counts.length; i++) hi = Math.max(hi, counts[i] as number);
  const [yLo, yHi] = niceDomain(0, hi);
  const yTickValues = niceTicks(yLo, yHi, 5).filter((t) => t >= yLo && t <= yHi);
  const yTickLabels = yTickValues.map(compactNumber);
  const left = leftMargin(yTickLabels);
  const right = width - 24;
  const top = 44;
  const bottom = height - 52;
  const px = (x: number): number => left + ((x - first) / (xHi - first)) * (right - left);
  const py = (y: number): number => bottom - ((y - yLo) / (yHi - yLo || 1)) * (bottom - top);
  const xTicks = niceTicks(first, last, 10)
    .filter((t) => t >= first && t <= last)
    .map((t) => ({ at: px(t), label: compactNumber(t) }));
  if (overflow > 0) xTicks.push({ at: px(last + lastBin / 2), label: `≥ ${compactNumber(last)}` });
  const hatch = `${idPrefix}-overflow`;

  const out = chartFrame({
    ...options,
    width,
    height,
    plot: { left, right, top, bottom },
    xTicks,
    yTicks: yTickValues.map((t, i) => ({ at: py(t), label: yTickLabels[i] as string })),
    defs:
      overflow > 0
        ? `<pattern id="${hatch}" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
          `<rect width="6" height="6" fill="#9a9a9a"/><line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2"/></pattern>`
        : '',
  });
  const colour = SERIES_COLOURS[0];
  const bar = (lo: number, hi: number, count: number, fill: string, stroke: string, tip: string): string =>
    `<rect class="bar" x="${fmt(px(lo))}" y="${fmt(py(count))}" width="${fmt(Math.max(0, px(hi) - px(lo) - 1))}" ` +
    `height="${fmt(py(0) - py(count))}" fill="${fill}" stroke="${stroke}" stroke-width="0.5" data-value="${count}"><title>${escapeXml(tip)}</title></rect>`;
  out.push('<g class="bars">');
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] as number;
    if (c <= 0) continue;
    const lo = edges[i] as number;
    const hi = edges[i + 1] as number;
    out.push(bar(lo, hi, c, colour, colour, `${compactNumber(lo)} to ${compactNumber(hi)}: ${compactNumber(c)}`));
  }
  if (overflow > 0) out.push(bar(last, xHi, overflow, `url(#${hatch})`, '#666666', `≥ ${compactNumber(last)}: ${compactNumber(overflow)}`));
  out.push('</g>');
  const markers = options.markers ?? [];
  if (markers.length > 0) {
    out.push('<g class="markers" stroke="#333333" stroke-width="1.5" stroke-dasharray="4 3">');
    markers.forEach((m, i) => {
      const x = px(Math.min(Math.max(m.at, first), xHi));
      out.push(
        `<line x1="${fmt(x)}" y1="${fmt(top)}" x2="${fmt(x)}" y2="${fmt(bottom)}"/>` +
          `<text x="${fmt(x + 3)}" y="${fmt(top + 12 + 13 * (i % 3))}" stroke="none" fill="#333333" font-size="11">${escapeXml(m.label)}</text>`,
      );
    });
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
