/** The community metrics of a crawl (`src/cluster/read-community.ts`) as lines in the style of the collaboration table. */
import type { CommunityEval } from '../cluster/read-community.js';
import { formatRatio } from '../eval/collab-table.js';

export function formatCommunityLines(c: CommunityEval): string {
  const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
  const m = c.mean;
  const lines = [
    `community cohesion      ${pct(m.cohesion)}  (mean over nodes: edges inside a node's pages / edges touching them)`,
    `community precision     ${pct(m.precision)}  recall ${pct(m.recall)}  (against each node's majority community; ` +
      `${m.distinctMajorities} distinct majorities over ${c.nodes.length} nodes)`,
    `community overlap       ${formatRatio(c.overlap)}  (${c.nodes.map((n) => `${n.node} ${n.size} pages, C ${n.majority}, P ${pct(n.precision)}`).join('; ')})`,
  ];
  return `${lines.join('\n')}\n`;
}
