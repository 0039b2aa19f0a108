/**
 * Preset test webs: `tiny` for tests, `demo` (~200 hosts, 20k pages) for `npm run demo`, `large`
 * (10k hosts, 1M pages) for benchmarks, `community` (the ring-community graph of SPEC §4.4 with
 * the paper's setting: 17 communities of 100 pages, k = 32, o = 2), and `hostile` (6 hosts, 150
 * pages: two slow-drip pages, an open endless pagination chain and a host that refuses
 * connections, each placed by host so that every seed has them). A preset is a partial config;
 * files and flags apply over it.
 */
import type { WebConfigInput } from './config.js';

/**
 * Every Web fault a test web draws by default turned off (no redirects, errors, resets, oversized
 * bodies or compression bombs; hangs are off by default), so that every ordinary page answers 200.
 */
export const NO_FAULTS = Object.freeze({
  redirectRate: 0,
  redirectLoopRate: 0,
  notFoundRate: 0,
  goneRate: 0,
  serverErrorRate: 0,
  unavailableRate: 0,
  resetRate: 0,
  oversizedRate: 0,
  bombRate: 0,
});

export const WEB_PRESETS = {
  tiny: { hosts: 12, pages: 600, seeds: 3, server: { addressCount: 4 } },
  demo: { hosts: 200, pages: 20_000, seeds: 10, server: { addressCount: 64 } },
  large: { hosts: 10_000, pages: 1_000_000, seeds: 50, server: { addressCount: 250, renderCacheBytes: 128 * 1024 * 1024 } },
  community: {
    links: { model: 'community' },
    community: { count: 17, size: 100, k: 32, o: 2 },
    seeds: 17,
    server: { addressCount: 17 },
    faults: NO_FAULTS,
    duplicates: { nearDuplicateRate: 0, mirrorHostRate: 0 },
    robots: { rulesRate: 0, serverErrorRate: 0, unavailableRate: 0, redirectRate: 0, garbageRate: 0 },
    meta: { noindexRate: 0, nofollowRate: 0 },
  },
  hostile: {
    hosts: 6,
    pages: 150,
    seeds: 2,
    server: { addressCount: 3 },
    latency: { slowHostRate: 0 },
    // A listed host must not be a mirror (it would copy its original's pages and trap).
    duplicates: { mirrorHostRate: 0 },
    faults: {
      dripPages: [
        { host: 1, page: 5 },
        { host: 1, page: 20 },
      ],
      refusingHosts: [3],
    },
    traps: { hostRate: 0, robotsDisallowRate: 0, hosts: [{ host: 2, kind: 'pagination' }] },
  },
} as const satisfies Record<string, WebConfigInput>;

export type WebPresetName = keyof typeof WEB_PRESETS;

/** The names of the presets, for messages. */
export const WEB_PRESET_NAMES = Object.keys(WEB_PRESETS) as WebPresetName[];
