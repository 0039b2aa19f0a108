/**
 * The markdown tables of docs/experiments/geo-crawling.md, built from the measured runs (means over
 * each configuration's crawls, counts summed), with the paper's figures beside ours; render.ts puts
 * them in the document.
 */
import { DEFAULT_GEO_GROUPS } from '../../src/partition/geo/geo.js';
import { avg, runName, spread, total, type Measured, type RunGroup } from './measure.js';
import {
  PAPER_CENTRALITY,
  PAPER_COMMUNICATION,
  PAPER_COVERAGE,
  PAPER_COVERAGE_GEO_NODES,
  PAPER_DIVERSITY,
  PAPER_FOCUS,
  PAPER_LOCALITY,
  PAPER_OVERLAP,
  PAPER_UNIQUE,
} from './paper.js';
import type { TestWebGeo } from './test-web-geo.js';
import { centralityOf, coverageOf, focusOf, handedPerPage, overlapOf, pct, ratio, verdicts } from './verdicts.js';

const STRATEGIES = ['url-hash', 'url', 'anchor', 'content', 'classifier', 'ip', 'combined'] as const;
const GEO = STRATEGIES.slice(1);

export const int = (n: number): string => n.toLocaleString('en-US');
const paperPct = (x: number | undefined, digits = 2): string => (x === undefined ? '—' : `${x.toFixed(digits)} %`);
const paperNum = (x: number | undefined, digits: number): string => (x === undefined ? '—' : x.toFixed(digits));
export const share = (n: number, of: number): string => (of === 0 ? 'n/a' : pct(n / of));

/** What the document says about how the runs were made. */
export interface Setup {
  readonly pages: number;
  /** Crawls of each configuration. */
  readonly repeats: number;
  readonly nodes: number;
  readonly maxPathDepth: number;
  readonly webSeed: number;
  readonly trainSeed: number;
  readonly webPages: number;
  readonly webHosts: number;
  readonly classifier: {
    readonly documents: number;
    readonly withCity: number;
    /** Training pages with a city that the model gives their own city. */
    readonly inSampleRight: number;
    readonly categories: number;
    readonly digest: string;
  };
  readonly webGeo: TestWebGeo;
  /** Target cities of each partition (0 for the general one). */
  readonly groups: readonly number[];
  readonly totalSeconds: number;
}

