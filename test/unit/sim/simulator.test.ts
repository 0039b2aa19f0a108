/**
 * The virtual crawl on small drawn graphs: visit orders per policy, the call order of the policy
 * Contract, priority changes, nofollow, the page limit, politeness on the virtual clock, and N nodes
 * with a partitioner (no page twice, communication counted exactly, the exchange delay, boundary pages).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BacklinkPolicy } from '../../../src/order/backlink.js';
import { BreadthFirstPolicy } from '../../../src/order/bfs.js';
import { PageRankPolicy } from '../../../src/order/pagerank.js';
import {
  NEEDS_LINKS_ONLY,
  NO_PRIORITY_CHANGES,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type PriorityChanges,
} from '../../../src/order/policy.js';
import { RandomPolicy } from '../../../src/order/random.js';
import { ForwardLinksPolicy } from '../../../src/order/forward-links.js';
import { backQueueCountFor } from '../../../src/frontier/memory-frontier.js';
import { UrlHashPartitioner } from '../../../src/partition/hash/url-hash.js';
import type { PagePlacer, PageToPlace, Partitioner, Placement, UrlToPlace } from '../../../src/partition/partitioner.js';
import { graphFromAdjacency } from '../../../src/sim/graph/memory-graph.js';
import { SimPageKind, type SimGraph } from '../../../src/sim/graph/sim-graph.js';
import { simulate, type SimulationOptions, type SimulationRun } from '../../../src/sim/simulator.js';
import { crawlFixture, type FixtureWeb } from '../../helpers/order.js';

/** No politeness and 10 ms fetches: only the policy orders (as the policy tests' fixture crawl). */
const PLAIN: Partial<SimulationOptions> = { concurrency: 1, politeness: { minDelayMs: 0, delayFactor: 0 }, latencyMs: 10 };

async function order(graph: SimGraph, createPolicy: () => OrderingPolicy, extra: Partial<SimulationOptions> = {}): Promise<string[]> {
  const run = await simulate({ graph, createPolicy, ...PLAIN, ...extra });
  return Array.from(run.visits.pages, (p) => graph.urlOf(p));
}

/*
 *   a ──▶ b ──▶ d ──▶ f
 *   │     │     ▲
 *   │     └──▶ e┘
 *   └──▶ c ──▶ d
 *        └───▶ e ──▶ g
 *
 * Every page on its own host. Breadth-first: a b c d e f g.
 */
const WEB: FixtureWeb = {
  'http://a/': ['http://b/', 'http://c/'],
  'http://b/': ['http://d/', 'http://e/'],
  'http://c/': ['http://d/', 'http://e/'],
  'http://d/': ['http://f/'],
  'http://e/': ['http://d/', 'http://g/'],
};
const ALL = ['http://a/', 'http://b/', 'http://c/', 'http://d/', 'http://e/', 'http://f/', 'http://g/'];

