/**
 * A dependency-free line chart as an SVG 1.1 string, for the URL-ordering curves (PST, PCS, WC, PBC
 * against the share of the crawl) and any other x/y series of a report. The string stands alone as an
 * `.svg` file (it has its namespace and no XML declaration) and can be inlined in an HTML page.
 *
 * What it draws: a title, a plot frame with grid lines at "nice" ticks (steps of 1, 2 or 5 × 10^k),
 * axis labels, one polyline per series clipped to the plot, and a legend on the right. Data series
 * get a colour from the Okabe–Ito palette (distinguishable with the common colour-vision
 * deficiencies) *and* a dash pattern of their own, so a grey print still tells them apart; the
 * random baseline is a grey dashed line, the ideal one a dark dotted line. A NaN or infinite value
 * breaks the line (undefined there). All text is escaped, and characters XML forbids are dropped.
 *
 * The frame (title, grid, axes, ticks, labels) is {@link chartFrame}, which the bar charts and
 * histograms of `svg-bars.ts` draw too.
 */
import type { Curve } from '../eval/ordering-models.js';

/** How a series is drawn: `data` (a crawl), or one of the two reference crawlers. */
export type SeriesRole = 'data' | 'random' | 'ideal';

/** One line of the chart. */
export interface ChartSeries {
  /** Name in the legend. */
  readonly name: string;
  readonly x: ArrayLike<number>;
  /** Parallel to x; NaN leaves a gap. */
  readonly y: ArrayLike<number>;
  /** Default `data`. */
  readonly role?: SeriesRole;
}

/** The text of a chart: its title and the labels of its axes. */
export interface ChartLabels {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
}

/** Options of {@link lineChartSvg}. Sizes are in SVG user units (CSS pixels). */
export interface LineChartOptions extends ChartLabels {
  readonly series: readonly ChartSeries[];
  /** Overall width. Default 760. */
  readonly width?: number;
  /** Overall height. Default 440. */
  readonly height?: number;
  /** x range shown. Default: the data's range, widened to ticks. */
  readonly xDomain?: readonly [number, number];
  /** y range shown. Default: the data's range with 0 included, widened to ticks. */
  readonly yDomain?: readonly [number, number];
  /** Prefix of the ids inside the SVG, to keep them unique when several charts share a page. Default `chart`. */
  readonly idPrefix?: string;
}

/** Colours of data series, in order (Okabe–Ito, without yellow, which is too light on white). */
export const SERIES_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'] as const;
/** Dash patterns of data series, in order (`none` = solid); together with the colours, 7 × 6 distinct styles. */
export const SERIES_DASHES = ['none', '9 4', '2 3', '12 3 3 3', '5 2', '12 3 2 3 2 3'] as const;

const FONT_SIZE = 12;
/** Mean width of a character of the charts' text, to size legends and margins. */
export const CHAR_WIDTH = 6.8;
/** Height of a legend entry. */
export const LEGEND_ROW = 20;
/** Width of a legend entry's sample (a line, a swatch). */
export const LEGEND_SAMPLE = 30;
/** Lines on the frame (PST = 100 %, x = 0) stay whole: the clip reaches this far past it. */
const CLIP_MARGIN = 3;

/** Escapes text for XML content and attribute values; drops characters XML 1.0 does not allow. */
export function escapeXml(text: string): string {
  const allowed = text.replace(
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '',
  );
  return allowed.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

/** `idPrefix` (default `chart`) as the start of an XML id: other characters become `_`, and it begins with a letter or `_`. */
export function svgIdPrefix(idPrefix = 'chart'): string {
  return idPrefix.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^(?![A-Za-z_])/, 'c');
}

/** The least step of 1, 2 or 5 × 10^k that is at least `raw` (> 0). */
export function niceStep(raw: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
}

