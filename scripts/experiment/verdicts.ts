/**
 * Verdicts on the paper's statements, computed from the PST tables, and the explanations chosen by
 * what the data shows. At each of the report's points (10, 20, 40, 60, 80 % of the crawl) a crawler
 * is *ahead* of another when its PST is higher by at least {@link MIN_MARGIN} point; it *beats* the
 * other when it is ahead at more points than it is behind and its mean PST over the points is higher.
 * (Points where both have found every hot page, or nearly, decide nothing.) A statement made of
 * several claims holds when every claim holds, holds partly when some do, and does not hold when
 * none does.
 */
import type { Evaluation, Row } from './evaluate.js';
import { REPORT_AT, rowOf } from './evaluate.js';
import type { GraphFacts, HotFacts, TopicFacts } from './graph-facts.js';

/** Smallest lead in PST at a point, in percentage points, that counts as being ahead there. */
export const MIN_MARGIN = 1;

export type VerdictWord = 'holds' | 'holds partly' | 'does not hold';

/** One claim of a statement with the numbers that decide it. */
export interface Claim {
  readonly text: string;
  readonly isTrue: boolean;
  readonly evidence: string;
}

/** A statement's verdict, its claims and the explanations the data calls for. */
export interface Verdict {
  readonly word: VerdictWord;
  readonly claims: readonly Claim[];
  readonly notes: readonly string[];
}

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const pct = (share: number): string => `${(100 * share).toFixed(1)} %`;
const signed = (n: number): string => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(1)}`;

/** Whether `a` beats `b` (see the file comment), with the evidence in words. */
export function beats(a: Row, b: Row): { readonly isTrue: boolean; readonly lead: number; readonly evidence: string } {
  const lead = a.mean - b.mean;
  const ahead = a.at.filter((v, i) => v - (b.at[i] as number) >= MIN_MARGIN).length;
  const behind = a.at.filter((v, i) => (b.at[i] as number) - v >= MIN_MARGIN).length;
  return {
    isTrue: ahead > behind && lead > 0,
    lead,
    evidence: `mean PST ${f1(a.mean)} vs ${f1(b.mean)}, ${signed(lead)} points; ahead at ${ahead} and behind at ${behind} of ${REPORT_AT.length} points`,
  };
}

/** A statement's verdict from its claims: holds when all do, holds partly when some do, does not hold when none does. */
export function verdictOf(claims: readonly Claim[], notes: readonly string[]): Verdict {
  const n = claims.filter((c) => c.isTrue).length;
  return { word: n === claims.length ? 'holds' : n === 0 ? 'does not hold' : 'holds partly', claims, notes };
}

function claim(text: string, result: { readonly isTrue: boolean; readonly evidence: string }): Claim {
  return { text, isTrue: result.isTrue, evidence: result.evidence };
}

/** The labels the experiments give the crawlers. */
export interface Labels {
  readonly bfs: string;
  readonly ib: string;
  readonly ir: string;
  readonly random: string;
}

/** Why a backlink statement came out as it did on this graph. */
function backlinkNotes(e: Evaluation, l: Labels, graph: GraphFacts, hot: HotFacts, mix: readonly SiteShare[]): string[] {
  const notes: string[] = [];
  const ir = rowOf(e, l.ir);
  const ib = rowOf(e, l.ib);
  const bfs = rowOf(e, l.bfs);
  if (!beats(ir, ib).isTrue) {
    notes.push(
      hot.sameHostInShare >= 0.6
        ? `IB′ is not misled here as it was in the paper: ${pct(hot.sameHostInShare)} of the hot pages' in-links come from pages of their own site ` +
            `(navigation that every page of a site repeats), so the first pages fetched of a site already show which of its pages collect links.`
        : `IB′ is not misled here as it was in the paper: the hot pages draw their links from many hosts (${pct(1 - hot.sameHostInShare)} of their in-links cross hosts), ` +
            `so early backlink counts already rank the globally popular pages first, and the clusters of the paper's Figure 3 are too weak to pull the crawl aside.`,
    );
  } else {
    notes.push(
      `As in the paper, IR′ beats IB′ by ${f1(ir.mean - ib.mean)} points of mean PST: a link from an important page counts for more than one from a page nobody links to.`,
    );
  }
  if (!beats(ir, bfs).isTrue) {
    notes.push(
      hot.nearShare > graph.nearShare + 0.1
        ? `Breadth-first keeps up because the hot pages sit near the seeds: ${near(graph, hot)}, and breadth-first fetches those first.`
        : `Breadth-first keeps up although the hot pages are not especially near the seeds (${near(graph, hot)}): ` +
            `a page with many in-links is found early by any crawl, since many fetched pages point at it.`,
    );
  }
  const site = siteNote(graph, hot, mix);
  if (site !== null) notes.push(site);
  return notes;
}