describe('visit order per policy', () => {
  const graph = graphFromAdjacency(WEB, ['http://a/']);

  it('breadth-first visits in discovery order', async () => {
    assert.deepEqual(await order(graph, () => new BreadthFirstPolicy()), ALL);
  });

  it('backlink count visits the most linked pages first', async () => {
    /*
     *   a ──▶ b ──▶ e
     *   ├──▶ c ──▶ e
     *   └──▶ d ──▶ f
     *
     * Breadth-first: a b c d e f. Backlinks (IB′ counted when a page is observed; ties first-come):
     * a; b, c, d have 1 each → b (e 1), c (e 2); e (2) now beats d (1) → e, then d (f 1), f.
     */
    const web = {
      'http://a/': ['http://b/', 'http://c/', 'http://d/'],
      'http://b/': ['http://e/'],
      'http://c/': ['http://e/'],
      'http://d/': ['http://f/'],
    };
    const g = graphFromAdjacency(web, ['http://a/']);
    assert.deepEqual(await order(g, () => new BreadthFirstPolicy()), [
      'http://a/',
      'http://b/',
      'http://c/',
      'http://d/',
      'http://e/',
      'http://f/',
    ]);
    assert.deepEqual(await order(g, () => new BacklinkPolicy()), [
      'http://a/',
      'http://b/',
      'http://c/',
      'http://e/',
      'http://d/',
      'http://f/',
    ]);
  });

  // The same calls in the same order as the crawl's fixture driver (test/helpers/order.ts), hence the
  // same order, given the frontier a crawl node with one fetch slot has (3 back queues per slot).
  const policies: [string, () => OrderingPolicy][] = [
    ['bfs', () => new BreadthFirstPolicy()],
    ['backlink', () => new BacklinkPolicy()],
    ['forward-links', () => new ForwardLinksPolicy()],
    ['random', () => new RandomPolicy({ seed: 42 })],
    ['pagerank', () => new PageRankPolicy({ recomputeEvery: 1, sliceWork: 0 })],
  ];
  const bigger: FixtureWeb = {
    'http://s.test/': ['http://s.test/1', 'http://t.test/', 'http://s.test/2', 'http://u.test/'],
    'http://s.test/1': ['http://u.test/', 'http://u.test/3', 'http://t.test/2', 'http://s.test/1'],
    'http://t.test/': ['http://u.test/3', 'http://s.test/2', 'http://v.test/', 'http://t.test/2'],
    'http://s.test/2': ['http://v.test/', 'http://v.test/1', 'http://u.test/'],
    'http://u.test/': ['http://v.test/1', 'http://w.test/', 'http://s.test/'],
    'http://u.test/3': ['http://w.test/', 'http://w.test/9', 'http://v.test/'],
    'http://v.test/': ['http://w.test/9', 'http://x.test/'],
    'http://t.test/2': ['http://x.test/', 'http://x.test/1', 'http://w.test/'],
  };
  for (const [name, make] of policies) {
    it(`${name} visits in the order of the crawl's fixture driver`, async () => {
      const expected = crawlFixture(bigger, ['http://s.test/'], make(), {
        frontier: { minDelayMs: 0, delayFactor: 0, backQueueCount: backQueueCountFor(1) },
      });
      const g = graphFromAdjacency(bigger, ['http://s.test/']);
      assert.deepEqual(await order(g, make), expected);
      assert.equal(expected.length, g.pageCount);
    });
  }
});

/** Records every call; priorities from a table (default 0), changes from a table keyed by the observed URL id. */
class SpyPolicy implements OrderingPolicy {
  readonly spec = { id: 'spy', params: {} };
  readonly needs = NEEDS_LINKS_ONLY;
  readonly calls: string[] = [];
  constructor(
    private readonly graph: SimGraph,
    private readonly changesAfter: ReadonlyMap<string, PriorityChanges> = new Map(),
  ) {}
  prioritize(url: DiscoveredUrl): number {
    this.calls.push(
      `prioritize ${this.graph.urlOf(url.id)} depth ${url.depth} from ${url.fromId === undefined ? '-' : this.graph.urlOf(url.fromId)}`,
    );
    return 0;
  }
  observe(page: FetchedPage): PriorityChanges {
    this.calls.push(`observe ${this.graph.urlOf(page.id)} [${Array.from(page.outIds, (id) => this.graph.urlOf(id)).join(' ')}]`);
    return this.changesAfter.get(this.graph.urlOf(page.id)) ?? NO_PRIORITY_CHANGES;
  }
}

