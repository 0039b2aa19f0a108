/**
 * A running dashboard: the {@link DashboardServer} over a {@link DashboardAggregator}, a point added
 * to the series and a snapshot sent to every open page each `intervalMs`. The timer is unref'd and
 * `close()` sends a last snapshot, then closes every connection: the dashboard never keeps a process
 * alive, and a crawl that ends ends its dashboard.
 */
import { dashboardAccess, type DashboardAccess } from './dashboard-access.js';
import type { DashboardAggregator } from './dashboard-aggregator.js';
import { DashboardServer } from './dashboard-server.js';

/** Where the dashboard listens and who may read it (the crawl configuration's `dashboard` section). */
export interface DashboardSettings {
  /** Address to bind; any but loopback needs a token (one is generated when `token` is null). */
  readonly host: string;
  /** Port; 0 = a free one. */
  readonly port: number;
  /** Token every request must carry; null = none on loopback, generated elsewhere. */
  readonly token: string | null;
}

/** Options of {@link startDashboard}. */
export interface StartDashboardOptions {
  readonly aggregator: DashboardAggregator;
  /** Ms between snapshots; default 1,000. */
  readonly intervalMs?: number;
  /** Wall clock, ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Called when the dashboard closes (after its last snapshot): unsubscribe sources here. */
  readonly onClose?: () => Promise<void> | void;
}

/** A dashboard being served. */
export interface Dashboard {
  /** The page's URL, with `?token=` when there is a token. */
  readonly url: string;
  readonly port: number;
  readonly access: DashboardAccess;
  /** Sends a last snapshot and stops serving. Idempotent. */
  close(): Promise<void>;
}

/** How long `close` waits for the last snapshot to be written, ms. */
const LAST_SNAPSHOT_WAIT_MS = 500;

/** Serves the dashboard; see the file comment. @throws ShoalError `PORT_UNAVAILABLE` when it cannot listen. */
export async function startDashboard(settings: DashboardSettings, options: StartDashboardOptions): Promise<Dashboard> {
  const now = options.now ?? Date.now;
  const { aggregator } = options;
  const access = dashboardAccess(settings.host, settings.token);
  const server = new DashboardServer({ host: settings.host, port: settings.port, access, state: () => aggregator.snapshot(now()) });
  const { url, port } = await server.start();
  const timer = setInterval(() => {
    aggregator.sample(now());
    void server.broadcast();
  }, options.intervalMs ?? 1_000);
  timer.unref();
  let closing: Promise<void> | null = null;
  const shutdown = async (): Promise<void> => {
    clearInterval(timer);
    await options.onClose?.();
    aggregator.sample(now());
    await Promise.race([server.broadcast(), new Promise((resolve) => setTimeout(resolve, LAST_SNAPSHOT_WAIT_MS).unref())]);
    await server.close();
  };
  return {
    url,
    port,
    access,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}
