/**
 * The real-graph section of `npm run experiment:community`: shoal's community crawlers and their
 * breadth-first baseline on the link graph of a real crawl, where each page's community is known
 * without looking at the links, because it is the site the page belongs to.
 *
 * The sites are three Debian documentation packages ({@link DOCS_SITES}), served as virtual hosts by
 * the test web's replay mode on loopback and crawled by shoal in-process (`docsCrawl`, the crawl that
 * `experiment:cho` uses for its graph (b)) into a temporary directory, then read as a graph with
 * communities by `docs-community-graph.ts`. The three sites hold about 3,900 HTML pages and take some
 * 15 s to crawl on loopback, so the crawl needs no page budget.
 *
 * Crawlers: {@link CRAWLERS_PER_SITE} per site, each retrieving as many pages as the smallest site
 * holds (so that any crawler could fill its capacity from one site), each from
 * {@link SEEDS_PER_CRAWLER} start pages drawn from the whole graph (random init) or from the
 * crawler's own site (one-site init). The graph is fixed; each draw picks new start pages, the same
 * for every ranking, so verdicts compare the rankings draw by draw.
 *
 * When a documentation folder is missing the section says how to install it, and its claims are
 * listed as not run rather than added to the verdicts.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Purpose, Rng } from '../../src/core/prng.js';
import { communityScores, meanCommunityScores, setOverlap } from '../../src/eval/community-metrics.js';
import { CommunityCrawler, CommunityRank } from '../../src/order/community/community-crawler.js';
import { DOCS_INSTALL, DOCS_SITES, docsCrawl, type DocsCrawlFacts, type DocsSite } from './docs-crawl.js';
import { communityRow, type DrawScores, type Row, type Stat } from './community-stats.js';
import { loadDocsCommunityGraph, type DocsCommunityGraph } from './docs-community-graph.js';

/** Crawlers started per site. */
export const CRAWLERS_PER_SITE = 2;
/** Start pages per crawler, as on the synthetic graph. */
export const SEEDS_PER_CRAWLER = 4;

/** Options of {@link realGraphSection}. */
export interface RealGraphOptions {
  /** Draws of start pages; a positive integer. */
  readonly draws: number;
  /** Receives progress lines. */
  readonly log: (line: string) => void;
}

/** A claim with the numbers that decide it: the shape of the experiment's verdict list. */
export interface RealGraphVerdict {
  readonly claim: string;
  readonly holds: boolean;
  readonly evidence: string;
}

/** The section's Markdown lines and its verdicts (none when it did not run). */
export interface RealGraphSection {
  readonly lines: readonly string[];
  readonly verdicts: readonly RealGraphVerdict[];
}

type Init = 'random' | 'one-site';
const INITS: readonly Init[] = ['random', 'one-site'];

interface Variant {
  readonly name: string;
  readonly rank: CommunityRank;
}
const BFS: Variant = { name: 'breadth-first', rank: CommunityRank.breadthFirst };
const CITING: Variant = { name: 'community (paper: rank by citing page, m_k)', rank: CommunityRank.citing };
const CANDIDATE: Variant = { name: 'candidate (shoal: rank by the queued page own m_k)', rank: CommunityRank.candidate };
const VARIANTS: readonly Variant[] = [BFS, CITING, CANDIDATE];

/** A variant's scores over the draws, each draw's, and where its crawlers settled. */
interface SiteRow extends Row {
  /** Draw i + 1's scores; every variant's draw i started from the same pages. */
  readonly draws: readonly DrawScores[];
  /** Crawlers, over all draws, whose majority community is each site. */
  readonly settledOn: readonly number[];
}

/** Start pages of every crawler in one draw; crawler c belongs to site ⌊c / CRAWLERS_PER_SITE⌋. */
function startPages(g: DocsCommunityGraph, init: Init, draw: number): number[][] {
  const rng = new Rng(draw, Purpose.seeds, init === 'random' ? 1 : 2);
  const n = g.graph.nodeCount;
  return Array.from({ length: DOCS_SITES.length * CRAWLERS_PER_SITE }, (_, c) => {
    const own = g.sitePages[Math.floor(c / CRAWLERS_PER_SITE)] as readonly number[];
    return Array.from({ length: SEEDS_PER_CRAWLER }, () => (init === 'random' ? rng.int(n) : (own[rng.int(own.length)] as number)));
  });
}

