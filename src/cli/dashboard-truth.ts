/**
 * The test web's truth as the dashboard reads it (src/obs/dashboard/truth-coverage.ts): the pages a
 * polite crawler reaches from the seeds (the export's `reach` column, the target T of `shoal eval`'s
 * coverage) and their PageRank, for coverage as the crawl grows.
 */
import type { DashboardTruth } from '../obs/dashboard/truth-coverage.js';
import { Reach } from '../web/truth/format.js';
import { readTruth } from '../web/truth/read.js';

/** Reads the truth export in `dir`. @throws ShoalError `TRUTH_FORMAT` for an unreadable one. */
export async function readDashboardTruth(dir: string): Promise<DashboardTruth> {
  const truth = await readTruth(dir);
  let reachable = 0;
  let reachableWeight = 0;
  for (let p = 0; p < truth.pageCount; p++) {
    if (truth.reach[p] !== Reach.polite) continue;
    reachable++;
    reachableWeight += truth.pagerank[p] as number;
  }
  return {
    reachable,
    reachableWeight,
    reachablePageOf: (url) => {
      const p = truth.pageIdOf(url);
      return p >= 0 && truth.reach[p] === Reach.polite ? p : -1;
    },
    weightOf: (page) => truth.pagerank[page] ?? 0,
  };
}
