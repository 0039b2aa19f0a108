/**
 * `shoal crawl`: one local crawler from seed URLs into a crawl directory. Configuration: defaults <
 * `--config` file < `SHOAL_CRAWL_*` environment < flags. Live progress goes to stderr (one line
 * rewritten in place on a terminal, else a line every few seconds), the summary to stdout. Exit codes:
 * 0 done (frontier exhausted or limit reached), 1 failure, 2 bad configuration, 130 interrupted.
 */
import { channel } from 'node:diagnostics_channel';
import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { applySets, loadConfig, setPath, type ConfigTree } from '../../config/load.js';
import { ORDER_POLICY_IDS } from '../../order/registry.js';
import { readCrawlForEval } from '../../cluster/read-crawl.js';
import { readTopicEval } from '../../cluster/read-topic.js';
import { geoTargetsOfSpec, readGeoEval } from '../../cluster/read-geo.js';
import { formatGeoLines } from '../geo-summary-text.js';
import { readCommunityEval } from '../../cluster/read-community.js';
import { formatCommunityLines } from '../community-summary-text.js';
import { readTruth } from '../../web/truth/read.js';
import { formatTopicLines } from '../topic-summary-text.js';
import { collaborationMetrics } from '../../eval/collab-metrics.js';
import { formatCollabTable } from '../../eval/collab-table.js';
import { Crawl } from '../../crawl/crawl.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema, type CrawlConfig } from '../../config/crawl-config.js';
import type { CrawlSummary } from '../../node/crawl-stats.js';
import { CrawlChannel, type CrawlProgress, type CrawlStarted } from '../../obs/events.js';
import { processSettings } from '../../node/process-settings.js';
import { CrawlMetrics } from '../../obs/metrics/crawl-metrics.js';
import type { MetricsServer } from '../../obs/metrics/metrics-server.js';
import type { CliIo } from '../cli-io.js';
import { collect, fmt, PROGRESS_LINE_MS } from '../format.js';
import { progressLine, rateSince } from '../crawl-progress.js';
import { summaryText } from '../crawl-summary-text.js';
import { startCrawlDashboard } from '../crawl-dashboard.js';
import type { Dashboard } from '../../obs/dashboard/dashboard.js';

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
  dashboard?: boolean;
  dashboardHost?: string;
  dashboardPort?: string;
  dashboardToken?: string;
  metricsPort?: string;
  metricsHost?: string;
  set: string[];
  config?: string;
}