describe('the policy Contract', () => {
  /*
   * p ──▶ q, r, q (again), s (nofollow), p (itself)
   * q ──▶ r
   */
  const web = { 'http://p/': ['http://q/', 'http://r/', 'http://q/', 'http://s/', 'http://p/'], 'http://q/': ['http://r/'] };
  const graph = graphFromAdjacency(web, ['http://p/'], { nofollow: [['http://p/', 'http://s/']] });

  it('observe first with every out-link, then prioritize each new followed link once, in document order', async () => {
    const spy = new SpyPolicy(graph);
    const visited = await order(graph, () => spy);
    assert.deepEqual(visited, ['http://p/', 'http://q/', 'http://r/']);
    assert.deepEqual(spy.calls, [
      'prioritize http://p/ depth 0 from -',
      'observe http://p/ [http://q/ http://r/ http://q/ http://s/ http://p/]',
      'prioritize http://q/ depth 1 from http://p/',
      'prioritize http://r/ depth 1 from http://p/',
      'observe http://q/ [http://r/]',
      'observe http://r/ []',
    ]);
  });

  it('applies the priority changes observe returns', async () => {
    // a links to b, c, d (all priority 0: b c d); after observing b, d gets 5 and c −1: d then c.
    const g = graphFromAdjacency({ 'http://a/': ['http://b/', 'http://c/', 'http://d/'], 'http://b/': [] }, ['http://a/']);
    const changes = new Map([['http://b/', { length: 2, ids: [g.pageIdOf('http://d/'), g.pageIdOf('http://c/')], priorities: [5, -1] }]]);
    const run = await simulate({ graph: g, createPolicy: () => new SpyPolicy(g, changes), ...PLAIN });
    assert.deepEqual(
      Array.from(run.visits.pages, (p) => g.urlOf(p)),
      ['http://a/', 'http://b/', 'http://d/', 'http://c/'],
    );
    assert.equal(run.nodes[0]?.reprioritized, 2);
  });

  it('stops after max pages fetches and follows those in flight', async () => {
    const run = await simulate({
      graph: graphFromAdjacency(WEB, ['http://a/']),
      createPolicy: () => new BreadthFirstPolicy(),
      ...PLAIN,
      concurrency: 2,
      maxPages: 4,
    });
    assert.equal(run.visits.count, 4);
    assert.equal(run.stopReason, 'max-pages');
  });
});

describe('politeness on the virtual clock', () => {
  // Two hosts of 6 pages each, all linked from the seed; 4 fetch slots.
  const pages = (host: string): string[] => Array.from({ length: 6 }, (_, i) => `http://${host}/${i}`);
  const web = { 'http://hub.test/': [...pages('x.test'), ...pages('y.test')] };
  const graph = graphFromAdjacency(web, ['http://hub.test/']);

  /** Completion times of each host's fetches, in order. */
  function timesByHost(run: SimulationRun): Map<string, number[]> {
    const out = new Map<string, number[]>();
    for (let i = 0; i < run.visits.count; i++) {
      const host = graph.hosts.nameOf(graph.pageHost[run.visits.pages[i] as number] as number);
      out.set(host, [...(out.get(host) ?? []), run.visits.timesMs[i] as number]);
    }
    return out;
  }

  it('never contacts a host again before max(minDelay, k × fetch time) after its last fetch', async () => {
    const run = await simulate({
      graph,
      createPolicy: () => new BreadthFirstPolicy(),
      concurrency: 4,
      politeness: { minDelayMs: 1000, delayFactor: 5 },
      latencyMs: 300,
    });
    assert.equal(run.visits.count, 13);
    for (const host of ['x.test', 'y.test']) {
      const times = timesByHost(run).get(host) as number[];
      assert.equal(times.length, 6);
      // Completion to completion: the gap (max(1000, 5 × 300) = 1500) plus the next fetch (300), exactly.
      for (let i = 1; i < times.length; i++) assert.equal((times[i] as number) - (times[i - 1] as number), 1800, `${host} fetch ${i}`);
    }
  });

  it('caps the k × fetch time part of the gap at maxDelayMs, as a crawl node does', async () => {
    // 5 × 300 = 1500 is capped at 600; the floor is 100: completion to completion 600 + 300.
    const run = await simulate({
      graph,
      createPolicy: () => new BreadthFirstPolicy(),
      concurrency: 4,
      politeness: { minDelayMs: 100, delayFactor: 5, maxDelayMs: 600 },
      latencyMs: 300,
    });
    for (const host of ['x.test', 'y.test']) {
      const times = timesByHost(run).get(host) as number[];
      assert.equal(times.length, 6);
      for (let i = 1; i < times.length; i++) assert.equal((times[i] as number) - (times[i - 1] as number), 900, `${host} fetch ${i}`);
    }
  });

  it('honours a host’s Crawl-delay when the graph knows it', async () => {
    const delays = new Float64Array(graph.hosts.count);
    delays[graph.pageHost[graph.pageIdOf('http://y.test/0')] as number] = 4000;
    const slow: SimGraph = { ...graph, hosts: { ...graph.hosts, crawlDelayMs: delays } };
    const run = await simulate({
      graph: slow,
      createPolicy: () => new BreadthFirstPolicy(),
      concurrency: 4,
      politeness: { minDelayMs: 1000, delayFactor: 0 },
      latencyMs: 0,
    });
    const y = timesByHost(run).get('y.test') as number[];
    const x = timesByHost(run).get('x.test') as number[];
    assert.equal(run.visits.count, 13);
    assert.deepEqual([x.length, y.length], [6, 6]);
    for (let i = 1; i < y.length; i++) assert.equal((y[i] as number) - (y[i - 1] as number), 4000);
    for (let i = 1; i < x.length; i++) assert.equal((x[i] as number) - (x[i - 1] as number), 1000);
  });

  it('keeps the per-IP connection limit for hosts on one address', async () => {
    // Both hosts on one IP, one connection per IP: their fetches never overlap.
    const shared: SimGraph = { ...graph, hosts: { ...graph.hosts, ips: Array.from({ length: graph.hosts.count }, () => '10.0.0.1') } };
    const run = await simulate({
      graph: shared,
      createPolicy: () => new BreadthFirstPolicy(),
      concurrency: 4,
      politeness: { minDelayMs: 0, delayFactor: 0 },
      latencyMs: 100,
    });
    const times = Array.from(run.visits.timesMs).sort((a, b) => a - b);
    assert.equal(times.length, 13);
    for (let i = 1; i < times.length; i++)
      assert.ok((times[i] as number) - (times[i - 1] as number) >= 100, `fetches ${i - 1} and ${i} overlap`);
  });
});

