/**
 * The crawl's key-value buckets on a private nats-server: members join, renew and leave; a dead
 * member's entry and partition claims expire after the bucket's TTL (short here: 1.5 s); the
 * configuration is created once and compared afterwards; live statistics are shared.
 *
 * The expiry tests poll for the expiry's consequence (the entry gone, the partition free): the server
 * removes an expired entry without a notification a watcher could wait for.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect } from '@nats-io/transport-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShoalError } from '../../../src/core/errors.js';
import { NatsExchange } from '../../../src/exchange/nats/nats-exchange.js';
import {
  NatsMembership,
  PartitionClaimedError,
  type Member,
  type NatsMembershipOptions,
} from '../../../src/exchange/nats/nats-membership.js';
import { startNatsServer } from '../../helpers/nats-server.js';
import { waitUntil } from '../../helpers/wait.js';

const TTL_MS = 1_500;
/** Heartbeats only when the test asks (timer far beyond the test), unless a test sets its own. */
const MANUAL: NatsMembershipOptions = { ttlMs: TTL_MS, heartbeatMs: 60_000 };
/** Far above the TTL plus the server's expiry pass: only an entry that never expires reaches it. */
const EXPIRY_WAIT_MS = TTL_MS + 10_000;

const server = await startNatsServer();
const nc = await connect({ servers: server.url });
const root = mkdtempSync(join(tmpdir(), 'shoal-nats-membership-'));
after(async () => {
  await nc.close();
  rmSync(root, { recursive: true, force: true });
});

let crawlCounter = 0;
/** A fresh crawl id per test, so buckets never carry state from one test to the next. */
function crawlId(): string {
  return `m${++crawlCounter}`;
}

