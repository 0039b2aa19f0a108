/**
 * The Frontier contract (frontier-contract.ts) against PersistentFrontier, each frontier in a
 * directory of its own. Tiny staging buffers and segments make the log write, rotate and compact
 * within the suite's few URLs. `reopen` flushes (the node's checkpoint), closes and opens a new
 * frontier on the same directory with the default `resumeDelayMs` (the default `minDelayMs`).
 */
import { join } from 'node:path';
import { DEFAULT_POLITENESS, type PolitenessOptions } from '../../src/frontier/frontier.js';
import { PersistentFrontier } from '../../src/frontier-store/persistent-frontier.js';
import { scratchDirs } from '../helpers/scratch.js';
import { frontierContract, type FrontierUnderTest } from './frontier-contract.js';

const { root } = scratchDirs('shoal-frontier-contract-');
let dirs = 0;

async function openAt(
  dir: string,
  politeness: PolitenessOptions,
): Promise<FrontierUnderTest & { readonly dir: string; readonly politeness: PolitenessOptions }> {
  const frontier = new PersistentFrontier({ ...politeness, stageBytes: 64, segmentBytes: 4096, compactBytesPerFlush: 4096 });
  await frontier.open(dir);
  return { frontier, dir, politeness, close: () => frontier.close() };
}

const opened = new WeakMap<FrontierUnderTest, { readonly dir: string; readonly politeness: PolitenessOptions }>();

frontierContract('persistent', {
  make: async (politeness = {}) => {
    const under = await openAt(join(root, `f${++dirs}`), politeness);
    opened.set(under, under);
    return under;
  },
  reopen: async (old) => {
    const where = opened.get(old);
    if (where === undefined) throw new Error('reopen: not a frontier of this factory');
    await (old.frontier as PersistentFrontier).flush();
    await old.close();
    const under = await openAt(where.dir, where.politeness);
    opened.set(under, under);
    return under;
  },
  resumeDelayMs: DEFAULT_POLITENESS.minDelayMs,
});