/** A partitioner from a table: URL → partition (a drawn partition). */
class TablePartitioner implements Partitioner {
  readonly spec = { id: 'table', params: {} };
  readonly needsIp = false;
  constructor(
    private readonly table: ReadonlyMap<string, number>,
    readonly partitionCount: number,
  ) {}
  placeUrl(url: UrlToPlace, _self: number): Placement {
    return [this.table.get(url.url) ?? 0];
  }
}

/** The table partitioner that also places pages: URLs stay where found, pages go to their table partition. */
class TablePagePlacer extends TablePartitioner implements PagePlacer {
  override readonly spec = { id: 'table-pages', params: {} };
  override placeUrl(_url: UrlToPlace, self: number): Placement {
    return [self];
  }
  placePage(page: PageToPlace): Placement {
    return super.placeUrl({ url: page.url, hostname: page.hostname, ip: null }, 0);
  }
}

describe('several nodes', () => {
  /*
   *  node 0: a, b      node 1: c, d
   *
   *  a ──▶ b, c, d     b ──▶ c     c ──▶ d     d ──▶ a
   *
   * Node 0 fetches a: keeps b, sends c and d to node 1 (2 URLs). Fetches b: c was sent already.
   * Node 1 gets c, d; fetching d sends a to node 0 (1 URL), where its seen test absorbs it.
   * 3 URLs sent for 4 pages: communication overhead 0.75.
   */
  const web = {
    'http://a/': ['http://b/', 'http://c/', 'http://d/'],
    'http://b/': ['http://c/'],
    'http://c/': ['http://d/'],
    'http://d/': ['http://a/'],
  };
  const graph = graphFromAdjacency(web, ['http://a/']);
  const table = new Map([
    ['http://a/', 0],
    ['http://b/', 0],
    ['http://c/', 1],
    ['http://d/', 1],
  ]);

  it('counts the URLs exchanged exactly, and the receiver absorbs duplicates', async () => {
    const run = await simulate({
      graph,
      createPolicy: () => new BreadthFirstPolicy(),
      nodeCount: 2,
      partitioner: new TablePartitioner(table, 2),
      ...PLAIN,
      exchangeDelayMs: 50,
    });
    const [n0, n1] = run.nodes;
    assert.deepEqual([n0?.pages, n0?.urlsSent, n0?.urlsReceived, n0?.urlsDuplicate], [2, 2, 1, 1]);
    assert.deepEqual([n1?.pages, n1?.urlsSent, n1?.urlsReceived, n1?.urlsDuplicate], [2, 1, 2, 0]);
    assert.equal(run.messages.urlBatches, 2);
    // c reaches node 1 50 ms after a's fetch completed at 10 ms; its own fetch takes 10 ms.
    const cAt = run.visits.timesMs[Array.from(run.visits.pages).indexOf(graph.pageIdOf('http://c/'))];
    assert.equal(cAt, 70);
  });

  it('visits no page twice when the partitioner gives each URL one owner', async () => {
    const big: Record<string, string[]> = {};
    const page = (i: number): string => `http://h${i % 7}.test/${i}`;
    for (let i = 0; i < 60; i++) big[page(i)] = [1, 2, 3, 5, 8].map((d) => page((i + d) % 60));
    const g = graphFromAdjacency(big, ['http://h0.test/0']);
    const run = await simulate({
      graph: g,
      createPolicy: () => new BreadthFirstPolicy(),
      nodeCount: 3,
      partitioner: new UrlHashPartitioner(3),
      concurrency: 2,
      latencyMs: 20,
      politeness: { minDelayMs: 100 },
    });
    assert.equal(run.visits.count, 60);
    assert.equal(new Set(run.visits.pages).size, 60);
    // Each page is fetched by the node its URL hashes to.
    const hash = new UrlHashPartitioner(3);
    for (let i = 0; i < run.visits.count; i++) {
      const url = g.urlOf(run.visits.pages[i] as number);
      assert.deepEqual(hash.placeUrl({ url, hostname: new URL(url).hostname, ip: null }, 0), [run.visits.nodes[i]]);
    }
    const sent = run.nodes.reduce((s, n) => s + n.urlsSent, 0);
    assert.equal(
      sent,
      run.nodes.reduce((s, n) => s + n.urlsReceived, 0),
    );
  });

  it('forwards a boundary page to its owner, which follows it', async () => {
    // URLs stay where found, pages go to their table partition (a, b: 0; c, d: 1); seed a on node 0.
    // Node 0 fetches a (10 ms) and b (20), keeping both; c (30) and d (40) are boundary pages: sent to
    // node 1 (arriving at 280 and 290) and not followed. Node 1 follows c (queues d), fetches d
    // (280-290, its own page), follows the forwarded d (queues a) and fetches a (290-300), a boundary
    // page it forwards to node 0, which follows it. d and a are fetched by both nodes: topic
    // partitioning's overlap.
    const run = await simulate({
      graph,
      createPolicy: () => new BreadthFirstPolicy(),
      nodeCount: 2,
      partitioner: new TablePagePlacer(table, 2),
      ...PLAIN,
    });
    const [n0, n1] = run.nodes;
    assert.equal(run.forward, 'pages');
    assert.deepEqual([n0?.pages, n0?.pagesSent, n0?.pagesReceived, n0?.urlsSent], [4, 2, 1, 0]);
    assert.deepEqual([n1?.pages, n1?.pagesSent, n1?.pagesReceived, n1?.urlsSent], [2, 1, 2, 0]);
    const byNode1 = Array.from(run.visits.pages)
      .filter((_, i) => run.visits.nodes[i] === 1)
      .map((p) => graph.urlOf(p));
    assert.deepEqual(byNode1, ['http://d/', 'http://a/']);
  });

  it('sends link summaries between nodes, and remote counts reorder a backlink frontier', async () => {
    /*
     *  node 0: a, p1, p2, p3          node 1: s, z, x, y          seeds a (node 0), s (node 1)
     *
     *  a ──▶ p1, p2, p3    p1, p2, p3 ──▶ y    s ──▶ z, x, y
     *
     * Fetches take 10 ms, but a's 200 and z's 1000. Node 1 observes s at 10 ms (z, x, y: IB′ 1 each)
     * and fetches z until 1010. Node 0 fetches a (200), p1, p2, p3 (230): it sends y to node 1
     * (absorbed there: a duplicate) and counts 3 links to it. The summary tick at 300 sends those
     * counts (one message), which arrive at 310: y's IB′ is 4 when z is done, so node 1 visits y
     * before x. Without summaries, x (queued first) comes first.
     */
    const { run, byNode1 } = summaryWorld(() => new BacklinkPolicy());
    const summarized = await run(300);
    assert.deepEqual(byNode1(summarized), ['http://s.test/', 'http://z.test/', 'http://y.test/', 'http://x.test/']);
    assert.equal(summarized.messages.linkSummaries, 1);
    assert.deepEqual(
      summarized.nodes.map((n) => n.linkSummariesSent),
      [1, 0],
    );
    assert.deepEqual([summarized.nodes[0]?.urlsSent, summarized.nodes[1]?.urlsDuplicate], [1, 1]);
    // y's new IB′ reached node 1's frontier as its one priority change.
    assert.equal(summarized.nodes[1]?.reprioritized, 1);
    const alone = await run(0);
    assert.deepEqual(byNode1(alone), ['http://s.test/', 'http://z.test/', 'http://x.test/', 'http://y.test/']);
    assert.equal(alone.messages.linkSummaries, 0);
    assert.equal(alone.nodes[1]?.reprioritized, 0);
  });

  it('sends rank shares with link summaries, and a PageRank frontier takes them in', async () => {
    // The graph, timing and partition of the backlink case above, ordered by IR′: node 1 queues z, x
    // and y with one equal share of s each; the summary names y with the shares of p1, p2, p3.
    const policies: PageRankPolicy[] = [];
    const { run, byNode1 } = summaryWorld(() => {
      const p = new PageRankPolicy({ sliceWork: 0 });
      policies.push(p);
      return p;
    });
    const summarized = await run(300);
    assert.deepEqual(byNode1(summarized), ['http://s.test/', 'http://z.test/', 'http://y.test/', 'http://x.test/']);
    assert.equal(summarized.nodes[1]?.remoteLinksReceived, 3);
    assert.equal(summarized.nodes[0]?.linkSummaryEntriesSent, 1);
    // The shares were p1, p2, p3's y/c, each more than 1 (a page with an in-link).
    assert.ok((policies[1] as PageRankPolicy).remoteShare > 3, `${(policies[1] as PageRankPolicy).remoteShare}`);
    const alone = await run(0);
    assert.deepEqual(byNode1(alone), ['http://s.test/', 'http://z.test/', 'http://x.test/', 'http://y.test/']);
    assert.equal(alone.nodes[1]?.remoteLinksReceived, 0);
  });

  it('sends out-degrees with link summaries, and a forward-links frontier takes them in', async () => {
    // The world above, with a linking to y too: node 1 queues z, x and y at 3 (s's out-degree),
    // node 0 fetches a (out-degree 4) and names y with 4 in its summary, so y passes x. Without
    // summaries x, queued first, comes first.
    const { run, byNode1 } = summaryWorld(() => new ForwardLinksPolicy(), true);
    const summarized = await run(300);
    assert.deepEqual(byNode1(summarized), ['http://s.test/', 'http://z.test/', 'http://y.test/', 'http://x.test/']);
    assert.equal(summarized.nodes[0]?.linkSummaryEntriesSent, 1);
    assert.equal(summarized.nodes[1]?.reprioritized, 1);
    const alone = await run(0);
    assert.deepEqual(byNode1(alone), ['http://s.test/', 'http://z.test/', 'http://x.test/', 'http://y.test/']);
    assert.equal(alone.nodes[1]?.reprioritized, 0);
  });

  it('refuses several nodes without a partitioner of that many partitions', async () => {
    await assert.rejects(simulate({ graph, createPolicy: () => new BreadthFirstPolicy(), nodeCount: 2 }), /needs a partitioner/);
    await assert.rejects(
      simulate({ graph, createPolicy: () => new BreadthFirstPolicy(), nodeCount: 3, partitioner: new UrlHashPartitioner(2) }),
      /2 partitions for 3 nodes/,
    );
  });
});

