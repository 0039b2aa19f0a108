/**
 * The Markdown of docs/experiments/url-ordering.md, from the results of `npm run experiment:cho`.
 * Every number in it comes from the results or from {@link PAPER}; the text around the numbers is
 * fixed, or chosen by the verdicts (`verdicts.ts`).
 */
import { DEFAULT_PAGERANK_MAX_ITERATIONS } from '../../src/order/pagerank.js';
import type { DocsCrawlFacts, DocsSite } from './docs-crawl.js';
import { REPORT_AT, type Evaluation } from './evaluate.js';
import { PAPER, PAPER_HOT_SHARE, TOPIC_CANDIDATES, TOPIC_RULE, type ExperimentResult, type GraphResult } from './experiments.js';
import { HOT_WEIGHT } from './runs.js';
import { areSitesApart, MIN_MARGIN, type Verdict } from './verdicts.js';

/** A timed step of building a graph. */
export interface BuildStep {
  readonly label: string;
  readonly ms: number;
  readonly isCached: boolean;
}

/** Everything the report needs. */
export interface ReportInput {
  readonly command: string;
  readonly date: string;
  readonly nodeVersion: string;
  readonly cpus: number;
  readonly totalMs: number;
  readonly chartDir: string;
  readonly web: { readonly result: GraphResult; readonly config: Readonly<Record<string, unknown>>; readonly steps: readonly BuildStep[] };
  readonly docs: {
    readonly result: GraphResult;
    readonly sites: readonly DocsSite[];
    readonly crawl: DocsCrawlFacts;
    readonly steps: readonly BuildStep[];
    readonly crawlGraph: { readonly pages: number; readonly links: number };
  };
  readonly polite: { readonly concurrency: number; readonly latencyMs: number; readonly minDelayMs: number; readonly k: number };
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const num = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–');
const pct = (share: number, digits = 1): string => `${(100 * share).toFixed(digits)} %`;
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** The paper's statement for each experiment, in this page's words. */
const STATEMENTS: Readonly<Record<string, string>> = {
  exp1:
    `With I = IB and G = ${PAPER.ibThreshold} (Graph 2 of the paper), ordering by the PageRank estimate IR′ finds hot ` +
    `pages sooner than ordering by backlinks seen (IB′) or breadth-first, and all three do better than a random crawler.`,
  exp2: `With I = IR and G = ${PAPER.irThreshold} (Graph 4), the picture is the same and IR′ is ahead by more.`,
  exp3:
    `For a topic word (IS: the word in the title, or at least ${PAPER.bodyMin} times in the body; Graphs 7 ` +
    `and 8), with the plain hot queue (a URL is hot when its anchor or URL names the word) breadth-first ` +
    `does better than IB′ and IR′; the modified hot queue (also hot: URLs within ${PAPER.hotDistance} ` +
    `links of a hot page) improves every crawler and brings IB′ and IR′ close to breadth-first.`,
  exp4:
    `With hot = on the topic and at least ${PAPER.topicBacklinks} backlinks (Graph 9) and the modified hot queue, IR′ ` +
    `and breadth-first have more than ${PAPER.readAbove} % of the hot pages after ${PAPER.readAt * 100} % of the crawl.`,
};

const TITLES: Readonly<Record<string, string>> = {
  exp1: `Experiment 1: backlinks, G = ${PAPER.ibThreshold}`,
  exp2: `Experiment 2: PageRank, G = ${PAPER.irThreshold}`,
  exp3: 'Experiment 3: a topic word, plain and modified hot queue',
  exp4: `Experiment 4: topic and at least ${PAPER.topicBacklinks} backlinks`,
};

function table(e: Evaluation): string[] {
  const head = `| crawler | ${REPORT_AT.map((a) => `${a * 100} %`).join(' | ')} | mean |`;
  const rule = `|---|${REPORT_AT.map(() => '---:').join('|')}|---:|`;
  return [head, rule, ...e.rows.map((r) => `| ${r.label} | ${r.at.map(f1).join(' | ')} | ${f1(r.mean)} |`)];
}

function verdictLines(v: Verdict): string[] {
  return [
    `**Verdict: ${v.word}.**`,
    '',
    ...v.claims.map((c) => `- ${c.isTrue ? 'yes' : 'no'}: ${c.text} (${c.evidence}).`),
    '',
    ...v.notes.flatMap((n) => [n, '']),
  ];
}

function experimentBlock(graph: GraphResult, x: ExperimentResult, chartDir: string): string[] {
  const e = x.evaluation;
  const hot = e.hot.importance === 'ib' || e.hot.importance === 'ir' ? `G = ${num(e.hot.threshold)}: ` : '';
  return [
    `### ${graph.name}${x.id.endsWith('-alt') ? `, G = ${num(e.hot.threshold)}` : ''}`,
    '',
    ...(x.reason === null ? [] : [x.reason, '']),
    `${hot}H = ${int(e.hotPages)} hot pages of T = ${int(e.pages)} (${pct(e.hotPages / e.pages, 2)}). PST (%) after each share of the crawl:`,
    '',
    ...table(e),
    '',
    `![${x.title}](${chartDir}/${x.chartFile})`,
    '',
    ...(x.verdict === null ? [] : verdictLines(x.verdict)),
  ];
}

function graphTable(input: ReportInput): string[] {
  const a = input.web.result;
  const b = input.docs.result;
  const row = (what: string, f: (g: GraphResult) => string): string => `| ${what} | ${f(a)} | ${f(b)} |`;
  return [
    `| | (a) ${a.name} | (b) ${b.name} |`,
    '|---|---:|---:|',
    row('pages in the graph', (g) => int(g.pageCount)),
    row('links', (g) => int(g.linkCount)),
    row('hosts', (g) => int(g.hostCount)),
    row('seeds', (g) => int(g.seeds.length)),
    row('T: pages reachable from the seeds', (g) => int(g.facts.pages)),
    row('followed links between them', (g) => int(g.facts.links)),
    row('hosts holding them', (g) => int(g.facts.hosts)),
    row('share of those links within a host', (g) => pct(g.facts.sameHostShare)),
    row(
      'pages within D links of a seed (D: the least depth that holds a tenth of T)',
      (g) => `${pct(g.facts.nearShare)} (D = ${g.facts.nearDepth})`,
    ),
    row('share of them on the largest host', (g) => pct(g.facts.largestHostShare)),
    row('mean link depth from the seeds', (g) => f1(g.facts.meanDepth)),
    row('mean IR over T (d = 0.9)', (g) => g.irMean.toFixed(3)),
    row('topic word', (g) => `"${g.topic.chosen.word}"`),
    row('IR′ recomputed every', (g) => `${int(g.recomputeEvery)} fetches`),
  ];
}

function buildLines(steps: readonly BuildStep[]): string {
  return `Times: ${steps.map((s) => `${s.label} ${s.isCached ? '(reused from the cache)' : secs(s.ms)}`).join('; ')}`;
}

/** `a 1, b.c 2` from a nested configuration object. */
function flatConfig(config: Readonly<Record<string, unknown>>, prefix = ''): string[] {
  return Object.entries(config).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? flatConfig(v as Record<string, unknown>, `${prefix}${k}.`)
      : [`${prefix}${k} ${typeof v === 'number' ? v.toLocaleString('en-US') : String(v)}`],
  );
}

