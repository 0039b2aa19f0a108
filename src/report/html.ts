/**
 * Pieces of the report pages (HTML5, no script, no external resource): tables whose first cell is
 * the row's header, figures that inline a chart's SVG (or say why there is none), number formats,
 * and the page around them with its CSS. All text goes through {@link escapeXml}.
 */
import { formatFixed } from '../eval/collab-table.js';
import { barChartSvg, type BarChartOptions } from './svg-bars.js';
import { escapeXml } from './svg-chart.js';

/** One table cell: text, or text with a `data-figure` name (a key figure a reader or test can find). */
export type Cell = string | { readonly text: string; readonly figure?: string; readonly style?: string };

const cellHtml = (cell: Cell, tag: 'th scope="row"' | 'td'): string => {
  const c = typeof cell === 'string' ? { text: cell } : cell;
  const figure = c.figure === undefined ? '' : ` data-figure="${escapeXml(c.figure)}"`;
  const style = c.style === undefined ? '' : ` style="${escapeXml(c.style)}"`;
  return `<${tag}${figure}${style}>${escapeXml(c.text)}</${tag.split(' ')[0] as string}>`;
};

/**
 * A table: a header row, then rows whose first cell is their header and the others data, aligned
 * right as numbers; class `text` aligns every data cell left, `notes` the last column only.
 */
export function htmlTable(header: readonly string[], rows: readonly (readonly Cell[])[], className = ''): string {
  const head = `<tr>${header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => cellHtml(c, i === 0 ? 'th scope="row"' : 'td')).join('')}</tr>`).join('\n');
  return `<table${className === '' ? '' : ` class="${escapeXml(className)}"`}>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/** A chart in a figure, named by `data-chart`, with a caption saying what it counts. */
export function chartFigure(name: string, svg: string, caption: string): string {
  return `<figure class="chart" data-chart="${escapeXml(name)}">\n${svg}<figcaption>${escapeXml(caption)}</figcaption>\n</figure>`;
}

/** A paragraph of plain text. */
export const para = (text: string, className = ''): string =>
  `<p${className === '' ? '' : ` class="${escapeXml(className)}"`}>${escapeXml(text)}</p>`;

/** A figure with fixed decimals; `–` when undefined. */
export const dec = (v: number | null, digits: number): string => (v === null || !Number.isFinite(v) ? '–' : formatFixed(v, digits));

/** A share as a percentage; `–` when undefined. */
export const pct = (v: number | null, digits = 1): string =>
  v === null || !Number.isFinite(v) ? '–' : `${formatFixed(100 * v, digits)} %`;

/** A bar chart in a figure, or a sentence when no bar would show (every value 0 or undefined). */
export function barsOrNote(name: string, caption: string, options: BarChartOptions, idPrefix: string): string {
  const hasBar = options.series.some((s) => Array.from(s.values).some((v) => Number.isFinite(v) && v !== 0));
  if (!hasBar) return para(`${options.title}: nothing to draw (every value is 0 or undefined).`, 'note');
  return chartFigure(name, barChartSvg({ ...options, idPrefix }), caption);
}

/** A section of a page: its anchor, heading and body (blocks of HTML; empty ones dropped). */
export interface PageSection {
  readonly id: string;
  readonly title: string;
  readonly body: readonly string[];
}

/** The CSS every report page has (the simulation's page has exactly this). */
export const BASE_CSS = `body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
td { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: #f3f3f3; }
tbody th { text-align: left; font-weight: normal; }
figure { margin: 1em 0; }
.spec { color: #555; font-family: monospace; }`;

/** The CSS of the crawl report's page: the base, and rules for captions, notes, text tables and the contents. */
export const REPORT_CSS = `${BASE_CSS}
body { padding: 0 1em; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.85em; max-width: 760px; }
nav ul { columns: 3; }
table.text td, table.notes td:last-child { text-align: left; }
.note { color: #555; font-style: italic; }`;

/** A whole page: title, CSS, the `intro` blocks, a table of contents, then each section. */
export function htmlPage(title: string, intro: readonly string[], sections: readonly PageSection[]): string {
  const nav = sections.map((s) => `<li><a href="#${escapeXml(s.id)}">${escapeXml(s.title)}</a></li>`).join('');
  const body = sections.map(
    (s) => `<section id="${escapeXml(s.id)}">\n<h2>${escapeXml(s.title)}</h2>\n${s.body.filter((b) => b !== '').join('\n')}\n</section>`,
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeXml(title)}</title>
<style>
${REPORT_CSS}
</style>
</head>
<body>
<h1>${escapeXml(title)}</h1>
${intro.filter((b) => b !== '').join('\n')}
<nav><ul>${nav}</ul></nav>
${body.join('\n')}
</body>
</html>
`;
}
