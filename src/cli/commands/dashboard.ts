/**
 * `shoal dashboard --nats URL --crawl ID`: the live dashboard of a distributed crawl, from the
 * statistics every node publishes in the crawl's NATS bucket (src/obs/dashboard/nats-source.ts). It
 * joins nothing and writes nothing; it may start before the broker or the nodes, and it ends once
 * every node it saw has left (or on Ctrl-C). NATS credentials and TLS, and the dashboard's address
 * and token, come from the same configuration as the nodes' (`cluster.nats.*`, `dashboard.*`).
 * Exit codes: 0 the crawl ended, 2 bad configuration, 130 interrupted.
 */
import type { Command } from 'commander';
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { applySets, loadConfig, setPath, type ConfigTree } from '../../config/load.js';
import { CRAWL_ENV_PREFIX, crawlConfigSchema, type CrawlConfig } from '../../config/crawl-config.js';
import { NatsCrawlReader } from '../../exchange/nats/nats-crawl-reader.js';
import { DashboardAggregator } from '../../obs/dashboard/dashboard-aggregator.js';
import { startDashboard } from '../../obs/dashboard/dashboard.js';
import { pollNatsCrawl } from '../../obs/dashboard/nats-source.js';
import type { CliIo } from '../cli-io.js';
import { announceDashboard } from '../crawl-dashboard.js';
import { collect } from '../format.js';

interface DashboardFlags {
  nats: string[];
  crawl?: string;
  dashboardHost?: string;
  dashboardPort?: string;
  dashboardToken?: string;
  set: string[];
  config?: string;
}

/** The configuration: the file, the environment, then the flags; every problem at once. */
function dashboardConfig(flags: DashboardFlags, env: Readonly<Record<string, string | undefined>>): CrawlConfig {
  const tree: ConfigTree = {};
  const problems: ConfigIssue[] = [];
  if (flags.nats.length > 0) setPath(tree, 'cluster.nats.servers', flags.nats);
  if (flags.crawl !== undefined) setPath(tree, 'cluster.nats.crawlId', flags.crawl);
  if (flags.dashboardHost !== undefined) setPath(tree, 'dashboard.host', flags.dashboardHost);
  if (flags.dashboardPort !== undefined) {
    const port = Number(flags.dashboardPort);
    if (flags.dashboardPort.trim() === '' || !Number.isInteger(port))
      problems.push({ path: '--dashboard-port', message: `expected a whole number, got ${JSON.stringify(flags.dashboardPort)}` });
    else setPath(tree, 'dashboard.port', port);
  }
  if (flags.dashboardToken !== undefined) setPath(tree, 'dashboard.token', flags.dashboardToken);
  applySets(tree, flags.set, problems);
  const config = loadConfig(crawlConfigSchema, { file: flags.config, env, envPrefix: CRAWL_ENV_PREFIX, flags: tree });
  if (config.cluster.nats.servers.length === 0) problems.push({ path: '--nats', message: 'the NATS server of the crawl is required' });
  if (config.cluster.nats.crawlId === null) problems.push({ path: '--crawl', message: 'the crawl to watch is required' });
  if (problems.length > 0) throw new ConfigError(problems, { code: 'USAGE' });
  return config;
}

type NatsConfig = CrawlConfig['cluster']['nats'];

function readerAuth(n: NatsConfig): { user?: string; pass?: string; token?: string; credsFile?: string } | undefined {
  const auth = {
    ...(n.user === null ? {} : { user: n.user }),
    ...(n.pass === null ? {} : { pass: n.pass }),
    ...(n.token === null ? {} : { token: n.token }),
    ...(n.credsFile === null ? {} : { credsFile: n.credsFile }),
  };
  return Object.keys(auth).length === 0 ? undefined : auth;
}

function readerTls(n: NatsConfig): { caFile?: string; certFile?: string; keyFile?: string } | undefined {
  const tls = {
    ...(n.caFile === null ? {} : { caFile: n.caFile }),
    ...(n.certFile === null ? {} : { certFile: n.certFile }),
    ...(n.keyFile === null ? {} : { keyFile: n.keyFile }),
  };
  return n.tls || Object.keys(tls).length > 0 ? tls : undefined;
}

export function registerDashboardCommand(program: Command, io: CliIo, setCode: (code: number) => void): void {
  program
    .command('dashboard')
    .description('the live dashboard of a distributed crawl, from the statistics its nodes publish over NATS (read-only)')
    .option('--nats <url>', 'NATS server of the crawl (repeatable; credentials and TLS: cluster.nats.* options)', collect, [])
    .option('--crawl <id>', 'the crawl to watch (as given to shoal node --crawl)')
    .option('--dashboard-host <addr>', 'address to bind (default 127.0.0.1; any other needs a token, generated if not given)')
    .option('--dashboard-port <n>', 'port (default 0: a free port)')
    .option('--dashboard-token <token>', 'token the dashboard requires (prefer SHOAL_CRAWL_DASHBOARD_TOKEN)')
    .option('--set <path=value>', 'set any option, e.g. --set cluster.nats.user=shoal (repeatable)', collect, [])
    .option('--config <file>', 'the crawl’s YAML or JSON configuration file (its cluster.nats and dashboard sections are read)')
    .action(async (opts: DashboardFlags) => {
      const config = dashboardConfig(opts, io.env);
      const nats = config.cluster.nats;
      const crawlId = nats.crawlId as string;
      const stopped = io.interrupted;
      const aggregator = new DashboardAggregator({ crawlId, source: 'nats' });
      const reader = new NatsCrawlReader({
        servers: nats.servers,
        crawlId,
        ...(readerAuth(nats) === undefined ? {} : { auth: readerAuth(nats) }),
        ...(readerTls(nats) === undefined ? {} : { tls: readerTls(nats) }),
      });
      const dashboard = await startDashboard(config.dashboard, { aggregator });
      try {
        announceDashboard(io, dashboard, config.dashboard);
        io.err(`shoal dashboard: watching crawl ${crawlId} on ${nats.servers.join(', ')}; Ctrl-C stops\n`);
        const connected = await Promise.race([reader.connect().then(() => true), stopped.then(() => false)]);
        if (!connected) {
          setCode(130);
          return;
        }
        let lastError = '';
        const poll = pollNatsCrawl(reader, aggregator, {
          onError: (err) => {
            const text = String(err);
            if (text !== lastError) io.err(`shoal dashboard: ${text} (trying again)\n`);
            lastError = text;
          },
        });
        const outcome = await Promise.race([poll.over.then(() => 'over' as const), stopped.then(() => 'interrupted' as const)]);
        await poll.stop();
        if (outcome === 'over') io.err(`shoal dashboard: every node of crawl ${crawlId} has left; closing\n`);
        setCode(outcome === 'over' ? 0 : 130);
      } finally {
        await dashboard.close();
        await reader.close();
      }
    });
}