describe('what the graph can serve', () => {
  it('refuses a policy that reads anchor texts the graph does not have', async () => {
    const graph = graphFromAdjacency(WEB, ['http://a/']);
    const anchorReader: OrderingPolicy = {
      spec: { id: 'anchors', params: {} },
      needs: { ids: true, urls: false, anchors: true, text: false },
      prioritize: () => 0,
      observe: () => NO_PRIORITY_CHANGES,
    };
    await assert.rejects(simulate({ graph, createPolicy: () => anchorReader }), /anchors reads anchor texts/);
    const withAnchors = graphFromAdjacency(WEB, ['http://a/'], { anchor: (_from, to) => to });
    const run = await simulate({ graph: withAnchors, createPolicy: () => anchorReader, ...PLAIN });
    assert.equal(run.visits.count, 7);
  });
});

describe('what a fetch gave', () => {
  it('follows a redirect without showing it to the policy, and stops at an error page', async () => {
    // a → r (a redirect to t), a → x (an error page linking to y, which is never found).
    const web = { 'http://a/': ['http://r/', 'http://x/'], 'http://r/': ['http://t/'], 'http://x/': ['http://y/'] };
    const base = graphFromAdjacency(web, ['http://a/']);
    const kinds = new Uint8Array(base.pageCount);
    kinds[base.pageIdOf('http://r/')] = SimPageKind.redirect;
    kinds[base.pageIdOf('http://x/')] = SimPageKind.noContent;
    const graph: SimGraph = { ...base, pageKinds: kinds };
    const spy = new SpyPolicy(graph);
    assert.deepEqual(await order(graph, () => spy), ['http://a/', 'http://r/', 'http://x/', 'http://t/']);
    assert.deepEqual(spy.calls, [
      'prioritize http://a/ depth 0 from -',
      'observe http://a/ [http://r/ http://x/]',
      'prioritize http://r/ depth 1 from http://a/',
      'prioritize http://x/ depth 1 from http://a/',
      'prioritize http://t/ depth 2 from -',
      'observe http://t/ []',
    ]);
  });
});