function runTable(input: ReportInput): string[] {
  const lines = ['| graph | crawler | politeness | visits | wall time | virtual time |', '|---|---|---|---:|---:|---:|'];
  for (const g of [input.web.result, input.docs.result]) {
    for (const r of g.runs) {
      lines.push(
        `| ${g.name} | ${r.label} | ${r.isPolite ? 'shoal default' : 'none'} | ${int(r.visits)} | ` +
          `${secs(r.wallMs)} | ${r.isPolite ? `${(r.virtualMs / 3_600_000).toFixed(2)} h` : '–'} |`,
      );
    }
  }
  return lines;
}

function topicLines(g: GraphResult): string[] {
  const t = g.topic;
  const share = (n: number): string => pct(n / g.facts.pages, 2);
  return [
    `- ${g.name}: "${t.chosen.word}", present in ${int(t.chosen.present)} pages ` +
      `(${share(t.chosen.present)}), on the topic in ${int(t.chosen.onTopic)} (${share(t.chosen.onTopic)}).` +
      ` ${t.chosen.word === TOPIC_RULE.preferred ? "It is the paper's own word and is eligible." : notEligible(TOPIC_RULE.preferred)}` +
      ` Eligible words with the most pages on the topic: ${t.eligible.map((w) => `"${w.word}" ${int(w.onTopic)} (present in ${share(w.present)})`).join(', ')}.`,
  ];
}

function summary(input: ReportInput): string[] {
  const a = input.web.result;
  const b = input.docs.result;
  const cell = (g: GraphResult, id: string): string => {
    const x = g.experiments.find((e) => e.id === id);
    return x?.verdict === null || x === undefined ? '–' : x.verdict.word;
  };
  const ids = ['exp1', 'exp1-alt', 'exp2', 'exp2-alt', 'exp3', 'exp4'].filter(
    (id) => a.experiments.some((e) => e.id === id) || b.experiments.some((e) => e.id === id),
  );
  return [
    `| statement | (a) ${a.name} | (b) ${b.name} |`,
    '|---|---|---|',
    ...ids.map(
      (id) =>
        `| ${TITLES[id.replace('-alt', '')] ?? id}${id.endsWith('-alt') ? ' (comparable share of hot pages)' : ''} | ${cell(a, id)} | ${cell(b, id)} |`,
    ),
  ];
}

