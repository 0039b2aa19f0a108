/**
 * The `metrics` section of the crawl configuration: the Prometheus endpoint `shoal crawl` and
 * `shoal node` serve while they run (docs/observability.md). Off unless a port is given. It binds
 * loopback by default, and any other address only when asked in so many words (`allowRemote`): the
 * endpoint has no authentication, and a crawl's figures are nobody else's business by default.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { AddressKind, classifyAddress } from '../fetch/address-guard.js';
import { count } from './units.js';

/** The address the endpoint binds by default. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** Why `host` may not be bound with `allowRemote` as given; null when it may. */
export function metricsBindProblem(host: string, allowRemote: boolean): string | null {
  if (isIP(host) === 0) return `expected an IP address such as ${DEFAULT_METRICS_HOST} or ::1, got ${JSON.stringify(host)}`;
  if (allowRemote || classifyAddress(host) === AddressKind.loopback) return null;
  return `${host} is not a loopback address: set metrics.allowRemote to serve /metrics (without authentication) beyond this machine`;
}

/** The `metrics` section: `port` null (off), `host` loopback, `allowRemote` false by default. */
export const metricsSchema = z
  .strictObject({
    port: count('port')
      .max(65_535)
      .nullable()
      .default(null)
      .describe(
        'TCP port of the Prometheus endpoint /metrics while the crawl runs (--metrics-port); 0 = any free port (the URL is printed); null = off',
      ),
    host: z
      .string()
      .default(DEFAULT_METRICS_HOST)
      .describe('IP address the metrics endpoint binds (--metrics-host); an address other than loopback needs allowRemote'),
    allowRemote: z
      .boolean()
      .default(false)
      .describe(
        'let host be an address other than loopback: whoever reaches it reads the crawl’s figures (counts and rates, no URLs or host names), without authentication',
      ),
  })
  .superRefine((m, ctx) => {
    const problem = metricsBindProblem(m.host, m.allowRemote);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['host'], message: problem });
  })
  .prefault({})
  .describe('the Prometheus metrics endpoint of shoal crawl and shoal node (docs/observability.md)');

/** A validated `metrics` section. */
export type MetricsConfig = z.output<typeof metricsSchema>;
