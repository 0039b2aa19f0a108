/**
 * The sections of the crawl report page for the partition families' metrics, as `shoal eval`
 * computes them: topic (locality, classifier accuracy, Kendall τ of each node's subcollection
 * against hash groups of the same pages), geographic (coverage, focus, unique entities, centrality,
 * locality δ and δ̃) and community (cohesion, precision, recall). A section appears when its
 * metrics are in the report.
 */
import { formatCount, formatRatio } from '../eval/collab-table.js';
import type { CommunityEval } from '../eval/community-metrics.js';
import type { GeoMetrics } from '../eval/geo-metrics.js';
import type { TopicEval } from '../eval/topic-metrics.js';
import type { CrawlReport } from './crawl-report.js';
import { barsOrNote, dec, htmlTable, para, pct, type Cell, type PageSection } from './html.js';

const int = formatCount;

function topicSection(t: TopicEval): PageSection {
  const categories = Object.entries(t.perCategory).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const groups = [...t.taus.map((x) => x.group), ...t.hashTaus.map((x) => x.group)];
  const tau = (x: { readonly tau: number | null }): number => x.tau ?? NaN;
  const locality: Cell[][] = [
    [
      'topic locality (linked pairs in one category)',
      formatRatio(t.locality.locality),
      `${int(t.locality.samePairs)} of ${int(t.locality.pairs)} linked pairs`,
    ],
    ['the same pairs by their true topics', formatRatio(t.locality.trueLocality), t.locality.trueLocality === null ? 'no truth' : ''],
    [
      'classifier accuracy',
      pct(t.accuracy?.accuracy ?? null),
      t.accuracy === null ? 'no truth' : `${int(t.accuracy.right)} of ${int(t.accuracy.pairs)} pages`,
    ],
    ['macro F1', pct(t.accuracy?.macroF1 ?? null), ''],
    ['Kendall τ, nodes (mean, weighted by pages)', formatRatio(t.meanTau), `${t.taus.length} subcollections`],
    ['Kendall τ, hash groups (mean)', formatRatio(t.meanHashTau), `the same pages in ${t.hashTaus.length} groups by content hash`],
  ];
  const perCategory =
    t.accuracy === null
      ? ''
      : htmlTable(
          ['category', 'true pages', 'predicted', 'precision', 'recall', 'F1'],
          t.accuracy.perCategory.map((c) => [c.category, int(c.support), int(c.predicted), pct(c.precision), pct(c.recall), pct(c.f1)]),
        );
  return {
    id: 'topic',
    title: 'Topic metrics',
    body: [
      barsOrNote(
        'topic-categories',
        `Stored pages per category the crawl gave them (pages.jsonl); ${int(t.uncategorised)} more without one.`,
        {
          title: 'Pages per category',
          xLabel: 'category',
          yLabel: 'pages',
          categories: categories.map(([c]) => c),
          series: [{ name: 'pages', values: categories.map(([, n]) => n) }],
        },
        'topic-categories',
      ),
      barsOrNote(
        'topic-tau',
        'Kendall τ-b of PageRank on each subcollection’s own links against the global PageRank of the same pages: the nodes’ subcollections, ' +
          'then the same pages dealt to as many groups by a hash of their content (X4’s comparison).',
        {
          title: 'Kendall τ per subcollection',
          xLabel: 'subcollection',
          yLabel: 'τ-b',
          categories: groups,
          series: [
            { name: 'node', values: groups.map((_, i) => (i < t.taus.length ? tau(t.taus[i] as { tau: number | null }) : NaN)) },
            {
              name: 'hash group',
              values: groups.map((_, i) => (i >= t.taus.length ? tau(t.hashTaus[i - t.taus.length] as { tau: number | null }) : NaN)),
            },
          ],
          yDomain: [-1, 1],
          format: (v) => dec(v, 2),
        },
        'topic-tau',
      ),
      htmlTable(['metric', 'value', 'from'], locality, 'notes'),
      perCategory,
      htmlTable(
        ['subcollection', 'pages', 'links inside', 'τ-b'],
        [...t.taus, ...t.hashTaus].map((x) => [x.group, int(x.pages), int(x.links), dec(x.tau, 3)]),
      ),
    ],
  };
}

