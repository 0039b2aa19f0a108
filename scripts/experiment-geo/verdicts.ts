/**
 * The geo experiment's verdicts: the paper's findings restated as checks on the measured tables
 * (means over each configuration's repeated crawls). Each can fail; a failing one is printed as
 * failing, with the figures that decided it.
 */
import { avg, runName, type Measured, type RunGroup } from './measure.js';

/** One checked claim. */
export interface Claim {
  readonly text: string;
  readonly isTrue: boolean;
  readonly evidence: string;
}

const SINGLE = ['url', 'anchor', 'content', 'classifier', 'ip'] as const;
/** The strategies whose scores may name several cities: ip names one (the server's), so its Policy B is its Policy A. */
const SEVERAL = ['url', 'anchor', 'content', 'classifier', 'combined'] as const;

export function pct(x: number | null | undefined, digits = 1): string {
  return x === null || x === undefined ? 'n/a' : `${(100 * x).toFixed(digits)} %`;
}
export function ratio(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined ? 'n/a' : x.toFixed(digits);
}

/** URLs sent plus pages forwarded, per downloaded page: everything a node hands to another. */
export function handedPerPage(m: Measured): number {
  const c = m.metrics.communication;
  return (c.urlsPerPage ?? 0) + (c.pagesForwardedPerPage ?? 0);
}

export const coverageOf = (m: Measured): number | null => m.geo.coverage.coverage;
export const focusOf = (m: Measured): number | null => m.geo.focus.mean;
export const centralityOf = (m: Measured): number | null => m.geo.centrality.mean;
export const overlapOf = (m: Measured): number => m.metrics.overlap.overlap;