/** A crawler's share of the first part of its visits that went to the graph's largest host. */
export interface SiteShare {
  readonly label: string;
  readonly share: number;
}

/** The first part of a crawl whose visits are counted by host. */
export const MIX_UP_TO = 0.2;

/** Whether the graph's sites share no links: all but a thousandth of the links between T pages stay within a host. */
export function areSitesApart(graph: Pick<GraphFacts, 'sameHostShare'>): boolean {
  return graph.sameHostShare >= 0.999;
}

/**
 * On a graph of a few sites: how the crawlers split their first visits between the largest site and
 * the others, against where the hot pages are; null on a graph of many hosts.
 */
function siteNote(graph: GraphFacts, hot: HotFacts, mix: readonly SiteShare[]): string | null {
  if (graph.hosts > 10 || graph.hosts < 2 || mix.length === 0) return null;
  const apart = areSitesApart(graph) ? `The ${graph.hosts} sites share no links. ` : '';
  const shares = mix.map((m) => `${m.label} ${pct(m.share)}`).join(', ');
  const late = mix.filter((m) => m.share < hot.largestHostShare / 2).map((m) => m.label);
  const early = mix.filter((m) => m.share > 2 * hot.largestHostShare && hot.largestHostShare < 0.5).map((m) => m.label);
  return (
    `${apart}The largest site holds ${pct(graph.largestHostShare)} of the pages and ${pct(hot.largestHostShare)} ` +
    `of the hot pages; its share of the first ${MIX_UP_TO * 100} % of each crawl: ${shares}.` +
    (late.length > 0
      ? ` ${capitalized(late.join(', '))} ${late.length === 1 ? 'leaves' : 'leave'} that site, and its hot ` +
        `pages, for later, which shows as a flat stretch of ${late.length === 1 ? 'its curve' : 'their curves'}.`
      : '') +
    (early.length > 0
      ? ` ${capitalized(early.join(', '))} ${early.length === 1 ? 'spends' : 'spend'} the start of the crawl there while the other sites' hot pages wait.`
      : '')
  );
}

/** `text` with its first letter in upper case (a sentence that starts with a label). */
function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Where the hot pages lie compared with all pages, in words. */
function near(graph: GraphFacts, hot: HotFacts): string {
  return (
    `${pct(hot.nearShare)} of them lie within ${graph.nearDepth} links of a seed, where ` +
    `${pct(graph.nearShare)} of all pages do (mean depth ${f1(hot.meanDepth)} against ${f1(graph.meanDepth)})`
  );
}

