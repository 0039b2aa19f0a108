/**
 * The SeenSet contract (seen-set-contract.ts) against StagedSeenSet (src/node/durability/), the set
 * a node with a crash-safe frontier uses, over a DiskSeenSet in a directory of its own (small
 * buffer and cache, as in disk-seen-set.test.ts).
 *
 * It reports `isDurable` false: its flush() and close() make nothing durable; fingerprints reach
 * the durable set only through seal() and promote() at a frontier checkpoint, which
 * test/unit/node/ tests with the checkpoint itself. So the suite runs without the reopen part.
 */
import { join } from 'node:path';
import { StagedSeenSet } from '../../src/node/durability/staged-seen-set.js';
import { DiskSeenSet } from '../../src/seen/disk-seen-set.js';
import type { SeenSet } from '../../src/seen/seen-set.js';
import { scratchDirs } from '../helpers/scratch.js';
import { seenSetContract } from './seen-set-contract.js';

const { root } = scratchDirs('shoal-staged-contract-');
let dirs = 0;
const durables = new WeakMap<SeenSet, DiskSeenSet>();

function open(dir: string): StagedSeenSet {
  const durable = new DiskSeenSet({ dir, bufferEntries: 700, cacheEntries: 64 });
  const set = new StagedSeenSet(durable);
  durables.set(set, durable);
  return set;
}

seenSetContract('staged', {
  make: async () => open(join(root, `s${++dirs}`)),
  settle: async (set) => durables.get(set)?.settled(),
});
