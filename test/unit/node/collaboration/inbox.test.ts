/**
 * The receiving side of a collaborative node (src/node/collaboration/inbox.ts): URL batches go to admission as
 * already placed; pages to the page handler; link summaries to a policy that can use them; SimHash
 * batches to the near-duplicate index when there is one; failures
 * are counted, never thrown; acknowledgements wait for the checkpoint that covers the delivery (or
 * only for the processing, without checkpoints).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Admission, AdmitOptions } from '../../../../src/node/stages/admission.js';
import type { Candidate } from '../../../../src/node/stages/candidate.js';
import { Inbox, type InboxOptions } from '../../../../src/node/collaboration/inbox.js';
import type { Log } from '../../../../src/obs/log.js';
import type { Delivery } from '../../../../src/exchange/exchange.js';
import type { ExchangeMessage, ForwardedPageMessage } from '../../../../src/exchange/messages.js';
import { MemoryFrontier } from '../../../../src/frontier/memory-frontier.js';
import { BreadthFirstPolicy } from '../../../../src/order/bfs.js';
import { ForwardLinksPolicy } from '../../../../src/order/forward-links.js';
import { NEEDS_LINKS_ONLY, NO_PRIORITY_CHANGES, type OrderingPolicy, type PriorityChanges } from '../../../../src/order/policy.js';
import { UrlIds } from '../../../../src/url/url-ids.js';

function fakeAdmission(): {
  admission: Admission;
  admitted: { candidates: readonly Candidate[]; options: AdmitOptions }[];
  release: () => void;
} {
  const admitted: { candidates: readonly Candidate[]; options: AdmitOptions }[] = [];
  let release = (): void => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const admission = {
    admit: async (candidates: readonly Candidate[], options: AdmitOptions = {}) => {
      admitted.push({ candidates, options });
      await gate;
    },
  } as unknown as Admission;
  return { admission, admitted, release };
}

const errors: string[] = [];
const log = {
  info: () => {},
  warn: () => {},
  error: (event: string) => {
    errors.push(event);
  },
} as unknown as Log;

function inbox(o: Partial<InboxOptions> & { admission: Admission }): Inbox {
  return new Inbox({
    policy: new BreadthFirstPolicy(),
    urlIds: null,
    frontier: new MemoryFrontier({ minDelayMs: 0 }),
    log,
    onPage: null,
    isCheckpointed: true,
    ...o,
  });
}

function delivery(message: ExchangeMessage): Delivery & { acks: number } {
  const d = {
    partition: 0,
    message,
    acks: 0,
    ack: () => {
      d.acks++;
    },
  };
  return d;
}

const urls = (n: number): ExchangeMessage => ({
  kind: 'urls',
  from: 'n1',
  seq: 1,
  urls: Array.from({ length: n }, (_, i) => ({ url: `http://h${i}.test:8080/p`, depth: 2, fromUrl: 'http://x.test/', anchorText: 'go' })),
});

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Inbox', () => {
  test('URL batches go to admission as placed URLs, with host names and anchors', async () => {
    const { admission, admitted, release } = fakeAdmission();
    const box = inbox({ admission });
    box.deliver(delivery(urls(2)));
    release();
    await box.drain();
    assert.equal(admitted.length, 1);
    assert.deepEqual(admitted[0]?.options, { isPlaced: true, isReceived: true });
    assert.deepEqual(admitted[0]?.candidates[1], {
      url: 'http://h1.test:8080/p',
      hostname: 'h1.test',
      depth: 2,
      fromUrl: 'http://x.test/',
      anchorText: 'go',
    });
    assert.deepEqual(
      { ...box.counts },
      {
        urlBatches: 1,
        urls: 2,
        pages: 0,
        linkSummaries: 0,
        remoteLinks: 0,
        reprioritized: 0,
        simhashBatches: 0,
        simhashes: 0,
        simhashesTaken: 0,
        controls: 0,
        failed: 0,
      },
    );
  });

  test('SimHash batches go to the near-duplicate index when the node shares one, else are only counted', async () => {
    const { admission } = fakeAdmission();
    const batch: ExchangeMessage = {
      kind: 'simhashes',
      from: 'n1',
      seq: 3,
      urls: ['http://a.test/', 'http://b.test/'],
      simhashes: new Uint8Array(16).fill(1),
    };
    const taken: string[] = [];
    const sharing = inbox({
      admission,
      onSimHashes: (m) => {
        if (m.kind === 'simhashes') taken.push(...m.urls);
        return 1;
      },
    });
    sharing.deliver(delivery(batch));
    await sharing.drain();
    assert.deepEqual(taken, ['http://a.test/', 'http://b.test/']);
    assert.deepEqual([sharing.counts.simhashBatches, sharing.counts.simhashes, sharing.counts.simhashesTaken], [1, 2, 1]);
    const alone = inbox({ admission });
    alone.deliver(delivery(batch));
    await alone.drain();
    assert.deepEqual([alone.counts.simhashBatches, alone.counts.simhashes, alone.counts.simhashesTaken, alone.counts.failed], [1, 2, 0, 0]);
  });

  test('with checkpoints, a delivery is acknowledged only by the checkpoint sealed after it started', async () => {
    const { admission, release } = fakeAdmission();
    const box = inbox({ admission });
    const first = delivery(urls(1));
    box.deliver(first);
    const sealed = box.seal();
    const second = delivery(urls(1));
    box.deliver(second);
    assert.equal(box.isIdle, false);
    let isSettled = false;
    const settling = box.settle(sealed).then(() => {
      isSettled = true;
    });
    await tick();
    assert.equal(isSettled, false, 'settle waits for the processing');
    release();
    await settling;
    assert.equal(first.acks, 0, 'not before the checkpoint acknowledges');
    box.ack(sealed);
    assert.equal(first.acks, 1);
    assert.equal(second.acks, 0, 'a later delivery waits for the next checkpoint');
    box.ack(box.seal());
    assert.equal(second.acks, 1);
  });

  test('without checkpoints, a delivery is acknowledged once processed', async () => {
    const { admission, release } = fakeAdmission();
    const box = inbox({ admission, isCheckpointed: false });
    const d = delivery(urls(1));
    box.deliver(d);
    await tick();
    assert.equal(d.acks, 0);
    release();
    await box.drain();
    await tick();
    assert.equal(d.acks, 1);
    assert.equal(box.seal().length, 0);
  });

  test('a forwarded page goes to the page handler; a node that takes none counts a failure and goes on', async () => {
    const { admission } = fakeAdmission();
    const pages: string[] = [];
    const page = { kind: 'page', from: 'n1', seq: 2, url: 'http://a.test/' } as unknown as ForwardedPageMessage;
    const taking = inbox({
      admission,
      onPage: async (p) => {
        pages.push(p.url);
      },
    });
    taking.deliver(delivery(page));
    await taking.drain();
    assert.deepEqual(pages, ['http://a.test/']);
    errors.length = 0;
    const refusing = inbox({ admission });
    refusing.deliver(delivery(page));
    await refusing.drain();
    assert.equal(refusing.counts.failed, 1);
    assert.deepEqual(errors, ['delivery-failed']);
  });

  test('link summaries reach a policy that can use them, and its changes reach the frontier', async () => {
    const { admission } = fakeAdmission();
    const urlIds = new UrlIds();
    const seen: (readonly (readonly [string, number])[])[] = [];
    const policy: OrderingPolicy & { observeRemoteLinks(ids: ArrayLike<number>, counts: ArrayLike<number>): PriorityChanges } = {
      spec: { id: 'counting', params: {} },
      needs: NEEDS_LINKS_ONLY,
      prioritize: () => 0,
      observe: () => NO_PRIORITY_CHANGES,
      observeRemoteLinks: (ids, counts) => {
        seen.push(
          Array.from(
            ids,
            (id, i) => [id === urlIds.peek('http://a.test/x') ? 'http://a.test/x' : `id ${id}`, counts[i] as number] as const,
          ),
        );
        return { length: 1, ids: [urlIds.idOf('http://a.test/x')], priorities: [5] };
      },
    };
    const frontier = new MemoryFrontier({ minDelayMs: 0 });
    frontier.add({ url: 'http://a.test/x', host: 'a.test', depth: 1, priority: 0 }, 0);
    frontier.add({ url: 'http://a.test/y', host: 'a.test', depth: 1, priority: 1 }, 0);
    const box = inbox({ admission, policy, urlIds, frontier });
    box.deliver(delivery({ kind: 'links', from: 'n2', seq: 3, counts: [['http://a.test/x', 4]] }));
    await box.drain();
    assert.deepEqual(seen, [[['http://a.test/x', 4]]]);
    const next = frontier.next(0);
    assert.equal(next.kind === 'url' ? next.lease.entry.url : null, 'http://a.test/x', 'reprioritized ahead of y');
    assert.equal(box.counts.reprioritized, 1);
    const bfs = inbox({ admission });
    bfs.deliver(delivery({ kind: 'links', from: 'n2', seq: 4, counts: [['http://a.test/x', 1]] }));
    await bfs.drain();
    assert.equal(bfs.counts.linkSummaries, 1);
  });

  test('a summary’s out-degrees reach a forward-links policy, and the URL it raises moves up the frontier', async () => {
    const { admission } = fakeAdmission();
    const urlIds = new UrlIds();
    const policy = new ForwardLinksPolicy();
    const frontier = new MemoryFrontier({ minDelayMs: 0 });
    for (const url of ['http://a.test/y', 'http://a.test/x']) {
      const priority = policy.prioritize({ id: urlIds.idOf(url), url, depth: 1 });
      frontier.add({ url, host: 'a.test', depth: 1, priority }, 0);
    }
    const box = inbox({ admission, policy, urlIds, frontier });
    const counts: [string, number][] = [['http://a.test/x', 1]];
    box.deliver(delivery({ kind: 'links', from: 'n2', seq: 5, counts }));
    await box.drain();
    assert.equal(box.counts.reprioritized, 0, 'counts alone say nothing to forward-links');
    box.deliver(delivery({ kind: 'links', from: 'n2', seq: 6, counts, outDegrees: [9] }));
    await box.drain();
    assert.deepEqual([box.counts.linkSummaries, box.counts.remoteLinks, box.counts.reprioritized], [2, 2, 1]);
    assert.equal(policy.estimate(urlIds.idOf('http://a.test/x')), 9);
    const next = frontier.next(0);
    assert.equal(next.kind === 'url' ? next.lease.entry.url : null, 'http://a.test/x', 'raised ahead of y');
  });
});
