/**
 * What the web bench measures: the test-web configurations the server child runs, and the load
 * scenarios run against them.
 */
import type { WebConfigInput } from '../../src/web/config.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import type { AddressMode } from './protocol.js';

const LARGE = WEB_PRESETS.large;

/** Small pages, no compression, no slow hosts: what a crawler benchmark would serve. */
function smallPages(renderCacheBytes: number): WebConfigInput {
  return {
    ...LARGE,
    content: { minWords: 60, maxWords: 200 },
    links: { meanOutDegree: 8 },
    server: { ...LARGE.server, proxyPort: 0, renderCacheBytes },
    encoding: { gzipRate: 0, brotliRate: 0 },
    latency: { slowHostRate: 0 },
  };
}

/** A test web the server child can run. */
export interface ServerSpec {
  readonly config: WebConfigInput;
  /**
   * Fill the server's request log up to its limit before serving, to measure the steady state of a
   * long crawl (the log keeps the last `server.requestLogLimit` requests, 200,000 by default).
   */
  readonly fillRequestLog: boolean;
}

/** Test webs the server child can run (the forward proxy is on in all: it is one more listener). */
export const SERVER_SPECS = {
  /** The `large` preset as configured (10k hosts, 1M pages, 128 MiB render cache). */
  large: { config: { ...LARGE, server: { ...LARGE.server, proxyPort: 0 } }, fillRequestLog: false },
  'small-cold': { config: smallPages(0), fillRequestLog: false },
  'small-warm': { config: smallPages(LARGE.server.renderCacheBytes), fillRequestLog: false },
  'small-warm-log-full': { config: smallPages(LARGE.server.renderCacheBytes), fillRequestLog: true },
} as const satisfies Record<string, ServerSpec>;

/** Name of a server configuration. */
export type ServerSpecName = keyof typeof SERVER_SPECS;

/** Whether a string names a server configuration. */
export function isServerSpecName(name: string | undefined): name is ServerSpecName {
  return name !== undefined && Object.hasOwn(SERVER_SPECS, name);
}

/** One load scenario: which server, which pages, reached how. */
export interface LoadScenario {
  readonly id: string;
  readonly title: string;
  readonly server: ServerSpecName;
  /** Distinct pages cycled through (the working set). */
  readonly pages: number;
  readonly excludeSlowHosts: boolean;
  readonly modes: readonly AddressMode[];
}

/** The scenarios, grouped by server so each server child is built once. */
export const LOAD_SCENARIOS: readonly LoadScenario[] = [
  { id: 'default-cold', title: 'default pages, cold', server: 'large', pages: 50_000, excludeSlowHosts: true, modes: ['proxy', 'direct'] },
  { id: 'small-cold', title: 'small pages, cold', server: 'small-cold', pages: 50_000, excludeSlowHosts: true, modes: ['proxy', 'direct'] },
  { id: 'small-warm', title: 'small pages, warm', server: 'small-warm', pages: 2_000, excludeSlowHosts: true, modes: ['proxy', 'direct'] },
  {
    id: 'small-warm-log-full',
    title: 'small pages, warm, request log full',
    server: 'small-warm-log-full',
    pages: 2_000,
    excludeSlowHosts: true,
    modes: ['proxy'],
  },
];