/** Experiment 1 (seed 004 Graph 2): I = IB, G = 100. */
export function experiment1(e: Evaluation, l: Labels, graph: GraphFacts, hot: HotFacts, mix: readonly SiteShare[]): Verdict {
  const ir = rowOf(e, l.ir);
  const ib = rowOf(e, l.ib);
  const bfs = rowOf(e, l.bfs);
  const random = rowOf(e, l.random);
  const overRandom = [bfs, ib, ir].map((r) => ({ r, b: beats(r, random) }));
  return verdictOf(
    [
      claim('IR′ beats IB′', beats(ir, ib)),
      claim('IR′ beats breadth-first', beats(ir, bfs)),
      claim('breadth-first, IB′ and IR′ each beat the random crawler', {
        isTrue: overRandom.every((o) => o.b.isTrue),
        evidence: overRandom.map((o) => `${o.r.label}: ${signed(o.b.lead)} points`).join('; '),
      }),
    ],
    backlinkNotes(e, l, graph, hot, mix),
  );
}

/** IR′'s lead in mean PST over the better of IB′ and breadth-first. */
export function irLead(e: Evaluation, l: Labels): number {
  return rowOf(e, l.ir).mean - Math.max(rowOf(e, l.ib).mean, rowOf(e, l.bfs).mean);
}

/** Experiment 2 (seed 004 Graph 4): I = IR; IR′ wins by more than with I = IB. */
export function experiment2(
  e2: Evaluation,
  e1: Evaluation,
  l: Labels,
  graph: GraphFacts,
  hot: HotFacts,
  mix: readonly SiteShare[],
): Verdict {
  const ir = rowOf(e2, l.ir);
  const lead2 = irLead(e2, l);
  const lead1 = irLead(e1, l);
  return verdictOf(
    [
      claim('IR′ beats IB′', beats(ir, rowOf(e2, l.ib))),
      claim('IR′ beats breadth-first', beats(ir, rowOf(e2, l.bfs))),
      claim('IR′ leads by more than with I = IB', {
        isTrue: lead2 > lead1 + MIN_MARGIN,
        evidence: `IR′ minus the better of IB′ and breadth-first: ${signed(lead2)} points of mean PST here, ${signed(lead1)} in experiment 1`,
      }),
    ],
    backlinkNotes(e2, l, graph, hot, mix),
  );
}

/** The labels of experiment 3's six crawlers. */
export interface HotLabels {
  readonly plain: Labels;
  readonly modified: Labels;
}

/** Breadth-first's lead in mean PST over the better of IB′ and IR′. */
function bfsGap(e: Evaluation, l: Labels): number {
  return rowOf(e, l.bfs).mean - Math.max(rowOf(e, l.ib).mean, rowOf(e, l.ir).mean);
}

