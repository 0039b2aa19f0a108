/**
 * The Exchange contract (exchange-contract.ts) against NatsExchange on a private nats-server.
 *
 * Each test of the suite is one crawl: a crawl id per test context, so every "process" the suite
 * starts within a test (each `makeTransport` call) shares the stream and consumers of that crawl on
 * the one server, and tests do not see each other's messages.
 */
import type { TestContext } from 'node:test';
import { NatsExchange } from '../../src/exchange/nats/nats-exchange.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { exchangeContract } from './exchange-contract.js';

const server = await startNatsServer();
const crawlIds = new WeakMap<TestContext, string>();
let crawls = 0;

exchangeContract('nats', async (t) => {
  const crawlId = crawlIds.get(t) ?? `contract${++crawls}`;
  crawlIds.set(t, crawlId);
  return {
    endpoint: (nodeId, outboxDir) => new NatsExchange({ servers: [server.url], crawlId, nodeId, outboxDir }),
    close: async () => undefined,
  };
});
