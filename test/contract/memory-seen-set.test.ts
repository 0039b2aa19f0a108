/** The SeenSet contract (seen-set-contract.ts) against MemorySeenSet, from a table that must grow. */
import { MemorySeenSet } from '../../src/seen/memory-seen-set.js';
import { seenSetContract } from './seen-set-contract.js';

seenSetContract('memory', { make: async () => new MemorySeenSet({ initialCapacity: 1 }) });