/** Share of the random-init crawlers, over `draws` draws, whose start pages lie on more than one site. */
function mixedStarts(g: DocsCommunityGraph, draws: number): number {
  let mixed = 0;
  let all = 0;
  for (let draw = 1; draw <= draws; draw++) {
    for (const seeds of startPages(g, 'random', draw)) {
      all++;
      if (new Set(seeds.map((p) => g.community[p])).size > 1) mixed++;
    }
  }
  return mixed / all;
}

/** Runs each crawler on its own to its capacity (they share nothing, so their interleaving does not matter). */
function crawl(g: DocsCommunityGraph, seeds: readonly number[], rank: CommunityRank, capacity: number): readonly number[] {
  const { offsets, targets } = g.graph;
  const crawler = new CommunityCrawler(seeds, { capacity, rank });
  for (let page = crawler.next(); page !== null; page = crawler.next()) {
    crawler.retrieved(page, targets.subarray(offsets[page], offsets[page + 1]));
  }
  return crawler.retrievedPages();
}

function measure(g: DocsCommunityGraph, variant: Variant, init: Init, draws: number, capacity: number): SiteRow {
  const settledOn = DOCS_SITES.map(() => 0);
  const per = Array.from({ length: draws }, (_, i) => {
    const sets = startPages(g, init, i + 1).map((seeds) => crawl(g, seeds, variant.rank, capacity));
    const scores = sets.map((s) => communityScores(g.graph, g.community, s));
    for (const s of scores) if (s.majority >= 0) settledOn[s.majority] = (settledOn[s.majority] as number) + 1;
    return { mean: meanCommunityScores(scores), overlap: setOverlap(sets) };
  });
  return { ...communityRow(per), draws: per, settledOn };
}

/** The claims of the section, also listed when it does not run. */
const CLAIM = {
  paper:
    "Real graph, random init: community crawlers beat breadth-first on cohesion, precision and recall in every draw (the paper's finding, on sites instead of rings).",
  candidate: "Real graph, random init: ranking by the queued page's own membership beats breadth-first on precision in every draw.",
  aboveLargest:
    "Real graph, random init: both community rankings reach a precision above the largest site's share of the pages, which a crawler blind to sites would get.",
  oneSite: 'Real graph, one-site init: both community rankings retrieve more cohesive sets than breadth-first in every draw.',
  candidateVsCiting:
    "Real graph, random init: ranking by the queued page's own membership beats the paper's ranking on precision and cohesion in every draw.",
} as const;

const HEADING = '## A real graph: three documentation sites';
const pct = (share: number): string => `${(100 * share).toFixed(1)} %`;
const pm = (s: Stat): string => `${(s.mean * 100).toFixed(1)} ± ${(s.sd * 100).toFixed(1)}`;
const count = (n: number): string => n.toLocaleString('en-US');

/** The section when it cannot run: why (Markdown lines), and its claims as not run. */
function notRun(why: readonly string[]): RealGraphSection {
  const lines = [HEADING, '', ...why, '', 'Claims not run:', '', ...Object.values(CLAIM).map((c) => `- **not run**: ${c}`), ''];
  return { lines, verdicts: [] };
}

/** Why the section cannot run when documentation folders are missing, and how to install them. */
function missingFolders(missing: readonly DocsSite[]): string[] {
  return [
    'Not run: the documentation folders it crawls are missing on this machine:',
    '',
    ...missing.map((s) => `- \`${s.root}\` (Debian package ${s.debianPackage})`),
    '',
    'Install them as root, then run the experiment again:',
    '',
    '```sh',
    DOCS_INSTALL,
    '```',
  ];
}

/**
 * Crawls the documentation sites, runs the crawlers on the crawl's graph and returns the section;
 * see the file comment. A missing folder gives a section that says so (no crawl, no verdicts).
 */