describe('NatsMembership', () => {
  it('lists members with their partitions, host and pid, and refuses a partition a live member holds', async () => {
    const id = crawlId();
    const a = new NatsMembership(nc, id, 'node-a', { ...MANUAL, host: 'host-a', pid: 11 });
    const b = new NatsMembership(nc, id, 'node-b', { ...MANUAL, host: 'host-b', pid: 22 });
    await a.join([0, 2]);
    await b.join([1]);
    const members = await a.members();
    assert.deepEqual(
      members.map((m) => [m.nodeId, m.partitions, m.host, m.pid]),
      [
        ['node-a', [0, 2], 'host-a', 11],
        ['node-b', [1], 'host-b', 22],
      ],
    );
    assert.ok(members.every((m) => m.startedAtMs > 0 && m.heartbeatAtMs >= m.startedAtMs));

    const c = new NatsMembership(nc, id, 'node-c', MANUAL);
    await assert.rejects(c.join([3, 2]), (err: unknown) => {
      assert.ok(err instanceof PartitionClaimedError);
      assert.equal(err.code, 'EXCHANGE_UNAVAILABLE');
      assert.equal(err.partition, 2);
      assert.equal(err.holder, 'node-a');
      assert.match(err.message, /partition 2 is held by live node "node-a"/);
      return true;
    });
    // All or nothing: partition 3, claimed before the refusal, was released again.
    const d = new NatsMembership(nc, id, 'node-d', MANUAL);
    await d.join([3]);
    assert.deepEqual(
      (await a.members()).map((m) => m.nodeId),
      ['node-a', 'node-b', 'node-d'],
    );
    await Promise.all([a.leave(), b.leave(), d.leave()]);
  });

  it('keeps a member alive with heartbeats past the TTL, and removes it at once when it leaves', async () => {
    const id = crawlId();
    const a = new NatsMembership(nc, id, 'node-a', { ttlMs: TTL_MS, heartbeatMs: 300 });
    await a.join([0]);
    // Listed at every look until a heartbeat renewed the entry a whole TTL after it was first written.
    await waitUntil(
      async () => {
        const members = await a.members();
        assert.deepEqual(
          members.map((m) => m.nodeId),
          ['node-a'],
          'the member is listed all along',
        );
        const [member] = members as [Member];
        return member.heartbeatAtMs > member.startedAtMs + TTL_MS;
      },
      { what: 'a heartbeat one TTL after joining', timeoutMs: EXPIRY_WAIT_MS, intervalMs: 250 },
    );

    await a.leave();
    assert.deepEqual(await a.members(), []);
    // Its claim went with it: another node takes partition 0 without waiting for the TTL.
    const b = new NatsMembership(nc, id, 'node-b', MANUAL);
    await b.join([0]);
    assert.deepEqual(b.partitions, [0]);
    await b.leave();
  });

  it('lets a dead member expire after the TTL, then its partitions can be claimed', async () => {
    const id = crawlId();
    const dead = new NatsMembership(nc, id, 'node-dead', MANUAL);
    await dead.join([5]);
    dead.destroy();
    const other = new NatsMembership(nc, id, 'node-other', MANUAL);
    await assert.rejects(other.join([5]), PartitionClaimedError);
    assert.deepEqual(
      (await other.members()).map((m) => m.nodeId),
      ['node-dead'],
    );

    await waitUntil(async () => (await other.members()).length === 0, {
      what: 'the dead member to expire',
      timeoutMs: EXPIRY_WAIT_MS,
      intervalMs: 100,
    });
    await other.join([5]);
    assert.deepEqual(
      (await other.members()).map((m) => [m.nodeId, m.partitions]),
      [['node-other', [5]]],
    );
    await other.leave();
  });

  it('lets a node restarted under the same id take back its own claims before they expire', async () => {
    const id = crawlId();
    const first = new NatsMembership(nc, id, 'node-a', MANUAL);
    await first.join([0, 1]);
    first.destroy();
    const again = new NatsMembership(nc, id, 'node-a', MANUAL);
    await again.join([0, 1]);
    assert.deepEqual(again.partitions, [0, 1]);
    await again.leave();
  });

  it('reports a partition lost when its claim expired and another node took it', async () => {
    const id = crawlId();
    const lost: [number, string][] = [];
    const slow = new NatsMembership(nc, id, 'node-slow', { ...MANUAL, onLost: (p, holder) => lost.push([p, holder]) });
    await slow.join([0, 1]);
    // No heartbeat: the claims expire, and then another node can take partition 1.
    const taker = new NatsMembership(nc, id, 'node-taker', MANUAL);
    await waitUntil(
      () =>
        taker.join([1]).then(
          () => true,
          (err: unknown) => {
            if (err instanceof PartitionClaimedError) return false;
            throw err;
          },
        ),
      { what: 'the claim on partition 1 to expire', timeoutMs: EXPIRY_WAIT_MS, intervalMs: 100 },
    );
    // The late heartbeat takes back the expired, unclaimed partition 0 and learns that 1 is gone.
    await slow.heartbeat();
    assert.deepEqual(lost, [[1, 'node-taker']]);
    assert.deepEqual(slow.partitions, [0]);
    assert.deepEqual(
      (await slow.members()).map((m) => [m.nodeId, m.partitions]),
      [
        ['node-slow', [0]],
        ['node-taker', [1]],
      ],
    );
    await Promise.all([slow.leave(), taker.leave()]);
  });

  it('creates the configuration once, then tells later nodes whether theirs is the same', async () => {
    const id = crawlId();
    const a = new NatsMembership(nc, id, 'node-a', MANUAL);
    const b = new NatsMembership(nc, id, 'node-b', MANUAL);
    assert.equal(await a.readConfig(), null);
    const config = { seeds: ['http://a.test/'], partition: { strategy: 'host-hash', count: 4 }, budget: 1000 };
    assert.equal(await a.publishConfig(config), 'created');
    // Key order does not matter; values do.
    assert.equal(
      await b.publishConfig({ budget: 1000, partition: { count: 4, strategy: 'host-hash' }, seeds: ['http://a.test/'] }),
      'same',
    );
    assert.equal(await b.publishConfig({ ...config, budget: 2000 }), 'different');
    assert.deepEqual(await b.readConfig(), config);
  });

  it("shares each node's latest statistics", async () => {
    const id = crawlId();
    const a = new NatsMembership(nc, id, 'node-a', MANUAL);
    const b = new NatsMembership(nc, id, 'node-b', MANUAL);
    assert.deepEqual(await a.readStats(), {});
    await a.putStats({ pages: 1 });
    await a.putStats({ pages: 10, bytes: 5 });
    await b.putStats({ pages: 3 });
    assert.deepEqual(await b.readStats(), { 'node-a': { bytes: 5, pages: 10 }, 'node-b': { pages: 3 } });
  });

  it('lets an exchange join in start and leave in close, refusing a partition another endpoint holds', async () => {
    const id = crawlId();
    const endpoint = (nodeId: string): NatsExchange =>
      new NatsExchange({
        servers: [server.url],
        crawlId: id,
        nodeId,
        outboxDir: join(root, id, nodeId),
        membership: MANUAL,
      });
    const a = endpoint('node-a');
    await a.start([0, 1], () => {});
    assert.deepEqual(
      (await a.membership().members()).map((m) => [m.nodeId, m.partitions]),
      [['node-a', [0, 1]]],
    );
    assert.equal(await a.membership().publishConfig({ crawl: id }), 'created');

    const b = endpoint('node-b');
    await assert.rejects(
      b.start([1, 2], () => {}),
      PartitionClaimedError,
    );
    await b.close();
    await a.close();
    const c = endpoint('node-c');
    await c.start([1, 2], () => {});
    assert.deepEqual(
      (await c.membership().members()).map((m) => [m.nodeId, m.partitions]),
      [['node-c', [1, 2]]],
    );
    assert.equal(await c.membership().publishConfig({ crawl: id }), 'same');
    await c.close();
  });

  it('rejects ids that cannot name subjects and keys', () => {
    assert.throws(
      () => new NatsMembership(nc, 'has.dot', 'a'),
      (err: unknown) => err instanceof ShoalError && err.code === 'CONFIG_INVALID',
    );
    assert.throws(
      () => new NatsMembership(nc, 'ok', 'a b'),
      (err: unknown) => err instanceof ShoalError && err.code === 'CONFIG_INVALID',
    );
  });
});
