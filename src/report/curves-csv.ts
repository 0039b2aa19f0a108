/**
 * Evaluation curves (src/eval/ordering-models.ts) as text files: CSV for spreadsheets and plotting
 * tools, JSON that keeps each curve's spec so a report can be rebuilt later (`curvesFromJson`).
 * Pure string builders: the CLI writes the files.
 *
 * CSV shape: one x column, then one column per curve headed by its label. Curves sampled at
 * different x share the table: the x column is the union of every curve's x values, and a curve has
 * an empty cell where it was not sampled or is undefined (NaN). Lines end with `\n`.
 */
import { z } from 'zod';
import { summarizeCurve, type Curve, type CurveSpec } from '../eval/ordering-models.js';

/** Options of {@link curvesToCsv} and {@link summaryToCsv}. */
export interface CsvOptions {
  /** Decimals kept in every number (trailing zeros dropped). Default 6. */
  readonly decimals?: number;
}

/** A number for a CSV cell: fixed decimals without trailing zeros; empty for NaN / ±Infinity. */
export function formatCsvNumber(v: number, decimals = 6): string {
  if (!Number.isFinite(v)) return '';
  const s = v.toFixed(decimals);
  const trimmed = s.includes('.') ? s.replace(/\.?0+$/, '') : s;
  return trimmed === '-0' ? '0' : trimmed;
}

/** A CSV field, quoted when it holds a comma, a quote, a line break or edge spaces (RFC 4180). */
export function csvField(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Curve labels made unique for column headers: repeats get ` [model]`, then ` #2`, ` #3`, ... */
export function columnNames(curves: readonly Pick<Curve, 'spec'>[]): string[] {
  const count = (names: readonly string[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const name of names) m.set(name, (m.get(name) ?? 0) + 1);
    return m;
  };
  const labels = curves.map((c) => c.spec.label);
  const labelCounts = count(labels);
  const named = curves.map((c, i) => ((labelCounts.get(labels[i] as string) ?? 0) > 1 ? `${c.spec.label} [${c.spec.id}]` : c.spec.label));
  const namedCounts = count(named);
  const seen = new Map<string, number>();
  return named.map((name) => {
    if ((namedCounts.get(name) ?? 0) === 1) return name;
    const nth = (seen.get(name) ?? 0) + 1;
    seen.set(name, nth);
    return nth === 1 ? name : `${name} #${nth}`;
  });
}

function xColumn(curves: readonly Curve[]): string {
  const units = new Set(curves.map((c) => c.spec.xUnit));
  if (units.size > 1) throw new RangeError('curvesToCsv: curves mix x units (fraction and ms); write them to separate tables');
  return units.has('ms') ? 'elapsed_ms' : 'fraction_crawled';
}

/**
 * The curves as one CSV table: header `fraction_crawled` (or `elapsed_ms`) and one column per curve.
 *
 * @throws RangeError if the curves mix x units.
 */
export function curvesToCsv(curves: readonly Curve[], options: CsvOptions = {}): string {
  const decimals = options.decimals ?? 6;
  const xs = [...new Set(curves.flatMap((c) => Array.from(c.x)))].sort((a, b) => a - b);
  const columns = curves.map((c) => {
    const at = new Map<number, number>();
    for (let i = 0; i < c.x.length; i++) at.set(c.x[i] as number, c.y[i] as number);
    return at;
  });
  const lines = [[xColumn(curves), ...columnNames(curves)].map(csvField).join(',')];
  for (const x of xs) {
    lines.push([formatCsvNumber(x, decimals), ...columns.map((at) => formatCsvNumber(at.get(x) ?? NaN, decimals))].join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** One row per curve: its column name, model and crawler, then y at each x of `at` (default 0.1, 0.2, 0.4; see `summarizeCurve`). */
export function summaryToCsv(curves: readonly Curve[], at: readonly number[] = [0.1, 0.2, 0.4], options: CsvOptions = {}): string {
  const decimals = options.decimals ?? 6;
  const header = ['curve', 'model', 'crawler', ...at.map((x) => `y_at_${formatCsvNumber(x, decimals)}`)];
  const names = columnNames(curves);
  const rows = curves.map((c, i) => {
    const ys = summarizeCurve(c, at);
    return [
      csvField(names[i] as string),
      c.spec.id,
      c.spec.crawler.kind,
      ...Array.from({ length: at.length }, (_, j) => formatCsvNumber(ys[j] as number, decimals)),
    ].join(',');
  });
  return `${[header.join(','), ...rows].join('\n')}\n`;
}

/** Format tag and version of the JSON written by {@link curvesToJson}. */
export const CURVES_JSON_FORMAT = 'shoal-curves/1';

/** The curves as JSON: `{ format, curves: [{ spec, x, y }] }`, numbers at full precision, NaN as null. */
export function curvesToJson(curves: readonly Curve[], options: { readonly indent?: number } = {}): string {
  const list = (a: Float64Array): (number | null)[] => Array.from(a, (v) => (Number.isFinite(v) ? v : null));
  const doc = { format: CURVES_JSON_FORMAT, curves: curves.map((c) => ({ spec: c.spec, x: list(c.x), y: list(c.y) })) };
  return `${JSON.stringify(doc, null, options.indent ?? 0)}\n`;
}

const specValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.array(z.number())]);
const strategySpec = z.object({ id: z.string(), params: z.record(z.string(), specValue) });
const curveSpec = z.object({
  id: z.enum(['pcs', 'pst', 'wc', 'pbc']),
  params: z.record(z.string(), specValue),
  crawler: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('crawl'), policy: strategySpec }),
    z.object({ kind: z.literal('random') }),
    z.object({ kind: z.literal('ideal') }),
  ]),
  importance: strategySpec,
  label: z.string(),
  xUnit: z.enum(['fraction', 'ms']),
  yUnit: z.enum(['percent', 'weight']),
});
const curvesDoc = z.object({
  format: z.literal(CURVES_JSON_FORMAT),
  curves: z.array(
    z
      .object({ spec: curveSpec, x: z.array(z.number()), y: z.array(z.number().nullable()) })
      .refine((c) => c.x.length === c.y.length, { message: 'x and y differ in length' }),
  ),
});

/**
 * Reads back what {@link curvesToJson} wrote (null y values become NaN).
 *
 * @throws SyntaxError on invalid JSON; Error listing every problem, with its path, on a wrong shape.
 */
export function curvesFromJson(text: string): Curve[] {
  const parsed = curvesDoc.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`not a ${CURVES_JSON_FORMAT} document: ${problems.join('; ')}`);
  }
  return parsed.data.curves.map((c) => ({
    spec: c.spec satisfies CurveSpec,
    x: Float64Array.from(c.x),
    y: Float64Array.from(c.y, (v) => v ?? NaN),
  }));
}
