/**
 * `shoal crawl`: one local crawler from seed URLs into a crawl directory. Configuration: defaults <
 * `--config` file < `SHOAL_CRAWL_*` environment < flags. Live progress goes to stderr (one line
 * rewritten in place on a terminal, else a line every few seconds), the summary to stdout. Exit codes:
 * 0 done (frontier exhausted or limit reached), 1 failure, 2 bad configuration, 130 interrupted.
 */
import { channel } from 'node:diagnostics_channel';
import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { specLabel } from '../../core/strings.js';
import { applySets, loadConfig, setPath, type ConfigTree } from '../../config/load.js';
import { ORDER_POLICY_IDS } from '../../order/registry.js';
import { readCrawlForEval } from '../../cluster/read-crawl.js';
import { collaborationMetrics } from '../../eval/collab-metrics.js';
import { formatCollabTable } from '../../eval/collab-table.js';
import { Crawl } from '../../crawl/crawl.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema, type CrawlConfig } from '../../config/crawl-config.js';
import type { CrawlSummary } from '../../node/crawl-stats.js';
import { CrawlChannel, type CrawlProgress, type CrawlStarted } from '../../obs/events.js';
import { describeFailure } from '../../node/stages/host-reachability.js';
import { processSettings } from '../../node/process-settings.js';
import type { CliIo } from '../cli-io.js';

export interface CrawlFlags {
  seed: string[];
  seedsFile?: string;
  sitemap: string[];
  out?: string;
  resolve: string[];
  hostsFile?: string;
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  userAgent?: string;
  maxPages?: string;
  minDelayMs?: string;
  concurrency?: string;
  nodes?: string;
  workers?: string;
  partition?: string;
  order?: string;
  set: string[];
  config?: string;
}

/** Without a terminal, a progress line every this many ms. */
const PROGRESS_LINE_MS = 5000;

