/** The topic metrics of a crawl (`src/cluster/read-topic.ts`) as lines in the style of the collaboration table. */
import type { TopicEval } from '../cluster/read-topic.js';
import { formatRatio } from '../eval/collab-table.js';

export function formatTopicLines(t: TopicEval): string {
  const pct = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
  const lines = [
    `topic locality          ${formatRatio(t.locality.locality)}  (${t.locality.samePairs} of ${t.locality.pairs} linked pairs ` +
      `in one category${t.locality.trueLocality === null ? '' : `; true labels: ${formatRatio(t.locality.trueLocality)}`})`,
    `categories              ${Object.entries(t.perCategory)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(', ')}; none ${t.uncategorised}`,
  ];
  if (t.accuracy !== null)
    lines.push(
      `classifier accuracy     ${pct(t.accuracy.accuracy)}  (${t.accuracy.right} of ${t.accuracy.pairs} pages against the truth; macro F1 ${pct(t.accuracy.macroF1)})`,
    );
  lines.push(`Kendall tau (nodes)     ${formatRatio(t.meanTau)}  (${t.taus.map((x) => `${x.group} ${formatRatio(x.tau, 3)}`).join(', ')})`);
  lines.push(`Kendall tau (hash)      ${formatRatio(t.meanHashTau)}  (the same pages in ${t.hashTaus.length} groups by content hash)`);
  return `${lines.join('\n')}\n`;
}
