/**
 * Pieces shared by the kill -9 and resume tests (test/e2e/crawl-resume.test.ts for one node,
 * test/e2e/collab-resume.test.ts for a collaborative crawl): a run killed after so many page
 * requests, a run to the end, the pages a polite crawler reaches that were never requested, and the
 * pages requested again after the kill.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { RequestRecord } from '../../src/web/request-log.js';
import type { TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { Reach } from '../../src/web/truth/format.js';
import { readTruth } from '../../src/web/truth/read.js';
import { runNode, type CliRun } from './cli.js';

/** A page request (robots.txt and its redirects are not pages). */
export const isPage = (r: RequestRecord): boolean => !r.path.startsWith('/robots');

const keyOf = (r: RequestRecord): string => `${r.host}${r.path}`;

/** Runs `node args`, SIGKILLs it once the web has answered `pages` page requests; resolves to the signal that ended it. */
export async function runKilledAfter(web: TestWeb, args: readonly string[], pages: number): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let seen = 0;
  const unsubscribe = web.log.subscribe((r) => {
    if (isPage(r) && ++seen === pages) child.kill('SIGKILL');
  });
  try {
    return await new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  } finally {
    unsubscribe();
  }
}

/** Runs `node args` to its end. */
export function runToEnd(args: readonly string[]): Promise<CliRun> {
  return runNode(args);
}

/** The pages a polite crawler reaches (the truth's `reach` = 2) that the web's log never saw requested. */
export async function unrequestedReachablePages(web: TestWeb, truthDir: string): Promise<string[]> {
  await exportTruth(web.model, truthDir, { port: web.port });
  const truth = await readTruth(truthDir);
  const requested = new Set(web.log.entries().filter(isPage).map(keyOf));
  const missing: string[] = [];
  for (let g = 0; g < web.model.pageCount; g++) {
    const key = `${web.model.hostOf(g).name}${web.model.path(g)}`;
    if (truth.reach[g] === Reach.polite && !requested.has(key)) missing.push(key);
  }
  return missing;
}

/**
 * Pages answered for good before the kill (the first `firstRun` requests) and requested again after
 * it, and the most that may be: the leases in flight when the kill came, at most the fetch slots
 * (everything completed since the last checkpoint is recovered from the crawl log, not fetched again).
 */
export function refetchesAfterKill(web: TestWeb, firstRun: number, slots: number): { refetched: number; window: number } {
  const requests = web.log.entries();
  const runOne = requests.slice(0, firstRun).filter(isPage);
  const finalBefore = new Set(runOne.filter((r) => r.status > 0 && r.status < 500).map(keyOf));
  const refetched = requests.slice(firstRun).filter((r) => isPage(r) && finalBefore.has(keyOf(r))).length;
  return { refetched, window: slots };
}

/** Where the truth of `dir`'s test web is exported. */
export const truthDirOf = (dir: string): string => join(dir, 'truth');
