/** The geographic metrics of a crawl (`src/eval/geo-metrics.ts`) as lines in the style of the collaboration table. */
import type { GeoMetrics } from '../eval/geo-metrics.js';
import { formatRatio } from '../eval/collab-table.js';

export function formatGeoLines(g: GeoMetrics): string {
  const pct = (x: number | null): string => (x === null ? 'n/a' : `${(100 * x).toFixed(2)}%`);
  const c = g.coverage;
  const geoNodes = g.focus.nodes.filter((n) => n.cities > 0);
  const l = g.locality;
  const lines = [
    `geo coverage            ${pct(c.coverage)}  (${c.geoDownloads} of ${c.downloads} downloads hold an address of a target city)`,
    `geo focus               ${pct(g.focus.mean)}  mean of ${geoNodes.length} geo nodes (pooled ${pct(g.focus.pooled)}; ` +
      `${geoNodes.map((n) => `${n.node} ${pct(n.focus)}`).join(', ')})`,
    `unique entities         ${formatRatio(g.uniqueEntities.ratio)}  (${g.uniqueEntities.unique} distinct of ${g.uniqueEntities.entities} addresses)`,
    `geo centrality          ${formatRatio(g.centrality.mean)}  (mean GC_${g.centrality.k}, m = ${g.centrality.m}, over ${g.centrality.pages} pages)`,
    `geographic locality     δ ${formatRatio(l.linked.share)} (${l.linked.same} of ${l.linked.counted} linked pairs), ` +
      `δ̃ ${formatRatio(l.unlinked.share)} (${l.unlinked.same} of ${l.unlinked.counted} unlinked pairs${l.unlinked.isExact ? '' : ', sampled'})`,
  ];
  return `${lines.join('\n')}\n`;
}
