/**
 * `shoal crawl --dashboard` and `shoal node --dashboard`: the dashboard of the crawl running in this
 * process, fed by its diagnostics channels (src/obs/dashboard/channel-source.ts), with the test web's
 * coverage when the crawl names a truth. Its address goes to stderr at start.
 */
import { basename } from 'node:path';
import type { CrawlConfig } from '../config/crawl-config.js';
import { listenToChannels } from '../obs/dashboard/channel-source.js';
import { DashboardAggregator } from '../obs/dashboard/dashboard-aggregator.js';
import type { Dashboard, DashboardSettings } from '../obs/dashboard/dashboard.js';
import type { CliIo } from './cli-io.js';
import { readDashboardTruth } from './dashboard-truth.js';

/** Starts the dashboard of the crawl `config` describes, or returns null when it is not enabled. */
export async function startCrawlDashboard(config: CrawlConfig, io: Pick<CliIo, 'err'>): Promise<Dashboard | null> {
  if (!config.dashboard.enabled) return null;
  const truth = config.cluster.truthDir === null ? null : await readDashboardTruth(config.cluster.truthDir);
  const outDir = config.store.outDir;
  const aggregator = new DashboardAggregator({
    crawlId: config.cluster.nats.crawlId ?? (outDir === null ? config.nodeId : basename(outDir)),
    source: 'local',
    crawlNode: config.nodeId,
    outDir,
    truth,
  });
  const now = Date.now;
  const stop = listenToChannels(aggregator, now);
  try {
    // Loaded only here: its web server's modules cost a crawl without a dashboard memory for nothing.
    const { startDashboard } = await import('../obs/dashboard/dashboard.js');
    const dashboard = await startDashboard(config.dashboard, { aggregator, now, onClose: stop });
    announceDashboard(io, dashboard, config.dashboard);
    return dashboard;
  } catch (err) {
    stop();
    throw err;
  }
}

/** Prints where the dashboard is: with its token when it was generated here, since nobody else knows it. */
export function announceDashboard(io: Pick<CliIo, 'err'>, dashboard: Dashboard, settings: DashboardSettings): void {
  const bare = dashboard.url.replace(/\?token=.*$/, '');
  if (dashboard.access.token === null) io.err(`shoal: dashboard on ${bare}\n`);
  else if (dashboard.access.isGenerated)
    io.err(
      `shoal: dashboard on ${dashboard.url} (${settings.host} is not loopback: a token was generated; anyone with this URL can read the crawl)\n`,
    );
  else io.err(`shoal: dashboard on ${bare} (token required: the one given)\n`);
}