/** The crawl configuration from the file, the environment and the flags; every problem at once. */
export function crawlConfigFromFlags(
  flags: CrawlFlags,
  env: Readonly<Record<string, string | undefined>>,
  extra: (tree: ConfigTree, problems: ConfigIssue[]) => void = () => {},
): CrawlConfig {
  const tree: ConfigTree = {};
  const problems: ConfigIssue[] = [];
  const int = (flag: string, path: string, raw: string | undefined): void => {
    if (raw === undefined) return;
    const v = Number(raw);
    if (raw.trim() === '' || !Number.isInteger(v))
      problems.push({ path: flag, message: `expected a whole number, got ${JSON.stringify(raw)}` });
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
  dashboardFlags(flags, tree, int);
  int('--metrics-port', 'metrics.port', flags.metricsPort);
  if (flags.metricsHost !== undefined) setPath(tree, 'metrics.host', flags.metricsHost);
  applySets(tree, flags.set ?? [], problems);
  extra(tree, problems);
  try {
    const config = loadConfig(crawlConfigSchema, { file: flags.config, env, envPrefix: CRAWL_ENV_PREFIX, flags: tree });
    if (problems.length > 0) throw new ConfigError(problems, { code: 'USAGE' });
    if (config.store.outDir === null)
      throw new ConfigError([{ path: '--out', message: 'the crawl directory is required' }], { code: 'USAGE' });
    return config;
  } catch (err) {
    if (err instanceof ConfigError && problems.length > 0 && err.code !== 'USAGE') throw new ConfigError([...problems, ...err.issues]);
    throw err;
  }
}

/** The dashboard's flags onto its configuration section; any of them turns the dashboard on. */
function dashboardFlags(
  flags: Pick<CrawlFlags, 'dashboard' | 'dashboardHost' | 'dashboardPort' | 'dashboardToken'>,
  tree: ConfigTree,
  int: (flag: string, path: string, raw: string | undefined) => void,
): void {
  const isAsked = flags.dashboard === true || [flags.dashboardHost, flags.dashboardPort, flags.dashboardToken].some((f) => f !== undefined);
  if (isAsked) setPath(tree, 'dashboard.enabled', true);
  if (flags.dashboardHost !== undefined) setPath(tree, 'dashboard.host', flags.dashboardHost);
  int('--dashboard-port', 'dashboard.port', flags.dashboardPort);
  if (flags.dashboardToken !== undefined) setPath(tree, 'dashboard.token', flags.dashboardToken);
}

/** Adds the options `shoal crawl` and `shoal node` share. */
export function crawlOptions(command: Command): Command {
  return command
    .option('--seed <url>', 'seed URL (repeatable)', collect, [])
    .option('--seeds-file <file>', 'file of seed URLs, one per line')
    .option(
      '--sitemap <url>',
      'sitemap whose pages are seeds (repeatable; seeds.robotsSitemaps also reads those robots.txt announces)',
      collect,
      [],
    )
    .option('--out <dir>', 'the crawl directory (a rerun on the same directory does not fetch a page again)')
    .option(
      '--resolve <host=ip>',
      "fixed address for a host, bypassing DNS; HOST may be a wildcard like '*.test' (repeatable)",
      collect,
      [],
    )
    .option('--hosts-file <file>', 'fixed addresses in /etc/hosts format (IP name...), e.g. the hosts map `shoal web` writes')
    .option('--allow-loopback', 'allow fetching from loopback addresses (the test web)')
    .option('--allow-private', 'allow fetching from private network addresses')
    .option(
      '--user-agent <ua>',
      "User-Agent with a contact URL; its product token is the robots.txt name (e.g. 'shoalbot/1.0 (+https://example.org/bot)')",
    )
    .option('--max-pages <n>', 'stop after starting this many page fetches')
    .option('--min-delay-ms <n>', 'smallest gap between two requests to one host, ms')
    .option('--concurrency <n>', 'fetches in flight at most (over all nodes of this process)')
    .option(
      '--partition <strategy>',
      'how the nodes split the Web: url-hash, host-hash, domain-hash, ip-hash, consistent-hash, content-hash, truth-topic (default host-hash)',
    )
    .option(
      '--order <policy>',
      `which URL first (SPEC §3): ${ORDER_POLICY_IDS.join(', ')} (default bfs; parameters with --set order.<name>=<value>)`,
    )
    .option('--dashboard', 'serve the live dashboard while crawling (its address goes to stderr; docs/dashboard.md)')
    .option('--dashboard-host <addr>', 'address the dashboard binds (default 127.0.0.1; any other needs a token, generated if not given)')
    .option('--dashboard-port <n>', 'port of the dashboard (default 0: a free port)')
    .option(
      '--dashboard-token <token>',
      'token the dashboard requires (prefer SHOAL_CRAWL_DASHBOARD_TOKEN: flags show in the process list)',
    )
    .option('--metrics-port <n>', 'serve Prometheus metrics on http://127.0.0.1:N/metrics while crawling (0: any free port, printed)')
    .option('--metrics-host <ip>', 'address the metrics endpoint binds (default 127.0.0.1; others need --set metrics.allowRemote=true)')
    .option('--set <path=value>', 'set any option, e.g. --set order.query=computer (repeatable)', collect, [])
    .option('--config <file>', 'YAML or JSON configuration file (`shoal config --defaults --command crawl` prints every option)');
}

/**
 * Runs a crawl (of one node, of an embedded collaborative crawl, or one node of a distributed one)
 * with live progress on stderr, the summary on stdout, Ctrl-C stopping cleanly, and the exit code.
 * The opening line comes once the crawl has started (directory locked, seeds checked), so a crawl
 * refused for its configuration or its directory says only why. With `metrics.port` the Prometheus
 * endpoint serves from before the crawl starts to the end of the command.
 * @param isShown which progress events to show (by node id).
 */
export async function runCrawl(
  io: CliIo,
  setCode: (code: number) => void,
  command: string,
  config: CrawlConfig,
  isShown: (node: string) => boolean,
  run: (signal: AbortSignal) => Promise<CrawlSummary>,
): Promise<void> {
  // Counts every node's events in this thread: the endpoint serves it, and the progress line's latencies come from it.
  const metrics = new CrawlMetrics().listen();
  let server: MetricsServer | null = null;
  try {
    const { port } = config.metrics;
    if (port !== null) {
      // Loaded only here, like the dashboard: its HTTP framework is memory a crawl without it does not need.
      const { startMetricsServer } = await import('../../obs/metrics/metrics-server.js');
      server = await startMetricsServer(metrics, { ...config.metrics, port });
      io.err(`shoal ${command}: metrics on ${server.url}\n`);
    }
    await crawlAndReport(metrics, io, setCode, command, config, isShown, run);
  } finally {
    await server?.close();
    metrics.close();
  }
}

/** {@link runCrawl} once the metrics are counted: the crawl, its progress, summary and exit code. */
async function crawlAndReport(
  metrics: CrawlMetrics,
  ...[io, setCode, command, config, isShown, run]: Parameters<typeof runCrawl>
): Promise<void> {
  const controller = new AbortController();
  void io.interrupted.then((cause) => {
    if (!controller.signal.aborted)
      io.err(`\nshoal ${command}: stopping (${cause === 'output-closed' ? 'output closed' : 'Ctrl-C'}) ...\n`);
    controller.abort();
  });
  const isTty = io.isErrTty === true;
  /** The progress printed last as a line of its own (not on a terminal), for the rate of the next one. */
  let lastLine: { elapsedMs: number; pages: number } | null = null;
  let isLineOpen = false;
  const onProgress = (message: unknown): void => {
    const p = message as CrawlProgress;
    if (!isShown(p.node)) return;
    const latency = metrics.recentLatency();
    if (isTty) {
      io.err(`\r\x1b[2K${progressLine(p, { columns: io.errColumns?.(), latency })}`);
      isLineOpen = true;
    } else if (lastLine === null || p.elapsedMs - lastLine.elapsedMs >= PROGRESS_LINE_MS || p.stopReason !== null) {
      io.err(`${progressLine(p, { pagesPerSecond: rateSince(lastLine, p), latency })}\n`);
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
  let dashboard: Dashboard | null = null;
  try {
    dashboard = await startCrawlDashboard(config, io);
    const settings = io.nodeFlags === undefined ? null : processSettings(io.nodeFlags, io.env);
    if (settings !== null && !settings.isInEffect) {
      io.err(
        `shoal ${command}: node runs without the shoal command's memory settings (${settings.missing.join(', ')}): ` +
          'expect about half as much memory again; run the `shoal` command itself, or see docs/memory.md\n',
      );
    }
    try {
      summary = await run(controller.signal);
    } catch (err) {
      // Stopped before the crawl began (a broker still away, say): nothing was crawled, nothing is lost.
      if (!controller.signal.aborted) throw err;
      io.err(`shoal ${command}: stopped before the crawl began\n`);
      setCode(130);
      return;
    }
  } finally {
    progress.unsubscribe(onProgress);
    started.unsubscribe(onStarted);
    if (isLineOpen) io.err('\n');
    await dashboard?.close();
  }
  io.out(summaryText(summary, command));
  if (summary.cluster !== undefined && summary.stopReason !== 'interrupted') {
    // Against the truth when the crawl names one (coverage, accuracy and the geo and community scores need it).
    const truthDir = config.cluster.truthDir;
    const truth = truthDir === null ? null : await readTruth(truthDir);
    const crawled = await readCrawlForEval(summary.outDir, truth);
    const metrics = collaborationMetrics({
      nodes: crawled.nodes,
      links: crawled.links,
      ...(crawled.target === null ? {} : { target: crawled.target }),
    });
    const evalCommand = `shoal eval ${summary.outDir}${truthDir === null ? '' : ` --truth ${truthDir}`}`;
    io.out(`\ncollaboration (${evalCommand}):\n${formatCollabTable(metrics).trimEnd()}\n`);
    if (summary.cluster.partitioner.id === 'topic' || summary.cluster.partitioner.id === 'truth-topic') {
      const topic = await readTopicEval(summary.outDir, truth, crawled);
      if (topic.categorised > 0) io.out(formatTopicLines(topic));
    }
    const geoTargets = geoTargetsOfSpec(summary.cluster.partitioner, config.cluster.nodes);
    if (geoTargets !== null && truth !== null)
      io.out(formatGeoLines(await readGeoEval(summary.outDir, truth, { ...geoTargets, crawl: crawled })));
    const community = truth === null ? null : await readCommunityEval(summary.outDir, truth, crawled);
    if (community !== null) io.out(formatCommunityLines(community));
  }
  setCode(summary.stopReason === 'interrupted' ? 130 : 0);
}

export function registerCrawlCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  crawlOptions(
    program.command('crawl').description('crawl the Web from seed URLs, politely, into a crawl directory (WARC, CDXJ index, state)'),
  )
    .option('--nodes <n>', 'nodes of a collaborative crawl in this process, each owning a partition (default 1)')
    .option('--workers <n>', 'worker threads the nodes are spread over, so that several cores crawl (default 0: all on one thread)')
    .action(async (opts: CrawlFlags) => {
      const config = crawlConfigFromFlags(opts, io.env);
      const crawl = new Crawl(config);
      await runCrawl(
        io,
        setCode,
        'crawl',
        config,
        (node) => node === config.nodeId,
        (signal) => crawl.run(signal),
      );
    });
}
