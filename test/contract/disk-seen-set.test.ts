/**
 * The SeenSet contract (seen-set-contract.ts) against DiskSeenSet, each set in a directory of its
 * own. A tiny buffer and cache make the suite's batches merge into sorted runs and evict from the
 * cache, so answers come from every layer.
 */
import { join } from 'node:path';
import { DiskSeenSet } from '../../src/seen/disk-seen-set.js';
import type { SeenSet } from '../../src/seen/seen-set.js';
import { scratchDirs } from '../helpers/scratch.js';
import { seenSetContract } from './seen-set-contract.js';

const { root } = scratchDirs('shoal-seen-contract-');
let dirs = 0;

const open = (dir: string): DiskSeenSet => new DiskSeenSet({ dir, bufferEntries: 700, cacheEntries: 64 });

seenSetContract('disk', {
  make: async () => open(join(root, `s${++dirs}`)),
  reopen: async (old: SeenSet) => open((old as DiskSeenSet).dir),
  settle: (set: SeenSet) => (set as DiskSeenSet).settled(),
});