export async function realGraphSection(options: RealGraphOptions): Promise<RealGraphSection> {
  const { draws, log } = options;
  if (!Number.isInteger(draws) || draws < 1) throw new RangeError(`draws: a positive integer, got ${draws}`);
  const missing = DOCS_SITES.filter((s) => !existsSync(s.root));
  if (missing.length > 0) {
    log(`real graph: not run, missing ${missing.map((s) => s.root).join(', ')}`);
    return notRun(missingFolders(missing));
  }
  const tmp = mkdtempSync(join(tmpdir(), 'shoal-community-real-'));
  try {
    const dir = join(tmp, 'crawl');
    log(`real graph: crawling the documentation into ${dir}`);
    const { facts } = await docsCrawl(dir, log);
    const g = await loadDocsCommunityGraph(dir);
    const empty = DOCS_SITES.filter((_, i) => g.sitePages[i]?.length === 0).map((s) => s.host);
    if (empty.length > 0) {
      log(`real graph: not run, the crawl fetched no page of ${empty.join(', ')}`);
      return notRun([`Not run: the crawl fetched no HTML page of ${empty.join(', ')}.`]);
    }
    const capacity = Math.min(...g.sitePages.map((p) => p.length));
    const rows = new Map<string, SiteRow>();
    for (const init of INITS) {
      for (const v of VARIANTS) {
        rows.set(`${init}|${v.name}`, measure(g, v, init, draws, capacity));
        log(`real graph: ${init} init, ${v.name}`);
      }
    }
    const get = (init: Init, v: Variant): SiteRow => rows.get(`${init}|${v.name}`) as SiteRow;
    return { lines: render(g, facts, capacity, draws, get), verdicts: verdictsOf(g, get) };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Share of the graph's pages on its largest site. */
function largestShare(g: DocsCommunityGraph): number {
  return Math.max(...g.sitePages.map((p) => p.length)) / g.graph.nodeCount;
}

function render(
  g: DocsCommunityGraph,
  facts: DocsCrawlFacts,
  capacity: number,
  draws: number,
  get: (init: Init, v: Variant) => SiteRow,
): string[] {
  const n = g.graph.nodeCount;
  const links = g.siteLinks.reduce((a, s) => a + s.all, 0);
  const crossing = g.siteLinks.reduce((a, s) => a + s.crossing, 0);
  const outcomes = Object.entries(facts.outcomes)
    .map(([k, v]) => `${k} ${count(v)}`)
    .join(', ');
  const lines = [HEADING, ''];
  lines.push(
    'Here the communities are not drawn by a rule: each is one documentation site, known from the host that serves',
    "the page. The three Debian packages below are served as virtual hosts by the test web's replay mode on",
    `loopback and crawled by shoal in-process, breadth-first with no delay and kept to the seeds' hosts: ${count(facts.urls)}`,
    `responses in ${(facts.elapsedMs / 1000).toFixed(1)} s (${outcomes}). The crawl directory is read with`,
    "`loadSimGraph(dir, 'crawl')`, as `shoal simulate --graph` reads it, and cut to the pages fetched as HTML",
    '(a link to a redirect leads to its target); each page keeps its distinct links, self-links dropped',
    `(${count(links)} of the ${count(g.parsedLinks)} links the crawl parsed from these pages). The code is`,
    '`scripts/experiment/community-real-graph.ts`.',
    '',
    '| site | package | pages | links | links per page | links leaving the site |',
    '|---|---|---:|---:|---:|---:|',
  );
  DOCS_SITES.forEach((s, i) => {
    const pages = (g.sitePages[i] as readonly number[]).length;
    const l = g.siteLinks[i] as { all: number; crossing: number };
    lines.push(
      `| ${s.host} | ${s.debianPackage} | ${count(pages)} | ${count(l.all)} | ${(l.all / Math.max(1, pages)).toFixed(1)} | ${count(l.crossing)} |`,
    );
  });
  lines.push(`| all | | ${count(n)} | ${count(links)} | ${(links / Math.max(1, n)).toFixed(1)} | ${count(crossing)} |`, '');
  lines.push(
    `${pct(crossing / Math.max(1, links))} of the links leave their site; the largest site holds ${pct(largestShare(g))} of the pages.`,
    '',
    `${DOCS_SITES.length * CRAWLERS_PER_SITE} crawlers (${CRAWLERS_PER_SITE} per site) each retrieve ${count(capacity)} pages, as many as the smallest`,
    `site holds, from ${SEEDS_PER_CRAWLER} start pages: random pages of the whole graph (random init) or of the crawler's`,
    `own site (one-site init). The graph is the same in every draw; the start pages are new in each of the ${draws}`,
    'draws. Figures are the mean ± standard deviation over draws of the mean over crawlers, in %. In a draw every',
    'ranking starts from the same pages, so the verdicts compare draw by draw: a ranking beats another on a score',
    'when it scores higher in every draw.',
    '',
  );
  if (crossing === 0) {
    lines.push(
      'No link leads from one site to another, so a crawler only ever reaches the sites of its own start pages.',
      "With one-site init every crawler's precision is 100 %, and whatever its ranking it retrieves as much of",
      'its site as its capacity allows, so recall is the same too: only cohesion (which part of the site it takes)',
      `tells the rankings apart. With random init ${pct(mixedStarts(g, draws))} of the crawlers start in two or three`,
      'sites, and the ranking decides which site fills the capacity.',
      '',
    );
  }
  const siteNames = DOCS_SITES.map((s) => s.host.split('.')[1] ?? s.host).join(' / ');
  for (const init of INITS) {
    lines.push(`### ${init === 'random' ? 'Random init' : 'One-site init'} (real graph)`, '');
    lines.push(`| crawlers | cohesion | precision | recall | overlap | distinct majority sites | crawlers settling on ${siteNames} |`);
    lines.push('|---|---:|---:|---:|---:|---:|---|');
    for (const v of VARIANTS) {
      const r = get(init, v);
      lines.push(
        `| ${v.name} | ${pm(r.cohesion)} | ${pm(r.precision)} | ${pm(r.recall)} | ${pm(r.overlap)} | ${r.communities.mean.toFixed(1)} | ${r.settledOn.join(' / ')} |`,
      );
    }
    lines.push('');
  }
  return lines;
}

type Score = 'cohesion' | 'precision' | 'recall';
interface Beats {
  readonly isTrue: boolean;
  readonly evidence: string;
}

/**
 * Whether `a` beats `b` on each of `scores`: higher in every draw, both having started from the same
 * pages, so that a lead on a few lucky draws does not pass; the evidence gives the means and the draws.
 */
function beats(a: SiteRow, b: SiteRow, scores: readonly Score[]): Beats {
  const parts = scores.map((score) => {
    const ahead = a.draws.filter((d, i) => d.mean[score] > (b.draws[i] as DrawScores).mean[score]).length;
    return {
      isTrue: ahead === a.draws.length,
      text: `${score} ${pct(a[score].mean)} against ${pct(b[score].mean)}, higher in ${ahead} of ${a.draws.length} draws`,
    };
  });
  return { isTrue: parts.every((p) => p.isTrue), evidence: parts.map((p) => p.text).join('; ') };
}

function verdictsOf(g: DocsCommunityGraph, get: (init: Init, v: Variant) => SiteRow): RealGraphVerdict[] {
  const bfs = get('random', BFS);
  const citing = get('random', CITING);
  const candidate = get('random', CANDIDATE);
  const largest = largestShare(g);
  const siteCiting = beats(get('one-site', CITING), get('one-site', BFS), ['cohesion']);
  const siteCandidate = beats(get('one-site', CANDIDATE), get('one-site', BFS), ['cohesion']);
  const verdict = (claim: string, r: Beats): RealGraphVerdict => ({
    claim,
    holds: r.isTrue,
    evidence: `${r.evidence}.`,
  });
  return [
    verdict(CLAIM.paper, beats(citing, bfs, ['cohesion', 'precision', 'recall'])),
    verdict(CLAIM.candidate, beats(candidate, bfs, ['precision'])),
    verdict(CLAIM.aboveLargest, {
      isTrue: citing.precision.mean > largest && candidate.precision.mean > largest,
      evidence:
        `community ${pct(citing.precision.mean)}, candidate ${pct(candidate.precision.mean)}, ` +
        `largest site ${pct(largest)} of the pages (breadth-first ${pct(bfs.precision.mean)})`,
    }),
    verdict(CLAIM.oneSite, {
      isTrue: siteCiting.isTrue && siteCandidate.isTrue,
      evidence: `community: ${siteCiting.evidence}; candidate: ${siteCandidate.evidence}`,
    }),
    verdict(CLAIM.candidateVsCiting, beats(candidate, citing, ['precision', 'cohesion'])),
  ];
}
