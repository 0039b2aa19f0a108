/** A readable report of a {@link ClassifierAccuracy}: the totals, a row per category, the confusion matrix. */
import type { ClassifierAccuracy } from '../eval/classifier-accuracy.js';

const pct = (v: number | null): string => (v === null ? '-' : `${(100 * v).toFixed(1)}%`);

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] as number) : cell.padStart(widths[c] as number)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function formatAccuracy(a: ClassifierAccuracy): string {
  const head = `accuracy ${pct(a.accuracy)} (${a.right} of ${a.pairs}), macro F1 ${pct(a.macroF1)}`;
  const perCategory = table([
    ['category', 'support', 'predicted', 'precision', 'recall', 'F1'],
    ...a.perCategory.map((c) => [c.category, String(c.support), String(c.predicted), pct(c.precision), pct(c.recall), pct(c.f1)]),
  ]);
  const short = a.labels.map((l) => l.slice(0, 4));
  const hasNull = a.confusion.some((row) => (row[a.labels.length] as number) > 0);
  const confusion = table([
    ['true \\ predicted', ...short, ...(hasNull ? ['none'] : [])],
    ...a.confusion.map((row, t) => [a.labels[t] as string, ...row.slice(0, hasNull ? undefined : a.labels.length).map(String)]),
  ]);
  return `${head}\n\n${perCategory}\n\nconfusion matrix (rows: true label, columns: predicted)\n${confusion}\n`;
}