/** The verdicts on the means over each configuration's crawls. */
export function verdicts(groups: readonly RunGroup[]): Claim[] {
  const find = (strategy: string, policy: 'A' | 'B' | null): RunGroup => {
    const g = groups.find((r) => r.run.strategy === strategy && r.run.policy === policy);
    if (g === undefined) throw new Error(`no run ${strategy} ${policy ?? ''}`);
    return g;
  };
  const hash = find('url-hash', null);
  const a = (s: string): RunGroup => find(s, 'A');
  const b = (s: string): RunGroup => find(s, 'B');
  const n = (g: RunGroup, f: (m: Measured) => number | null): number => avg(g, f) ?? 0;
  const cov = (g: RunGroup): number => n(g, coverageOf);
  const focus = (g: RunGroup): number => n(g, focusOf);
  const gc = (g: RunGroup): number => n(g, centralityOf);
  const ov = (g: RunGroup): number => n(g, overlapOf);
  const handed = (g: RunGroup): number => n(g, handedPerPage);
  const list = (f: (g: RunGroup) => string, names: readonly string[]): string => names.map((s) => `${s} ${f(a(s))}`).join(', ');
  const bestSingle = SINGLE.reduce((best, s) => (cov(a(s)) > cov(a(best)) ? s : best), SINGLE[0] as string);
  const linked = (g: RunGroup): number | null => avg(g, (m) => m.ownLocality?.linked.share);
  const unlinked = (g: RunGroup): number | null => avg(g, (m) => m.ownLocality?.unlinked.share);
  const withOwn = ['url', 'content', 'classifier', 'ip', 'combined'].map(a).filter((g) => linked(g) !== null);
  const localityHolds = (g: RunGroup): boolean => (linked(g) ?? 0) > (unlinked(g) ?? 1);
  const fmtLocality = (g: RunGroup): string => `${g.run.strategy} δ ${ratio(linked(g), 4)} / δ̃ ${ratio(unlinked(g), 4)}`;
  const hashLinked = avg(hash, (m) => m.geo.locality.linked.share);
  const hashUnlinked = avg(hash, (m) => m.geo.locality.unlinked.share);
  return [
    {
      text: 'url and anchor reach more geo pages than content, and content more than url-hash (paper: 7.25 % and 7.88 % against 4.89 % and under 1 %).',
      isTrue: cov(a('url')) > cov(a('content')) && cov(a('anchor')) > cov(a('content')) && cov(a('content')) > cov(hash),
      evidence: `geo coverage, Policy A: ${list((g) => pct(cov(g)), ['url', 'anchor', 'content'])}; url-hash ${pct(cov(hash))}`,
    },
    {
      text: 'The best geo strategies reach at least 3 times as many geo pages as url-hash (paper: a factor of 3 to 8).',
      isTrue: Math.max(cov(a('url')), cov(a('anchor'))) >= 3 * cov(hash),
      evidence: `url ${(cov(a('url')) / cov(hash)).toFixed(2)} ×, anchor ${(cov(a('anchor')) / cov(hash)).toFixed(2)} × url-hash's ${pct(cov(hash))}`,
    },
    {
      text: 'url and anchor keep more than 85 % of each geo node’s geo pages in its own cities (paper: above 85 % on average).',
      isTrue: focus(a('url')) > 0.85 && focus(a('anchor')) > 0.85,
      evidence: `mean geo focus, Policy A: ${list((g) => pct(focus(g)), ['url', 'anchor'])}`,
    },
    {
      text: 'content focuses better than classifier and ip (paper: 75.2 % against 22.7 % and 51.7 %).',
      isTrue: focus(a('content')) > focus(a('classifier')) && focus(a('content')) > focus(a('ip')),
      evidence: `mean geo focus, Policy A: ${list((g) => pct(focus(g)), ['content', 'classifier', 'ip'])}`,
    },
    {
      text: 'url, anchor and content focus better than nodes that ignore geography (url-hash nodes scored against the same cities).',
      isTrue: ['url', 'anchor', 'content'].every((s) => focus(a(s)) > focus(hash)),
      evidence: `${list((g) => pct(focus(g)), ['url', 'anchor', 'content'])}; url-hash ${pct(focus(hash))}`,
    },
    {
      text: 'Geo centrality ranks url and anchor above content, and content above url-hash (paper: 0.1754, 0.1519, 0.0994, 0.0222).',
      isTrue: gc(a('url')) > gc(a('content')) && gc(a('anchor')) > gc(a('content')) && gc(a('content')) > gc(hash),
      evidence: `mean GC_2: ${list((g) => ratio(gc(g), 4), ['url', 'anchor', 'content'])}; url-hash ${ratio(gc(hash), 4)}`,
    },
    {
      text: 'url partitioning, like url-hash, fetches no page twice (paper: no overlap for either).',
      isTrue: ov(a('url')) === 0 && ov(hash) === 0,
      evidence: `overlap url A ${ratio(ov(a('url')), 4)}, url-hash ${ratio(ov(hash), 4)}`,
    },
    {
      text:
        'Policy B hands more to other nodes than Policy A, for every strategy that can score several cities (the paper’s cost argument for A; ' +
        'ip scores one city per server, so its B places exactly as its A).',
      isTrue: SEVERAL.every((s) => handed(b(s)) > handed(a(s))),
      evidence: `URLs per page, A → B: ${SEVERAL.map((s) => `${s} ${ratio(handed(a(s)), 2)} → ${ratio(handed(b(s)), 2)}`).join(', ')}; ip, whose policies place alike (the gap between two crawls), ${ratio(handed(a('ip')), 2)} → ${ratio(handed(b('ip')), 2)}`,
    },
    {
      text: 'Policy B fetches more pages twice than Policy A, for every strategy that can score several cities.',
      isTrue: SEVERAL.every((s) => ov(b(s)) > ov(a(s))),
      evidence: `overlap, A → B: ${SEVERAL.map((s) => `${s} ${ratio(ov(a(s)), 4)} → ${ratio(ov(b(s)), 4)}`).join(', ')}; ip, whose policies place alike, ${ratio(ov(a('ip')), 4)} → ${ratio(ov(b('ip')), 4)}`,
    },
    {
      text: 'Geographic locality: linked pages share a city more often than unlinked ones (δ > δ̃), under every strategy that names a page’s city.',
      isTrue: withOwn.length > 0 && withOwn.every(localityHolds),
      evidence: withOwn.map(fmtLocality).join('; '),
    },
    {
      text: 'Geographic locality holds with the true cities too (δ > δ̃ in the url-hash crawl, which does not steer by city).',
      isTrue: (hashLinked ?? 0) > (hashUnlinked ?? 1),
      evidence: `δ ${ratio(hashLinked, 4)}, δ̃ ${ratio(hashUnlinked, 4)}`,
    },
    {
      text: 'combined (anchor → url → content) reaches at least as many geo pages as the best single strategy.',
      isTrue: cov(a('combined')) >= cov(a(bestSingle)),
      evidence: `combined A ${pct(cov(a('combined')))}; best single: ${runName(a(bestSingle).run)} ${pct(cov(a(bestSingle)))}`,
    },
  ];
}
