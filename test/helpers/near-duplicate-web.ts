/**
 * The test web of the near-duplicate e2e tests and its truth: 800 pages on 12 hosts, 15 % of them
 * near-duplicates and 10 % of the hosts mirrors, without traps, slow hosts or Crawl-delay, so that a
 * short crawl meets many copies. `familyOf` names a page's truth family (an original and its copies
 * share one; -1 for a URL the web does not serve).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { truthFamilies } from '../../src/eval/near-duplicates.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { readTruth, type Truth } from '../../src/web/truth/read.js';

/** A running near-duplicate web, a temporary directory holding its truth, and the families. */
export interface NearDuplicateWeb {
  readonly web: TestWeb;
  /** A fresh temporary directory (the truth is in `truth/`), removed by `close`. */
  readonly dir: string;
  readonly truth: Truth;
  familyOf(url: string): number;
  close(): Promise<void>;
}

/** Starts the web; `prefix` names its temporary directory. */
export async function startNearDuplicateWeb(prefix: string): Promise<NearDuplicateWeb> {
  const web = await startTestWeb({
    seed: 5,
    hosts: 12,
    pages: 800,
    seeds: 4,
    server: { addressCount: 12 },
    duplicates: { nearDuplicateRate: 0.15, mirrorHostRate: 0.1 },
    traps: { hostRate: 0 },
    latency: { slowHostRate: 0 },
    robots: { crawlDelayRate: 0 },
  });
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
    const truth = await readTruth(join(dir, 'truth'));
    const family = truthFamilies(truth.dupOf);
    return {
      web,
      dir,
      truth,
      familyOf: (url) => {
        const g = truth.pageIdOf(url);
        return g < 0 ? -1 : (family[g] as number);
      },
      close: async () => {
        await web.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await web.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