/** Experiment 3 (seed 004 Graphs 7 and 8): I = IS for the topic word, plain and modified hot queue. */
export function experiment3(
  e: Evaluation,
  l: HotLabels,
  word: string,
  topic: TopicFacts,
  graph: GraphFacts,
  hot: HotFacts,
  mix: readonly SiteShare[],
): Verdict {
  const p = l.plain;
  const m = l.modified;
  const gapPlain = bfsGap(e, p);
  const gapModified = bfsGap(e, m);
  const improved = (
    [
      ['bfs', 'breadth-first'],
      ['ib', 'IB′'],
      ['ir', 'IR′'],
    ] as const
  ).map(([k, name]) => ({ name, b: beats(rowOf(e, m[k]), rowOf(e, p[k])) }));
  const notes: string[] = [];
  notes.push(
    `${pct(topic.namedShare)} of the hot pages are named by an anchor of a link to them or by their URL, ` +
      `the plain hot queue's only cue; hot pages link to hot pages in ${pct(topic.hotToHotShare)} of ` +
      `their links against ${pct(topic.coldToHotShare)} for other pages, and ${pct(topic.nearHotShare)} ` +
      `of the hot pages are within 2 links of another hot page, which is what the modified queue uses.`,
  );
  if (gapPlain < MIN_MARGIN) {
    notes.push(
      topic.namedShare >= 0.5
        ? `With the plain hot queue breadth-first has no lead to lose: most hot pages are named by their anchors or ` +
            `URLs, so every crawler takes them from the hot queue as soon as it sees a link, whatever its base ordering.`
        : `With the plain hot queue breadth-first has no lead: in the paper its FIFO order followed a topic page's children soon after the ` +
            `page itself, but the base orderings here reach the hot pages about as fast, so the plain queue leaves little to separate them.`,
    );
  }
  if (gapPlain >= MIN_MARGIN && gapModified > gapPlain + MIN_MARGIN) {
    notes.push(
      `The modified hot queue widens the gap instead: breadth-first gains ${f1(improved[0]?.b.lead ?? 0)} points of mean PST, IB′ ${f1(improved[1]?.b.lead ?? 0)} ` +
        `and IR′ ${f1(improved[2]?.b.lead ?? 0)}. The neighbourhood of a hot page helps a crawler only once it has found a hot page.`,
    );
  }
  const site = siteNote(graph, hot, mix);
  if (site !== null) notes.push(site);
  if (topic.hotToHotShare > 2 * topic.coldToHotShare) {
    notes.push(
      `Topic pages cluster (a hot page's link is ${f1(topic.hotToHotShare / Math.max(1e-9, topic.coldToHotShare))} ` +
        `times as likely to lead to a hot page as another page's link), ` +
        `so treating the neighbourhood of a hot page as hot pays${word === 'computer' ? ', as it did in the paper' : ` for "${word}" as it did for "computer" in the paper`}.`,
    );
  }
  return verdictOf(
    [
      claim(`with the plain hot queue, breadth-first beats IB′`, beats(rowOf(e, p.bfs), rowOf(e, p.ib))),
      claim(`with the plain hot queue, breadth-first beats IR′`, beats(rowOf(e, p.bfs), rowOf(e, p.ir))),
      claim('the modified hot queue closes the gap', {
        isTrue: gapPlain >= MIN_MARGIN && gapModified < gapPlain,
        evidence:
          `breadth-first minus the better of IB′ and IR′: ${signed(gapPlain)} points with the plain queue, ${signed(gapModified)} with the modified one` +
          `${gapPlain < MIN_MARGIN ? ' (no gap to close)' : ''}`,
      }),
      claim('every crawler improves with the modified hot queue', {
        isTrue: improved.every((i) => i.b.isTrue),
        evidence: improved.map((i) => `${i.name}: ${signed(i.b.lead)} points`).join('; '),
      }),
    ],
    notes,
  );
}

/** Experiment 4 (seed 004 Graph 9): hot = topic and ≥ 5 backlinks, modified hot queue. */
export function experiment4(
  e: Evaluation,
  l: Labels,
  graph: GraphFacts,
  hot: HotFacts,
  mix: readonly SiteShare[],
  at: number,
  above: number,
): Verdict {
  const i = REPORT_AT.indexOf(at as (typeof REPORT_AT)[number]);
  const ir = rowOf(e, l.ir).at[i] as number;
  const bfs = rowOf(e, l.bfs).at[i] as number;
  const ib = rowOf(e, l.ib).at[i] as number;
  const notes: string[] = [];
  const where = `Of the ${hot.hotPages} hot pages, ${near(graph, hot)}.`;
  if (ir <= above || bfs <= above) {
    notes.push(
      hot.nearShare > graph.nearShare
        ? `${where} They are nearer the seeds than most pages, yet not near enough for both crawlers to have most of them by ${at * 100} % of the crawl.`
        : `${where} They are no nearer the seeds than other pages, so the crawl must cover much of the graph before it has them.`,
    );
  } else {
    notes.push(
      `${where} Pages on the topic that several pages link to are reached early: many fetched pages ` +
        `point at them, and the modified hot queue pulls the neighbourhood of every topic page forward.`,
    );
  }
  const site = siteNote(graph, hot, mix);
  if (site !== null) notes.push(site);
  notes.push(`IB′ with the modified hot queue has PST ${f1(ib)} at ${at * 100} %, for comparison.`);
  return verdictOf(
    [
      {
        text: `IR′ has more than ${above} % of the hot pages after ${at * 100} % of the crawl`,
        isTrue: ir > above,
        evidence: `PST ${f1(ir)} at ${at * 100} %`,
      },
      {
        text: `breadth-first has more than ${above} % of the hot pages after ${at * 100} % of the crawl`,
        isTrue: bfs > above,
        evidence: `PST ${f1(bfs)} at ${at * 100} %`,
      },
    ],
    notes,
  );
}

