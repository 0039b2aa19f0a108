/** The Frontier contract (frontier-contract.ts) against MemoryFrontier. */
import { MemoryFrontier } from '../../src/frontier/memory-frontier.js';
import { frontierContract } from './frontier-contract.js';

frontierContract('memory', {
  make: async (politeness) => ({ frontier: new MemoryFrontier(politeness), close: async () => undefined }),
});