/**
 * The world of the link-summary cases: two nodes, node 1 owning s, z, x and y; a links to p1, p2,
 * p3 (and to y when `isALinkingY`), each linking to y; s links to z, x and y. Fetches take 10 ms,
 * a's 200 and z's 1000. `run` simulates it with summaries every `linkSummaryIntervalMs` (0: none);
 * `byNode1` lists the pages node 1 visited, in order.
 */
function summaryWorld(
  createPolicy: () => OrderingPolicy,
  isALinkingY = false,
): {
  run: (linkSummaryIntervalMs: number) => Promise<SimulationRun>;
  byNode1: (r: SimulationRun) => string[];
} {
  const web = {
    'http://a.test/': ['http://p1.test/', 'http://p2.test/', 'http://p3.test/', ...(isALinkingY ? ['http://y.test/'] : [])],
    'http://p1.test/': ['http://y.test/'],
    'http://p2.test/': ['http://y.test/'],
    'http://p3.test/': ['http://y.test/'],
    'http://s.test/': ['http://z.test/', 'http://x.test/', 'http://y.test/'],
  };
  const g = graphFromAdjacency(web, ['http://a.test/', 'http://s.test/']);
  const owners = new Map(
    Object.keys(web)
      .concat('http://z.test/', 'http://x.test/', 'http://y.test/')
      .map((u) => [u, /\/\/(s|z|x|y)\./.test(u) ? 1 : 0]),
  );
  const latencyMs = Float64Array.from(
    { length: g.hosts.count },
    (_, h) => (({ 'a.test': 200, 'z.test': 1000 }) as Record<string, number>)[g.hosts.nameOf(h)] ?? 10,
  );
  return {
    run: (linkSummaryIntervalMs) =>
      simulate({
        graph: g,
        createPolicy,
        nodeCount: 2,
        partitioner: new TablePartitioner(owners, 2),
        concurrency: 1,
        politeness: { minDelayMs: 0, delayFactor: 0 },
        latencyMs,
        exchangeDelayMs: 10,
        linkSummaryIntervalMs,
      }),
    byNode1: (r) =>
      Array.from(r.visits.pages)
        .filter((_, i) => r.visits.nodes[i] === 1)
        .map((p) => g.urlOf(p)),
  };
}