function geoSection(g: GeoMetrics): PageSection {
  const c = g.coverage;
  const l = g.locality;
  const nodes = g.focus.nodes;
  return {
    id: 'geo',
    title: 'Geographic metrics',
    body: [
      barsOrNote(
        'geo-focus',
        'Of each geo node’s distinct downloaded pages holding an address of a target city, the share with one of its own cities; general nodes have none.',
        {
          title: 'Geo focus per node',
          xLabel: 'node',
          yLabel: 'focus (%)',
          categories: nodes.map((n) => n.node),
          series: [{ name: 'focus', values: nodes.map((n) => (n.focus === null ? NaN : 100 * n.focus)) }],
          yDomain: [0, 100],
        },
        'geo-focus',
      ),
      htmlTable(
        ['metric', 'value', 'from'],
        [
          ['geo coverage', pct(c.coverage, 2), `${int(c.geoDownloads)} of ${int(c.downloads)} downloads hold an address of a target city`],
          ['geo coverage, distinct pages', pct(c.uniqueCoverage, 2), `${int(c.uniqueGeoPages)} of ${int(c.uniquePages)}`],
          ['geo focus (mean of geo nodes)', pct(g.focus.mean, 2), `pooled ${pct(g.focus.pooled, 2)}`],
          [
            'unique-entity ratio',
            formatRatio(g.uniqueEntities.ratio),
            `${int(g.uniqueEntities.unique)} distinct of ${int(g.uniqueEntities.entities)} addresses`,
          ],
          [
            'geo centrality',
            formatRatio(g.centrality.mean),
            `mean GC_${g.centrality.k}, m = ${g.centrality.m}, over ${int(g.centrality.pages)} pages`,
          ],
          ['geographic locality δ (linked pairs)', formatRatio(l.linked.share), `${int(l.linked.same)} of ${int(l.linked.counted)} pairs`],
          [
            'δ̃ (unlinked pairs)',
            formatRatio(l.unlinked.share),
            `${int(l.unlinked.same)} of ${int(l.unlinked.counted)} pairs${l.unlinked.isExact ? '' : ', sampled'}`,
          ],
        ],
        'notes',
      ),
      htmlTable(
        ['node', 'target cities', 'pages', 'geo pages', 'own-city pages', 'focus'],
        nodes.map((n) => [n.node, int(n.cities), int(n.pages), int(n.geoPages), int(n.ownPages), pct(n.focus)]),
      ),
    ],
  };
}

function communitySection(c: CommunityEval): PageSection {
  const names = c.nodes.map((n) => n.node);
  return {
    id: 'community',
    title: 'Community metrics',
    body: [
      barsOrNote(
        'community',
        'For each node’s set S of truth pages: cohesion (edges inside S over edges touching S), and precision |S ∩ C|/|S| and recall |S ∩ C|/|C| ' +
          'against its majority community C.',
        {
          title: 'Cohesion, precision and recall per node',
          xLabel: 'node',
          yLabel: '%',
          categories: names,
          series: [
            { name: 'cohesion', values: c.nodes.map((n) => 100 * n.cohesion) },
            { name: 'precision', values: c.nodes.map((n) => 100 * n.precision) },
            { name: 'recall', values: c.nodes.map((n) => 100 * n.recall) },
          ],
          yDomain: [0, 100],
        },
        'community',
      ),
      htmlTable(
        ['node', 'pages |S|', 'majority C', 'cohesion', 'precision', 'recall'],
        [
          ...c.nodes.map((n): Cell[] => [n.node, int(n.size), String(n.majority), pct(n.cohesion), pct(n.precision), pct(n.recall)]),
          ['mean', '', `${c.mean.distinctMajorities} distinct`, pct(c.mean.cohesion), pct(c.mean.precision), pct(c.mean.recall)],
        ],
      ),
      para(`Overlap of the nodes’ sets of truth pages, (N − I)/N: ${formatRatio(c.overlap)}.`),
    ],
  };
}

/** The sections of the families whose metrics the report holds, in the order topic, geo, community. */
export function familySections(r: CrawlReport): PageSection[] {
  const sections: PageSection[] = [];
  if (r.topic !== null) sections.push(topicSection(r.topic));
  if (r.geo !== null) sections.push(geoSection(r.geo));
  else if (r.isGeoWithoutTruth)
    sections.push({
      id: 'geo',
      title: 'Geographic metrics',
      body: [para('A geo crawl: its geographic metrics need the test web’s truth (shoal report DIR --truth TRUTH).', 'note')],
    });
  if (r.community !== null) sections.push(communitySection(r.community));
  return sections;
}
