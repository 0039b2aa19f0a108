/**
 * Graph (a) of `npm run experiment:cho`: a synthetic test web of 124,567 pages. Its ground truth is
 * exported once into the cache (reused while its manifest is there) and read back with the pages
 * rebuilt, so titles, text and anchors are what a crawl of that web would parse.
 */
import { loadTruthGraph } from '../../src/sim/graph/truth-graph.js';
import type { SimGraph } from '../../src/sim/graph/sim-graph.js';
import type { WebConfigInput } from '../../src/web/config.js';

/**
 * The test web: 1,500 hosts sharing 124,567 pages (`pages` spread over the hosts, then the copies
 * served by its exact mirror hosts; the generator's power-law host sizes, topics and in-degrees),
 * one seed (the home page of the largest host; the paper started from one page), every other knob at
 * its default (faults, duplicates, languages, nofollow).
 */
export const TEST_WEB_CONFIG = {
  seed: 1,
  hosts: 1_500,
  pages: 120_000,
  seeds: 1,
  server: { addressCount: 128 },
} as const satisfies WebConfigInput;

/** The truth graph with its pages rebuilt on demand (titles, text, anchors). */
export function loadTestWebGraph(dir: string): Promise<SimGraph> {
  return loadTruthGraph(dir, { rebuildContent: true });
}