/** Tick values covering [lo, hi] at a step of 1, 2 or 5 × 10^k giving about `target` intervals. */
export function niceTicks(lo: number, hi: number, target = 5): number[] {
  if (!(hi > lo)) return [lo];
  const step = niceStep((hi - lo) / target);
  const ticks: number[] = [];
  for (let i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** [lo, hi] widened outwards to ticks of {@link niceTicks}; a single value (or none) gets a range around it. */
export function niceDomain(lo: number, hi: number): [number, number] {
  if (!(hi > lo)) return lo === 0 || !Number.isFinite(lo) ? [0, 1] : [lo - Math.abs(lo) / 2, lo + Math.abs(lo) / 2];
  const ticks = niceTicks(lo, hi);
  const step = ticks.length > 1 ? (ticks[1] as number) - (ticks[0] as number) : hi - lo;
  return [Math.floor(lo / step + 1e-9) * step, Math.ceil(hi / step - 1e-9) * step];
}

function extent(series: readonly ChartSeries[], axis: 'x' | 'y'): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    const values = s[axis];
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (Number.isFinite(v) && Number.isFinite((axis === 'x' ? s.y[i] : s.x[i]) as number)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
  }
  return [lo, hi];
}

/** A coordinate for an attribute: rounded to hundredths. */
export const fmt = (v: number): string => String(Math.round(v * 100) / 100);
/** A tick value as text: no floating-point noise (0.30000000000000004 reads 0.3). */
export const tickLabel = (v: number): string => String(Number(v.toPrecision(10)));

/** One tick of an axis: where it stands (SVG units) and what it reads. */
export interface AxisTick {
  readonly at: number;
  readonly label: string;
}

/** The plot area of a chart, in SVG units. */
export interface PlotArea {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** The frame every chart of this folder shares: what {@link chartFrame} draws. Sizes in SVG units. */
export interface ChartFrame extends ChartLabels {
  readonly width: number;
  readonly height: number;
  readonly plot: PlotArea;
  readonly xTicks: readonly AxisTick[];
  readonly yTicks: readonly AxisTick[];
  /** Grid lines at the x ticks too (a numeric x axis); bar charts have them at the y ticks only. Default false. */
  readonly hasXGrid?: boolean;
  /** x tick labels turned 35° (long category names); they then hang from the tick's end. Default false. */
  readonly isXTickRotated?: boolean;
  /** Content of `<defs>` (clip paths, patterns); none when empty (the default). */
  readonly defs?: string;
}

/**
 * The opening of a chart, as lines: the `<svg>` element, its title, defs, a white background, the
 * title text, the grid, and the axes (plot frame, ticks with labels, axis labels). The caller adds
 * its marks and `</svg>`.
 */
export function chartFrame(f: ChartFrame): string[] {
  const { width, height } = f;
  const { left, right, top, bottom } = f.plot;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${width}" height="${height}" viewBox="0 ` +
      `0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="${FONT_SIZE}">`,
  );
  out.push(`<title>${escapeXml(f.title)}</title>`);
  if ((f.defs ?? '') !== '') out.push(`<defs>${f.defs}</defs>`);
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(
    `<text class="title" x="${fmt((left + right) / 2)}" y="${fmt(top - 18)}" text-anchor="middle" ` +
      `font-size="${FONT_SIZE + 3}" font-weight="bold">${escapeXml(f.title)}</text>`,
  );

  out.push('<g class="grid" stroke="#e3e3e3" stroke-width="1">');
  if (f.hasXGrid === true)
    for (const t of f.xTicks) out.push(`<line x1="${fmt(t.at)}" y1="${fmt(top)}" x2="${fmt(t.at)}" y2="${fmt(bottom)}"/>`);
  for (const t of f.yTicks) out.push(`<line x1="${fmt(left)}" y1="${fmt(t.at)}" x2="${fmt(right)}" y2="${fmt(t.at)}"/>`);
  out.push('</g>');

  out.push('<g class="axes" fill="#222222">');
  out.push(
    `<rect x="${fmt(left)}" y="${fmt(top)}" width="${fmt(right - left)}" height="${fmt(bottom - top)}" fill="none" stroke="#444444" stroke-width="1"/>`,
  );
  const isTurned = f.isXTickRotated === true;
  for (const t of f.xTicks) {
    out.push(`<line x1="${fmt(t.at)}" y1="${fmt(bottom)}" x2="${fmt(t.at)}" y2="${fmt(bottom + 5)}" stroke="#444444"/>`);
    const y = bottom + (isTurned ? 12 : 18);
    const turn = isTurned ? ` transform="rotate(-35 ${fmt(t.at)} ${fmt(y)})"` : '';
    out.push(
      `<text class="tick" x="${fmt(t.at)}" y="${fmt(y)}" text-anchor="${isTurned ? 'end' : 'middle'}"${turn}>${escapeXml(t.label)}</text>`,
    );
  }
  for (const t of f.yTicks) {
    out.push(`<line x1="${fmt(left - 5)}" y1="${fmt(t.at)}" x2="${fmt(left)}" y2="${fmt(t.at)}" stroke="#444444"/>`);
    out.push(`<text class="tick" x="${fmt(left - 8)}" y="${fmt(t.at + 4)}" text-anchor="end">${escapeXml(t.label)}</text>`);
  }
  out.push(
    `<text class="x-label" x="${fmt((left + right) / 2)}" y="${fmt(height - 14)}" text-anchor="middle">${escapeXml(f.xLabel)}</text>`,
  );
  const yMid = (top + bottom) / 2;
  out.push(
    `<text class="y-label" x="18" y="${fmt(yMid)}" text-anchor="middle" transform="rotate(-90 18 ${fmt(yMid)})">${escapeXml(f.yLabel)}</text>`,
  );
  out.push('</g>');
  return out;
}

interface Style {
  readonly stroke: string;
  readonly dash: string;
  readonly width: number;
}

function styleOf(role: SeriesRole, dataIndex: number): Style {
  if (role === 'random') return { stroke: '#7f7f7f', dash: '6 5', width: 1.5 };
  if (role === 'ideal') return { stroke: '#333333', dash: '1 4', width: 2.5 };
  const colour = SERIES_COLOURS[dataIndex % SERIES_COLOURS.length] as string;
  const dash = SERIES_DASHES[dataIndex % SERIES_DASHES.length] as string;
  return { stroke: colour, dash, width: 2 };
}

function strokeAttributes(style: Style): string {
  const dash = style.dash === 'none' ? '' : ` stroke-dasharray="${style.dash}"`;
  return `fill="none" stroke="${style.stroke}" stroke-width="${style.width}"${dash} stroke-linecap="round" stroke-linejoin="round"`;
}

/**
 * The chart as an SVG document string.
 *
 * @throws RangeError if a series' x and y differ in length or a size is not positive.
 */
export function lineChartSvg(options: LineChartOptions): string {
  const width = options.width ?? 760;
  const height = options.height ?? 440;
  if (!(width > 0 && height > 0)) throw new RangeError(`lineChartSvg: width and height must be > 0, got ${width} × ${height}`);
  for (const s of options.series) {
    if (s.x.length !== s.y.length) throw new RangeError(`lineChartSvg: series "${s.name}" has ${s.x.length} x but ${s.y.length} y values`);
  }
  const idPrefix = svgIdPrefix(options.idPrefix);
  const [xLo, xHi] = options.xDomain ?? niceDomain(...extent(options.series, 'x'));
  const [dataYLo, dataYHi] = extent(options.series, 'y');
  const [yLo, yHi] = options.yDomain ?? niceDomain(Math.min(0, dataYLo), Number.isFinite(dataYHi) ? dataYHi : 0);

  const longest = Math.max(0, ...options.series.map((s) => s.name.length));
  const legendWidth = options.series.length === 0 ? 0 : Math.min(width * 0.4, LEGEND_SAMPLE + 16 + longest * CHAR_WIDTH);
  const left = 64;
  const right = width - legendWidth - 24;
  const top = 44;
  const bottom = height - 52;
  const px = (x: number): number => left + ((x - xLo) / (xHi - xLo || 1)) * (right - left);
  const py = (y: number): number => bottom - ((y - yLo) / (yHi - yLo || 1)) * (bottom - top);

  const xTicks = niceTicks(xLo, xHi, 10).filter((t) => t >= xLo && t <= xHi);
  const yTicks = niceTicks(yLo, yHi, 5).filter((t) => t >= yLo && t <= yHi);
  const out = chartFrame({
    ...options,
    width,
    height,
    plot: { left, right, top, bottom },
    xTicks: xTicks.map((t) => ({ at: px(t), label: tickLabel(t) })),
    yTicks: yTicks.map((t) => ({ at: py(t), label: tickLabel(t) })),
    hasXGrid: true,
    defs:
      `<clipPath id="${idPrefix}-plot"><rect x="${fmt(left - CLIP_MARGIN)}" y="${fmt(top - CLIP_MARGIN)}" ` +
      `width="${fmt(right - left + 2 * CLIP_MARGIN)}" height="${fmt(bottom - top + 2 * CLIP_MARGIN)}"/></clipPath>`,
  });

  const styles: Style[] = [];
  let dataIndex = 0;
  for (const s of options.series) {
    const role = s.role ?? 'data';
    styles.push(styleOf(role, role === 'data' ? dataIndex++ : 0));
  }
  out.push(`<g class="lines" clip-path="url(#${idPrefix}-plot)">`);
  options.series.forEach((s, i) => {
    const d: string[] = [];
    let isDrawing = false;
    for (let j = 0; j < s.x.length; j++) {
      const x = s.x[j] as number;
      const y = s.y[j] as number;
      if (!Number.isFinite(x) || !Number.isFinite(y)) {
        isDrawing = false;
        continue;
      }
      d.push(`${isDrawing ? 'L' : 'M'}${fmt(px(x))} ${fmt(py(y))}`);
      isDrawing = true;
    }
    const path = d.length === 0 ? '' : `<path d="${d.join(' ')}" ${strokeAttributes(styles[i] as Style)}/>`;
    out.push(`<g class="series series-${s.role ?? 'data'}"><title>${escapeXml(s.name)}</title>${path}</g>`);
  });
  out.push('</g>');

  if (options.series.length > 0) {
    const lx = right + 16;
    out.push('<g class="legend">');
    options.series.forEach((s, i) => {
      const y = top + 8 + i * LEGEND_ROW;
      out.push(
        `<g class="legend-entry"><line x1="${fmt(lx)}" y1="${fmt(y)}" x2="${fmt(lx + LEGEND_SAMPLE)}" y2="${fmt(y)}" ${strokeAttributes(styles[i] as Style)}/>` +
          `<text x="${fmt(lx + LEGEND_SAMPLE + 8)}" y="${fmt(y + 4)}">${escapeXml(s.name)}</text></g>`,
      );
    });
    out.push('</g>');
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Options of {@link curvesChartSvg}: those of the line chart, with defaults taken from the curves. */
export type CurvesChartOptions = Partial<Omit<LineChartOptions, 'series'>>;

const MODEL_NAMES = { pcs: 'PCS', pst: 'PST', wc: 'weighted coverage', pbc: 'PBC' } as const;

/**
 * A chart of evaluation curves: x in percent of the pages crawled (or ms), y as the curves give it;
 * random and ideal crawlers drawn in their own styles. Defaults: y label from the first curve's model
 * (`PST (%)`), x label `fraction of pages crawled (%)`, x domain 0–100 %, y domain 0–100 for percents.
 */
export function curvesChartSvg(curves: readonly Curve[], options: CurvesChartOptions = {}): string {
  const first = curves[0];
  const isFraction = first === undefined || first.spec.xUnit === 'fraction';
  const isPercent = first === undefined || first.spec.yUnit === 'percent';
  const model = first === undefined ? 'y' : MODEL_NAMES[first.spec.id];
  const series: ChartSeries[] = curves.map((c) => ({
    name: c.spec.label,
    x: c.spec.xUnit === 'fraction' ? Float64Array.from(c.x, (x) => 100 * x) : c.x,
    y: c.y,
    role: c.spec.crawler.kind === 'crawl' ? 'data' : c.spec.crawler.kind,
  }));
  return lineChartSvg({
    ...options,
    title: options.title ?? `${model} against the share of the crawl`,
    xLabel: options.xLabel ?? (isFraction ? 'fraction of pages crawled (%)' : 'time since the crawl started (ms)'),
    yLabel: options.yLabel ?? `${model}${isPercent ? ' (%)' : ''}`,
    series,
    xDomain: options.xDomain ?? (isFraction ? [0, 100] : undefined),
    yDomain: options.yDomain ?? (isPercent ? [0, 100] : undefined),
  });
}