export const collect = (v: string, prev: string[]): string[] => [...prev, v];
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`;
}

/** The crawl configuration from the file, the environment and the flags; every problem at once. */
export function crawlConfigFromFlags(flags: CrawlFlags, env: Readonly<Record<string, string | undefined>>, extra: (tree: ConfigTree, problems: ConfigIssue[]) => void = () => {}): CrawlConfig {
  const tree: ConfigTree = {};
  const problems: ConfigIssue[] = [];
  const int = (flag: string, path: string, raw: string | undefined): void => {
    if (raw === undefined) return;
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isInteger(v)) problems.push({ path: flag, message: `expected a whole number, got ${JSON.stringify(raw)}` });
    else setPath(tree, path, v);
  };
  if (flags.seed.length > 0) setPath(tree, 'seeds.urls', flags.seed);
  if (flags.seedsFile !== undefined) setPath(tree, 'seeds.file', flags.seedsFile);
  if (flags.sitemap.length > 0) setPath(tree, 'seeds.sitemaps', flags.sitemap);
  if (flags.out !== undefined) setPath(tree, 'store.outDir', flags.out);
  if (flags.resolve.length > 0) setPath(tree, 'network.resolve', flags.resolve);
  if (flags.hostsFile !== undefined) setPath(tree, 'network.hostsFile', flags.hostsFile);
  if (flags.allowLoopback === true) setPath(tree, 'network.allowLoopback', true);
  if (flags.allowPrivate === true) setPath(tree, 'network.allowPrivate', true);
  if (flags.userAgent !== undefined) setPath(tree, 'fetch.userAgent', flags.userAgent);
  int('--max-pages', 'limits.maxPages', flags.maxPages);
  int('--min-delay-ms', 'politeness.minDelayMs', flags.minDelayMs);
  int('--concurrency', 'limits.concurrency', flags.concurrency);
  int('--nodes', 'cluster.nodes', flags.nodes);
  int('--workers', 'cluster.workers', flags.workers);
  if (flags.partition !== undefined) setPath(tree, 'cluster.partition.strategy', flags.partition);
  if (flags.order !== undefined) setPath(tree, 'order.policy', flags.order);
  applySets(tree, flags.set ?? [], problems);
  extra(tree, problems);
  try {
    const config = loadConfig(crawlConfigSchema, { file: flags.config, env, envPrefix: CRAWL_ENV_PREFIX, flags: tree });
    if (problems.length > 0) throw new ConfigError(problems, { code: 'USAGE' });
    if (config.store.outDir === null) throw new ConfigError([{ path: '--out', message: 'the crawl directory is required' }], { code: 'USAGE' });
    return config;
  } catch (err) {
    if (err instanceof ConfigError && problems.length > 0 && err.code !== 'USAGE') throw new ConfigError([...problems, ...err.issues]);
    throw err;
  }
}

/**
 * One progress line. `pagesPerSecond` is the rate shown; by default the event's own, which covers
 * the time since the previous event (a line printed every few seconds shows its own span instead:
 * {@link rateSince}). With `columns` (a terminal's width) the line is fitted to one row: parts are
 * dropped from the end, most telling first kept, so that rewriting it in place never leaves wrapped
 * rows behind.
 */
export function progressLine(p: CrawlProgress, pagesPerSecond = p.recentPagesPerSecond, columns?: number): string {
  const errors = Object.entries(p.errors).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0)).map(([k, n]) => `${k} ${fmt(n ?? 0)}`);
  const x = p.exchange;
  const parts = [
    `${fmt(p.elapsedMs / 1000)} s`,
    `pages ${fmt(p.pages)} (${fmt(pagesPerSecond)}/s)`,
    megabytes(p.bytes),
    `frontier ${fmt(p.frontier.queued)} (${p.frontier.parked > 0 ? `${fmt(p.frontier.parked)} on disk, ` : ''}${fmt(p.frontier.inFlight)} in flight)`,
    `hosts ${fmt(p.hosts)}`,
    ...(p.unreachable === undefined ? [] : [unreachablePart(p.unreachable)]),
    ...(x === undefined ? [] : [`exchange ${fmt(x.urlsSent)} URLs sent (${p.pages > 0 ? (x.urlsSent / p.pages).toFixed(2) : '0'}/page)`
      + (x.pagesSent > 0 ? `, ${fmt(x.pagesSent)} pages forwarded` : '')]),
    ...(p.collab === undefined ? [] : [`overlap ${p.collab.overlap.toFixed(3)}, load max/mean ${p.collab.loadMaxOverMean?.toFixed(2) ?? '–'}`]),
    ...(errors.length === 0 ? [] : [errors.join(', ')]),
  ];
  return fitParts(parts, columns);
}

const SEPARATOR = ' · ';

/** `2 hosts not answering (a.test:8080: connection refused, ...), 1 given up`. */
function unreachablePart(u: NonNullable<CrawlProgress['unreachable']>): string {
  const n = u.failing + u.givenUp;
  return `${fmt(n)} host${n === 1 ? '' : 's'} not answering (${u.hosts.join(', ')}${n > u.hosts.length ? ', ...' : ''})`
    + (u.givenUp > 0 ? `, ${fmt(u.givenUp)} given up` : '');
}

/** `parts` joined, keeping as many leading parts as fit in `columns - 1` characters (all without a width). */
export function fitParts(parts: readonly string[], columns?: number): string {
  if (columns === undefined || columns <= 0) return parts.join(SEPARATOR);
  const room = Math.max(1, columns - 1);
  let line = '';
  for (const part of parts) {
    const next = line === '' ? part : `${line}${SEPARATOR}${part}`;
    if (next.length > room) break;
    line = next;
  }
  return line === '' ? (parts[0] ?? '').slice(0, room) : line;
}

/** Pages per second from the line printed last (`since`, null before the first) to `p`. */
export function rateSince(since: { readonly elapsedMs: number; readonly pages: number } | null, p: CrawlProgress): number {
  const from = since ?? { elapsedMs: 0, pages: 0 };
  const seconds = (p.elapsedMs - from.elapsedMs) / 1000;
  return seconds > 0 ? (p.pages - from.pages) / seconds : p.recentPagesPerSecond;
}

const STOPPED: Readonly<Record<CrawlSummary['stopReason'], string>> = {
  exhausted: 'done: the frontier is empty',
  'max-pages': 'done: --max-pages reached',
  'max-bytes': 'done: limits.maxBytes reached',
  interrupted: 'interrupted: stopped cleanly, stores flushed',
};

const sumOf = <T>(items: readonly T[], of: (t: T) => number): number => items.reduce((a, t) => a + of(t), 0);

/** The summary printed at the end. */
export function summaryText(s: CrawlSummary, command = 'crawl'): string {
  const outcomes = Object.entries(s.outcomes).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0)).map(([k, n]) => `${k} ${fmt(n ?? 0)}`).join(', ');
  const l = s.links;
  const filtered = Object.entries(l.filtered).filter(([, n]) => (n ?? 0) > 0).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  const filteredTotal = sumOf(filtered, ([, n]) => n ?? 0);
  const filteredList = filtered.map(([reason, n]) => `${reason} ${fmt(n ?? 0)}`).join(', ');
  const lines = [
    `shoal ${command}: ${STOPPED[s.stopReason]} after ${(s.elapsedMs / 1000).toFixed(1)} s`,
    `  pages       ${fmt(s.pages)} (${s.pagesPerSecond.toFixed(1)} pages/s, ${megabytes(s.bytesPerSecond)}/s, ${megabytes(s.bytes)} in all)`,
    `  urls        ${fmt(s.urls)}: ${outcomes === '' ? 'none' : outcomes}`,
    `  requests    ${fmt(s.requests)} (${fmt(s.robotsRequests)} robots.txt, ${fmt(s.retries)} retries) to ${fmt(s.hosts)} hosts`,
    `  duplicates  ${fmt(s.duplicates)} exact (${fmt(s.revisits)} written as revisit records)`,
    `  links       ${fmt(l.found)} found${l.received > 0 ? ` + ${fmt(l.received)} received` : ''}: ${fmt(l.queued)} queued, ${fmt(l.seenBefore)} seen before,`
      + ` ${fmt(filteredTotal)} filtered, ${fmt(l.robotsDenied)} disallowed, ${fmt(l.notFollowed)} nofollow, ${fmt(l.invalid)} invalid`
      + (l.routed > 0 ? `, ${fmt(l.routed)} sent to other nodes` : ''),
    ...(filteredTotal === 0 ? [] : [`  filtered    ${filteredList}`]),
    ...(s.unreachableHosts.length === 0 ? [] : [
      `  unreachable ${s.unreachableHosts.map((h) => `${h.host} ${h.isGivenUp ? 'given up' : 'failing'}: ${describeFailure(h)} (${h.code}), ${fmt(h.failures)} in a row`).join('; ')}`,
    ]),
    ...(s.cutSpaces.length === 0 ? [] : [
      `  traps cut   ${s.cutSpaces.map((c) => `${c.host}${c.form} (${fmt(c.cut)} past ${fmt(c.admitted)})`).join(', ')}: endless numbered spaces (filter.traps.maxNumberedUrls)`,
    ]),
    ...(s.recovered === undefined ? [] : [
      `  recovered   ${fmt(s.recovered.urls)} URLs done after the last checkpoint of a killed run (links of ${fmt(s.recovered.followedPages)} pages queued again;`
        + ` ${fmt(s.recovered.refetched)} to fetch again)`,
    ]),
    ...(s.sitemaps.documents === 0 ? [] : [
      `  sitemaps    ${fmt(s.sitemaps.documents)} read: ${fmt(s.sitemaps.urls)} page URLs, ${fmt(s.sitemaps.children)} child sitemaps, ${fmt(s.sitemaps.problems)} not sitemaps`,
    ]),
    `  frontier    ${fmt(s.frontierLeft.queued)} queued${s.frontierLeft.parked > 0 ? ` (${fmt(s.frontierLeft.parked)} of them parked on disk)` : ''}, ${fmt(s.frontierLeft.inFlight)} in flight; ${fmt(s.seenUrls)} URLs seen in all`,
    `  order       ${specLabel(s.order)}`,
    `  output      ${s.outDir} (${s.warcFiles.length === 0 ? 'no new WARC records' : s.warcFiles.length > 4 ? `${s.warcFiles.length} WARC files` : s.warcFiles.join(', ')})`,
    ...(s.cluster === undefined ? [] : [
      `  nodes       ${s.cluster.nodes.length}, ${s.cluster.partitioner.id}: ${s.cluster.nodes.map((n) => `${n.node} ${fmt(n.pages)}`).join(', ')} pages`,
      `  exchange    ${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.router.sent ?? 0))} URLs sent to other nodes`
        + ` (${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.router.cached ?? 0))} not sent again: sent lately),`
        + ` ${fmt(sumOf(s.cluster.nodes, (n) => n.exchange?.endpoint.sent.pages ?? 0))} pages forwarded`,
    ]),
  ];
  return `${lines.join('\n')}\n`;
}

/** Adds the options `shoal crawl` and `shoal node` share. */
export function crawlOptions(command: Command): Command {
  return command
    .option('--seed <url>', 'seed URL (repeatable)', collect, [])
    .option('--seeds-file <file>', 'file of seed URLs, one per line')
    .option('--sitemap <url>', 'sitemap whose pages are seeds (repeatable; seeds.robotsSitemaps also reads those robots.txt announces)', collect, [])
    .option('--out <dir>', 'the crawl directory (a rerun on the same directory does not fetch a page again)')
    .option('--resolve <host=ip>', "fixed address for a host, bypassing DNS; HOST may be a wildcard like '*.test' (repeatable)", collect, [])
    .option('--hosts-file <file>', 'fixed addresses in /etc/hosts format (IP name...), e.g. the hosts map `shoal web` writes')
    .option('--allow-loopback', 'allow fetching from loopback addresses (the test web)')
    .option('--allow-private', 'allow fetching from private network addresses')
    .option('--user-agent <ua>', "User-Agent with a contact URL; its product token is the robots.txt name (e.g. 'shoalbot/1.0 (+https://example.org/bot)')")
    .option('--max-pages <n>', 'stop after starting this many page fetches')
    .option('--min-delay-ms <n>', 'smallest gap between two requests to one host, ms')
    .option('--concurrency <n>', 'fetches in flight at most (over all nodes of this process)')
    .option('--partition <strategy>', 'how the nodes split the Web: url-hash, host-hash, domain-hash, ip-hash, consistent-hash, content-hash, truth-topic (default host-hash)')
    .option('--order <policy>', `which URL first (SPEC §3): ${ORDER_POLICY_IDS.join(', ')} (default bfs; parameters with --set order.<name>=<value>)`)
    .option('--set <path=value>', 'set any option, e.g. --set order.query=computer (repeatable)', collect, [])
    .option('--config <file>', 'YAML or JSON configuration file (`shoal config --defaults --command crawl` prints every option)');
}

/**
 * Runs a crawl (of one node, of an embedded collaborative crawl, or one node of a distributed one)
 * with live progress on stderr, the summary on stdout, Ctrl-C stopping cleanly, and the exit code.
 * The opening line comes once the crawl has started (directory locked, seeds checked), so a crawl
 * refused for its configuration or its directory says only why.
 * @param isShown which progress events to show (by node id).
 */
export async function runCrawl(
  io: CliIo, setCode: (code: number) => void, command: string, config: CrawlConfig,
  isShown: (node: string) => boolean, run: (signal: AbortSignal) => Promise<CrawlSummary>,
): Promise<void> {
  const controller = new AbortController();
  void io.interrupted.then((cause) => {
    if (!controller.signal.aborted) io.err(`\nshoal ${command}: stopping (${cause === 'output-closed' ? 'output closed' : 'Ctrl-C'}) ...\n`);
    controller.abort();
  });
  const isTty = io.isErrTty === true;
  /** The progress printed last as a line of its own (not on a terminal), for the rate of the next one. */
  let lastLine: { elapsedMs: number; pages: number } | null = null;
  let isLineOpen = false;
  const onProgress = (message: unknown): void => {
    const p = message as CrawlProgress;
    if (!isShown(p.node)) return;
    if (isTty) {
      io.err(`\r\x1b[2K${progressLine(p, p.recentPagesPerSecond, io.errColumns?.())}`);
      isLineOpen = true;
    } else if (lastLine === null || p.elapsedMs - lastLine.elapsedMs >= PROGRESS_LINE_MS || p.stopReason !== null) {
      io.err(`${progressLine(p, rateSince(lastLine, p))}\n`);
      lastLine = { elapsedMs: p.elapsedMs, pages: p.pages };
    }
  };
  let hasStarted = false;
  const onStarted = (message: unknown): void => {
    const s = message as CrawlStarted;
    if (hasStarted || !isShown(s.node)) return;
    hasStarted = true;
    const resumed = s.seenBefore > 0 ? ` (resuming: ${fmt(s.seenBefore)} URLs seen before, ${fmt(s.frontierQueued)} queued)` : '';
    io.err(`shoal ${command}: crawling into ${s.outDir} with ${s.concurrency} fetch slots${resumed}; Ctrl-C stops cleanly\n`);
  };
  const progress = channel(CrawlChannel.progress);
  const started = channel(CrawlChannel.started);
  progress.subscribe(onProgress);
  started.subscribe(onStarted);
  let summary: CrawlSummary;
  try {
    const settings = io.nodeFlags === undefined ? null : processSettings(io.nodeFlags, io.env);
    if (settings !== null && !settings.isInEffect) {
      io.err(`shoal ${command}: node runs without the shoal command's memory settings (${settings.missing.join(', ')}): `
        + 'expect about half as much memory again; run the `shoal` command itself, or see docs/memory.md\n');
    }
    summary = await run(controller.signal);
  } finally {
    progress.unsubscribe(onProgress);
    started.unsubscribe(onStarted);
    if (isLineOpen) io.err('\n');
  }
  io.out(summaryText(summary, command));
  if (summary.cluster !== undefined && summary.stopReason !== 'interrupted') {
    const crawled = await readCrawlForEval(summary.outDir);
    io.out(`\ncollaboration (shoal eval ${summary.outDir}):\n${formatCollabTable(collaborationMetrics({ nodes: crawled.nodes, links: crawled.links })).trimEnd()}\n`);
  }
  setCode(summary.stopReason === 'interrupted' ? 130 : 0);
}

export function registerCrawlCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  crawlOptions(program.command('crawl').description('crawl the Web from seed URLs, politely, into a crawl directory (WARC, CDXJ index, state)'))
    .option('--nodes <n>', 'nodes of a collaborative crawl in this process, each owning a partition (default 1)')
    .option('--workers <n>', 'worker threads the nodes are spread over, so that several cores crawl (default 0: all on one thread)')
    .action(async (opts: CrawlFlags) => {
      const config = crawlConfigFromFlags(opts, io.env);
      const crawl = new Crawl(config);
      await runCrawl(io, setCode, 'crawl', config, (node) => node === config.nodeId, (signal) => crawl.run(signal));
    });
}