/** Per crawler, the share of the first part of its visits that went to the largest host, without and with politeness. */
export interface HostMix {
  readonly label: string;
  readonly free: number;
  readonly polite: number;
}

/** What shoal's default politeness does to experiment 1, in sentences with the numbers. */
export function politenessNotes(
  free: Evaluation,
  polite: Evaluation,
  l: Labels,
  graph: GraphFacts,
  hot: HotFacts,
  mix: readonly HostMix[],
): string[] {
  const crawlers = [l.bfs, l.ib, l.ir];
  const ranking = (e: Evaluation): string =>
    [...crawlers]
      .sort((a, b) => rowOf(e, b).mean - rowOf(e, a).mean)
      .map((label) => `${label} ${f1(rowOf(e, label).mean)}`)
      .join(' > ');
  const spread = (e: Evaluation): number => {
    const means = crawlers.map((label) => rowOf(e, label).mean);
    return Math.max(...means) - Math.min(...means);
  };
  const changes = crawlers.map((label) => rowOf(polite, label).mean - rowOf(free, label).mean);
  const notes = [
    `Mean PST over the report's points without politeness: ${ranking(free)}; with shoal's default politeness: ${ranking(polite)}.`,
    `Change per crawler: ${crawlers.map((label, i) => `${label} ${signed(changes[i] as number)}`).join(', ')} points.`,
  ];
  const before = spread(free);
  const after = spread(polite);
  notes.push(
    after < before - MIN_MARGIN
      ? `Politeness narrows the differences between orderings: the best and worst of the three are ${f1(after)} points apart instead of ${f1(before)}.`
      : after > before + MIN_MARGIN
        ? `Politeness widens the differences between orderings: the best and worst of the three are ${f1(after)} points apart instead of ${f1(before)}.`
        : `Politeness leaves the spread between orderings about as it was (${f1(after)} points instead of ${f1(before)}).`,
  );
  const shares = mix.map((m) => `${m.label} ${pct(m.free)} → ${pct(m.polite)}`).join(', ');
  notes.push(
    `Share of the first ${MIX_UP_TO * 100} % of the visits that went to the largest host (${pct(graph.largestHostShare)} of the pages), without → with politeness: ${shares}.`,
  );
  const isBetter = changes.every((c) => c > MIN_MARGIN);
  const isWorse = changes.every((c) => c < -MIN_MARGIN);
  const why =
    graph.hosts <= 10
      ? `With ${graph.hosts} hosts and one connection per host, each waiting at least the minimum delay between two fetches, the ` +
        `crawl takes pages from the sites in turn: the ordering decides which page of a site comes next, no longer which site.`
      : `With ${graph.hosts.toLocaleString('en-US')} hosts, one connection per host and a delay between ` +
        `two fetches of a host, the ${hot.hotPages.toLocaleString('en-US')} hot pages spread over ` +
        `${hot.hosts.toLocaleString('en-US')} hosts are taken as the fetch slots move from host to host: the ` +
        `ordering decides which page of a ready host comes next, and a host's best URL waits for its turn.`;
  notes.push(
    isBetter
      ? `${why} Here that helps every crawler: hosts are served in turn, so the hot pages of every host come up early instead of waiting until the crawl gets round to their host.`
      : isWorse
        ? `${why} Here that costs every crawler: the pages the ordering wants first wait for their hosts' turns.`
        : `${why} The effect differs by crawler.`,
  );
  return notes;
}