/** The whole page. */
export function renderReport(input: ReportInput): string {
  const a = input.web.result;
  const b = input.docs.result;
  const cfg = input.web.config;
  const sites = input.docs.sites.map((s) => `\`${s.root}\` (package ${s.debianPackage}) served as host ${s.host}`).join(', ');
  const outcomes = Object.entries(input.docs.crawl.outcomes)
    .map(([k, v]) => `${k} ${int(v)}`)
    .join(', ');
  const out: string[] = [
    "# URL ordering on shoal's simulator: the findings of seed 004, measured",
    '',
    `> This page is generated by \`${input.command}\` (\`scripts/experiment-cho.ts\`). Do not edit it: ` +
      `run the command again. Every number below is measured by that run or is one of the paper's figures.`,
    '',
    'Cho, Garcia-Molina and Page compared URL orderings with a virtual crawler over a stored copy of the Stanford Web (SPEC §3).',
    "This page runs the same comparisons with shoal's simulator, its ordering policies and its evaluation models, on two graphs:",
    "a synthetic test web and the link graph of a real crawl of three documentation sites. For each of the paper's statements it gives",
    'the PST table and chart on each graph and a verdict computed from the table.',
    '',
    '## Summary',
    '',
    ...summary(input),
    '',
    `At each of ${REPORT_AT.map((x) => `${x * 100}`).join(', ')} % of the crawl a crawler is ` +
      `*ahead* of another when its PST is higher by at least ${MIN_MARGIN} point; it *beats* ` +
      `the other when it is ahead at more of these points than it is behind, and its mean PST over them is higher (points where both have nearly every hot page decide nothing).`,
    'A statement *holds* when every one of its claims does, *holds partly* when some do, and *does not hold* when none does.',
    '',
    '## How it was produced',
    '',
    `- Command: \`${input.command}\`, run on ${input.date} with Node ${input.nodeVersion} on ${input.cpus} CPU cores; the whole run took ${secs(input.totalMs)}.`,
    `- Graph (a), the ${a.name}: \`shoal web\`'s generator with ${flatConfig(cfg).join(', ')}, ` +
      `every other option at its default. Its ground truth was exported (\`exportTruth\`) and ` +
      `read back with the pages rebuilt (\`loadTruthGraph(dir, { rebuildContent: true })\`) so ` +
      `that titles, text and anchors are what a crawl parses. ${buildLines(input.web.steps)}.`,
    `- Graph (b), the ${b.name}: ${sites}, by the test web's replay mode on loopback, crawled for real by shoal ` +
      `(\`Crawl\`, breadth-first, ${input.docs.sites.length} fetch slots, no delay, the crawl kept to the seeds' hosts): ` +
      `${int(input.docs.crawl.pages)} responses in ${secs(input.docs.crawl.elapsedMs)} (${outcomes}). ` +
      `Its link graph was read with \`loadCrawlGraph(dir, { withContent: true })\` (${int(input.docs.crawlGraph.pages)} URLs, ` +
      `${int(input.docs.crawlGraph.links)} links, every link target included) and cut to the pages ` +
      `the crawl fetched as HTML with a 2xx answer, links to redirects leading to their targets, ` +
      `as the paper counted only valid pages of its own crawl. ${buildLines(input.docs.steps)}.`,
    `- Seeds: (a) ${a.seeds.map((s) => `\`${s}\``).join(', ')}; (b) ${b.seeds.map((s) => `\`${s}\``).join(', ')}.`,
    `- Crawlers: the paper's virtual crawler, as one simulated node with one fetch slot, fetches ` +
      `that take no time, min delay 0 and k = 0 (no politeness). IR′ is \`pagerank\` (d = 0.9) ` +
      `recomputed every 1 % of the graph's pages, each recomputation done at once (\`sliceWork: ` +
      `0\`). A crawler "+ hot queue" is \`hot-queue\` (\`hotDistance: 0\`; Figure 4 of the paper) ` +
      `for breadth-first, and \`weighted\` of \`hot-queue\` (weight ${num(HOT_WEIGHT)}) and \`backlink\` ` +
      `or \`pagerank\` (weight 1) for IB′ and IR′; "+ modified hot queue" uses \`hotDistance: ` +
      `${PAPER.hotDistance}\` (Figure 5). "random ordering" is the \`random\` policy; "random ` +
      `crawler" and "ideal crawler" are the model's baselines (100·K/T and 100·min(K, H)/H).`,
    `- Evaluation: Crawl & Stop with Threshold (PST) over T, the pages reachable from the seeds (the ` +
      `paper left out the pages its crawler could not reach), with the simulator's importance metrics: ` +
      `IB counts distinct linking pages, IR is PageRank with d = 0.9 (the test web's own for graph ` +
      `(a)), IS is the topic word in the title or at least ${PAPER.bodyMin} times in the visible text.`,
    `- The paper's figures used as parameters or compared against: ${int(PAPER.pages)} pages reachable (of ` +
      `${int(PAPER.validPages)} valid), G = ${PAPER.ibThreshold} giving H = ${int(PAPER.ibHotPages)} (${pct(PAPER_HOT_SHARE, 2)}), ` +
      `G = ${PAPER.irThreshold} for IR, d = ${PAPER.damping}, ${PAPER.bodyMin} occurrences, distance ` +
      `${PAPER.hotDistance}, ${PAPER.topicBacklinks} backlinks, ${PAPER.readAbove} % at ${PAPER.readAt * 100} %.`,
    '',
    '### The graphs',
    '',
    ...graphTable(input),
    '',
    '### Runs',
    '',
    ...runTable(input),
    '',
  ];
  for (const id of ['exp1', 'exp2', 'exp3', 'exp4']) {
    out.push(`## ${TITLES[id]}`, '', `**The paper:** ${STATEMENTS[id]}`, '');
    if (id === 'exp3') {
      out.push(
        `**The topic word.** The candidates are the ${int(new Set(TOPIC_CANDIDATES).size)} words of the test web's COMPUTERS vocabulary ` +
          `(\`src/web/data/topic-words.ts\`), since the paper's topic was computing. A word is eligible on a graph when it is present (in the title ` +
          `or the text) in ${pct(TOPIC_RULE.minPresentShare, 0)} to ${pct(TOPIC_RULE.maxPresentShare, 0)} of the T pages, a few per cent as the ` +
          `paper asks; the paper's "${TOPIC_RULE.preferred}" is taken when eligible, else the eligible word with the most pages on the topic.`,
        '',
        ...topicLines(a),
        ...topicLines(b),
        '',
      );
    }
    for (const g of [a, b]) {
      for (const x of g.experiments.filter((e) => e.id === id || e.id === `${id}-alt`)) out.push(...experimentBlock(g, x, input.chartDir));
    }
  }
  out.push(
    '## Politeness',
    '',
    `The paper's virtual crawler ignored politeness. Experiment 1 again, with shoal's defaults: ${input.polite.concurrency} fetch slots, fetches of ${input.polite.latencyMs} ` +
      `ms, min delay ${input.polite.minDelayMs} ms, k = ${input.polite.k}, one connection per host and per address, and the test web's robots.txt Crawl-delays.`,
    '',
  );
  for (const g of [a, b]) {
    const x = g.experiments.find((e) => e.id === 'exp1-polite');
    if (x === undefined) continue;
    out.push(...experimentBlock(g, x, input.chartDir), ...g.politeness.flatMap((n) => [n, '']));
  }
  out.push(
    '## Where the setup differs from the paper',
    '',
    `- Size and shape. The paper's graph had ${int(PAPER.pages)} pages of one university's many sites. Graph (a) has ${int(a.facts.pages)} ` +
      `reachable pages on ${int(a.facts.hosts)} hosts whose sizes, topics and in-degrees follow the test web's power laws; ` +
      `${pct(a.facts.sameHostShare)} of its links stay within a host. Graph (b) has ${int(b.facts.pages)} pages on ${int(b.facts.hosts)} hosts, ` +
      `each a hierarchical manual whose every page repeats its site's navigation; ${pct(b.facts.sameHostShare)} of its links stay within a host.`,
    `- Seeds. The paper started from one page. Graph (a) starts from ${a.seeds.length === 1 ? 'one page, the home page of its largest host' : `${a.seeds.length} pages`}; ` +
      `graph (b) from the root of each of its ${b.seeds.length} sites${areSitesApart(b.facts) ? ', which no link joins' : ''}.`,
    `- IR′ is recomputed every 1 % of the graph with at most ${DEFAULT_PAGERANK_MAX_ITERATIONS} warm-started iterations, with one-step increments in ` +
      `between, where the paper solved it again before each choice; IB′ counts distinct linking pages. Equal priorities are served in discovery order.`,
    '- The hot queue also promotes a URL already queued when a later anchor names the word or a hot page is ' +
      'found near it; in the IB′ and IR′ combinations the hot URLs are ordered among themselves by IB′ or IR′.',
    '- Pages that answer errors or redirects on the test web are visited and count in T, as a crawler would fetch them.',
    '',
  );
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** Why the paper's own topic word was not chosen. */
function notEligible(word: string): string {
  return `"${word}" is not eligible here; this is the eligible word with the most pages on the topic.`;
}