function table(head: readonly string[], align: readonly ('l' | 'r')[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${align.map((a) => (a === 'l' ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** Every table of the document, the verdicts and the figures the text quotes. */
export function geoTables(groups: readonly RunGroup[], setup: Setup) {
  const get = (strategy: string, policy: 'A' | 'B' | null): RunGroup | undefined =>
    groups.find((g) => g.run.strategy === strategy && g.run.policy === policy);
  const aOf = (s: string): RunGroup => (s === 'url-hash' ? get(s, null) : get(s, 'A')) as RunGroup;
  const bOf = (s: string): RunGroup | undefined => (s === 'url-hash' ? undefined : get(s, 'B'));
  const claims = verdicts(groups);
  const held = claims.filter((c) => c.isTrue).length;
  const zoneLabels = DEFAULT_GEO_GROUPS.map((g) => g.join('+'));
  const nodeHead = setup.groups.map((n, i) => (n === 0 ? `n${i} general` : `n${i} ${zoneLabels[i] ?? ''} (${n})`));
  const geoNodes = setup.groups.filter((n) => n > 0).length;
  const nodeIndices = setup.groups.map((_, i) => i);
  const first = (g: RunGroup): Measured => g.crawls[0] as Measured;

  const overview = table(
    ['run', 'partitioner spec (as the crawl recorded it; groups and cities left out)', 'downloads', 'distinct pages', 'seconds', 'pages/s'],
    ['l', 'l', 'r', 'r', 'r', 'r'],
    groups.map((g) => {
      const downloads = avg(g, (m) => m.geo.coverage.downloads) ?? 0;
      const seconds = avg(g, (m) => m.seconds) ?? 0;
      return [
        runName(g.run),
        specText(first(g).spec),
        int(Math.round(downloads)),
        int(Math.round(avg(g, (m) => m.geo.coverage.uniquePages) ?? 0)),
        seconds.toFixed(1),
        (downloads / seconds).toFixed(0),
      ];
    }),
  );
  const load = table(
    ['run', ...nodeHead, 'max / mean'],
    ['l', ...nodeHead.map(() => 'r' as const), 'r'],
    groups.map((g) => [
      runName(g.run),
      ...nodeIndices.map((i) => int(Math.round(avg(g, (m) => m.metrics.nodes[i]?.pages) ?? 0))),
      ratio(
        avg(g, (m) => m.metrics.loadBalance.pages.maxOverMean),
        2,
      ),
    ]),
  );

  const perPolicy = (f: (m: Measured) => number | null | undefined, fmt: (x: number | null) => string) => (s: string) => {
    const b = bOf(s);
    return [fmt(avg(aOf(s), f)), b === undefined ? '—' : fmt(avg(b, f))];
  };
  const coverage = table(
    [
      'strategy',
      'Policy A: all downloads',
      'A: spread over crawls',
      'A: mean over nodes',
      'Policy B: all downloads',
      'B: mean over nodes',
      'paper: mean over nodes',
      'paper: geo nodes',
    ],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    STRATEGIES.map((s) => {
      const [a, b] = perPolicy(coverageOf, pct)(s);
      const [an, bn] = perPolicy(meanNodeCoverage, pct)(s);
      return [
        s,
        a as string,
        range(spread(aOf(s), coverageOf), pct),
        an as string,
        b as string,
        bn as string,
        paperPct(PAPER_COVERAGE[s]),
        paperPct(PAPER_COVERAGE_GEO_NODES[s]),
      ];
    }),
  );
  const coverageNodes = table(
    ['run', ...nodeHead],
    ['l', ...nodeHead.map(() => 'r' as const)],
    groups.map((g) => [
      runName(g.run),
      ...nodeIndices.map((i) => {
        const node = (m: Measured) => m.geo.focus.nodes[i];
        return share(
          total(g, (m) => node(m)?.geoPages ?? 0),
          total(g, (m) => node(m)?.pages ?? 0),
        );
      }),
    ]),
  );

  const focus = table(
    ['run', ...nodeHead.slice(0, geoNodes), 'mean', 'pooled', 'paper: mean'],
    ['l', ...nodeHead.slice(0, geoNodes).map(() => 'r' as const), 'r', 'r', 'r'],
    groups.map((g) => [
      runName(g.run),
      ...nodeIndices.slice(0, geoNodes).map((i) => {
        const own = total(g, (m) => m.geo.focus.nodes[i]?.ownPages ?? 0);
        const geo = total(g, (m) => m.geo.focus.nodes[i]?.geoPages ?? 0);
        return `${share(own, geo)} (${int(own)}/${int(geo)})`;
      }),
      pct(avg(g, focusOf)),
      pct(avg(g, (m) => m.geo.focus.pooled)),
      g.run.policy === 'B' ? '' : paperPct(PAPER_FOCUS[g.run.strategy], 1),
    ]),
  );

  const perStrategy = (
    f: (m: Measured) => number | null | undefined,
    fmt: (x: number | null) => string,
    paper: Readonly<Record<string, number>>,
    digits: number,
    extra?: (g: RunGroup) => string,
  ): string[][] =>
    STRATEGIES.map((s) => [s, ...perPolicy(f, fmt)(s), ...(extra === undefined ? [] : [extra(aOf(s))]), paperNum(paper[s], digits)]);
  const r3 = (x: number | null): string => ratio(x, 3);
  const r4 = (x: number | null): string => ratio(x, 4);
  const r2 = (x: number | null): string => ratio(x, 2);

  const unique = table(
    ['strategy', 'Policy A', 'Policy B', 'entities (A, all crawls): distinct / found', 'paper'],
    ['l', 'r', 'r', 'r', 'r'],
    perStrategy(
      (m) => m.geo.uniqueEntities.ratio,
      r3,
      PAPER_UNIQUE,
      2,
      (g) => `${int(total(g, (m) => m.geo.uniqueEntities.unique))} / ${int(total(g, (m) => m.geo.uniqueEntities.entities))}`,
    ),
  );
  const centrality = table(
    ['strategy', 'Policy A', 'Policy B', 'paper'],
    ['l', 'r', 'r', 'r'],
    perStrategy(centralityOf, r4, PAPER_CENTRALITY, 4),
  );
  const overlap = table(
    ['strategy', 'Policy A', 'Policy B', 'spread over crawls (A)', 'paper'],
    ['l', 'r', 'r', 'r', 'r'],
    perStrategy(overlapOf, r4, PAPER_OVERLAP, 4, (g) => range(spread(g, overlapOf), r4)),
  );
  const diversity = table(
    ['strategy', 'Policy A', 'Policy B', 'paper'],
    ['l', 'r', 'r', 'r'],
    perStrategy((m) => m.metrics.diversity.diversity, r4, PAPER_DIVERSITY, 4),
  );
  const urlsPerPage = (m: Measured): number | null => m.metrics.communication.urlsPerPage;
  const communication = table(
    ['strategy', 'Policy A', 'Policy B', 'spread over crawls (A)', 'paper'],
    ['l', 'r', 'r', 'r', 'r'],
    perStrategy(urlsPerPage, r2, PAPER_COMMUNICATION, 2, (g) => range(spread(g, urlsPerPage), r2)),
  );
  const pagesForwarded = groups.reduce((n, g) => n + total(g, (m) => m.metrics.communication.pagesSent), 0);

  const policies = table(
    ['strategy', 'handed on per page A → B', 'overlap A → B', 'geo coverage A → B', 'focus A → B', 'GC_2 A → B'],
    ['l', 'r', 'r', 'r', 'r', 'r'],
    GEO.map((s) => {
      const both = (f: (m: Measured) => number | null, fmt: (x: number | null) => string): string => {
        const [a, b] = perPolicy(f, fmt)(s);
        return `${a} → ${b}`;
      };
      return [s, both(handedPerPage, r2), both(overlapOf, r4), both(coverageOf, pct), both(focusOf, pct), both(centralityOf, r4)];
    }),
  );

  const combined = table(
    ['run', 'geo coverage', 'focus', 'unique entities', 'GC_2', 'overlap', 'diversity', 'handed on per page'],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ['combined', 'anchor', 'url', 'content'].map((s) => {
      const g = aOf(s);
      return [
        `${s} A`,
        pct(avg(g, coverageOf)),
        pct(avg(g, focusOf)),
        r3(avg(g, (m) => m.geo.uniqueEntities.ratio)),
        r4(avg(g, centralityOf)),
        r4(avg(g, overlapOf)),
        r4(avg(g, (m) => m.metrics.diversity.diversity)),
        r2(avg(g, handedPerPage)),
      ];
    }),
  );

  const contentFalse = aOf('content').crawls.reduce(
    (acc, m) => ({ falseCity: acc.falseCity + (m.agreement?.falseCity ?? 0), otherPages: acc.otherPages + (m.agreement?.otherPages ?? 0) }),
    { falseCity: 0, otherPages: 0 },
  );
  const localityRuns = ['url', 'content', 'classifier', 'ip', 'combined', 'anchor', 'url-hash'].map(aOf);
  const locality = table(
    [
      'run',
      'δ (own cities)',
      'δ̃ (own cities)',
      'pairs counted: linked / unlinked',
      'δ (true cities)',
      'δ̃ (true cities)',
      'paper δ',
      'paper δ̃',
    ],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    localityRuns.map((g) => {
      const hasOwn = first(g).ownLocality !== null;
      const p = PAPER_LOCALITY[g.run.strategy];
      return [
        runName(g.run),
        hasOwn ? r4(avg(g, (m) => m.ownLocality?.linked.share)) : '—',
        hasOwn ? r4(avg(g, (m) => m.ownLocality?.unlinked.share)) : '—',
        hasOwn
          ? `${int(total(g, (m) => m.ownLocality?.linked.counted ?? 0))} / ${int(total(g, (m) => m.ownLocality?.unlinked.counted ?? 0))}`
          : '—',
        r4(avg(g, (m) => m.geo.locality.linked.share)),
        r4(avg(g, (m) => m.geo.locality.unlinked.share)),
        p === undefined ? '—' : p.linked.toFixed(4),
        p === undefined ? '—' : p.unlinked.toFixed(4),
      ];
    }),
  );

  const agreement = table(
    [
      'strategy (Policy A crawls)',
      'pages with a true city',
      'given that city',
      'given none',
      'given another',
      'pages of no city',
      'given a city',
    ],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    localityRuns
      .filter((g) => first(g).agreement !== null)
      .map((g) => {
        const sum = (f: (x: NonNullable<Measured['agreement']>) => number): number =>
          total(g, (m) => (m.agreement === null ? 0 : f(m.agreement)));
        const cityPages = sum((x) => x.cityPages);
        const right = sum((x) => x.rightCity);
        const none = sum((x) => x.noCity);
        const other = sum((x) => x.otherPages);
        return [
          g.run.strategy,
          int(cityPages),
          share(right, cityPages),
          share(none, cityPages),
          share(cityPages - right - none, cityPages),
          int(other),
          share(
            sum((x) => x.falseCity),
            other,
          ),
        ];
      }),
  );

  const extractor = table(
    ['run (all its crawls)', 'pages', 'with addresses', 'true addresses', 'found', 'precision', 'recall', 'city right on hits'],
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    STRATEGIES.map((s) => {
      const g = aOf(s);
      const sum = (f: (e: Measured['extractor']) => number): number => total(g, (m) => f(m.extractor));
      const found = sum((e) => e.found);
      const expected = sum((e) => e.expected);
      const hits = sum((e) => e.hits);
      return [
        runName(g.run),
        int(sum((e) => e.pages)),
        int(sum((e) => e.geoPages)),
        int(expected),
        int(found),
        found === 0 ? 'n/a' : ratio(hits / found, 3),
        expected === 0 ? 'n/a' : ratio(hits / expected, 3),
        share(
          sum((e) => e.rightTarget),
          hits,
        ),
      ];
    }),
  );

  return {
    claims,
    held,
    zoneLabels,
    geoNodes,
    overview,
    load,
    coverage,
    coverageNodes,
    focus,
    unique,
    centrality,
    overlap,
    diversity,
    communication,
    pagesForwarded,
    policies,
    combined,
    contentFalse,
    locality,
    agreement,
    extractor,
  };
}

/** A partitioner spec in one line: its id and the parameters that tell the runs apart. */
function specText(spec: Measured['spec']): string {
  if (spec === null) return '—';
  const skip = new Set(['groups', 'general', 'cities']);
  const value = (v: unknown): string =>
    typeof v === 'number'
      ? String(Number(v.toPrecision(6)))
      : typeof v === 'string' && /^[0-9a-f]{40,}$/.test(v)
        ? v.slice(0, 16)
        : String(v);
  const params = Object.entries(spec.params)
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k}=${value(v)}`);
  return `\`${[spec.id, ...params].join(' ')}\``;
}

/** `min–max`, or the value alone when they are equal. */
function range(r: readonly [number, number] | null, fmt: (x: number | null) => string): string {
  if (r === null) return 'n/a';
  return r[0] === r[1] ? fmt(r[0]) : `${fmt(r[0])}–${fmt(r[1])}`;
}

/** Unweighted mean of the nodes' geo coverage (distinct pages), or null. */
function meanNodeCoverage(m: Measured): number | null {
  const shares = m.geo.focus.nodes.filter((n) => n.pages > 0).map((n) => n.geoPages / n.pages);
  return shares.length === 0 ? null : shares.reduce((s, x) => s + x, 0) / shares.length;
}
