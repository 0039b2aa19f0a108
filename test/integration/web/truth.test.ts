/**
 * Ground-truth export round trip: export a small test web, read it back, and check every column
 * against the model itself (pageLinks, finalStatus, geoEntities ...) and against independent naive
 * computations of PageRank and reachability written here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShoalError } from '../../../src/core/errors.js';
import { geoEntities } from '../../../src/web/geo.js';
import { LinkKind, pageLinks } from '../../../src/web/links.js';
import { PAGE_KIND_NAMES, PageFlag, PageKind, WebModel, finalStatus, redirectInfo, servesContent } from '../../../src/web/model.js';
import { ensureTruth } from '../../../src/web/truth/ensure.js';
import { exportTruth, type TruthSummary } from '../../../src/web/truth/export.js';
import { MANIFEST_FILE, NOFOLLOW_BIT, PAGES_FILE, Reach, TRUTH_VERSION } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';

/** With drip pages, refusing hosts and traps of every kind, some blocked, so that their columns and reach are exercised. */
const CONFIG = {
  seed: 7,
  hosts: 30,
  pages: 3000,
  server: { addressCount: 4 },
  faults: { dripRate: 0.01, refusingHostRate: 0.1 },
  traps: { hostRate: 0.3 },
};

/** Deduplicated non-self out-links of g, straight from pageLinks: [target, kind byte][]. */
/** Edges moved past a nofollow first occurrence by {@link expectedEdges}, over all calls. */
let movedEdges = 0;

/** One edge per target, the page itself left out, placed where its first followed occurrence is (else its first). */
function expectedEdges(model: WebModel, g: number): [number, number][] {
  const out = new Map<number, number>();
  for (const l of pageLinks(model, g)) {
    if (l.target === g) continue;
    const prev = out.get(l.target);
    if (prev === undefined) out.set(l.target, l.kind | (l.isNofollow ? NOFOLLOW_BIT : 0));
    else if (!l.isNofollow && (prev & NOFOLLOW_BIT) !== 0) {
      // Map order is insertion order: delete and set again to move it to here.
      out.delete(l.target);
      out.set(l.target, prev & ~NOFOLLOW_BIT);
      movedEdges++;
    }
  }
  return [...out];
}

async function digests(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of (await readdir(dir)).sort())
    out[f] = createHash('sha256')
      .update(await readFile(join(dir, f)))
      .digest('hex');
  return out;
}

function isTruthFormatError(file: string) {
  return (err: unknown): boolean => err instanceof ShoalError && err.code === 'TRUTH_FORMAT' && err.message.includes(file);
}

describe('truth export', () => {
  let tmp: string;
  let dir: string;
  let model: WebModel;
  let summary: TruthSummary;
  let truth: Truth;
  let adjacency: [number, number][][];

  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'shoal-truth-'));
    dir = join(tmp, 'truth');
    model = new WebModel(CONFIG);
    summary = await exportTruth(model, dir, { port: 1234 });
    truth = await readTruth(dir);
    adjacency = Array.from({ length: model.pageCount }, (_, g) => expectedEdges(model, g));
  });

  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('counts hosts, pages, links and entities as the model does', () => {
    assert.equal(truth.pageCount, model.pageCount);
    assert.equal(truth.hosts.length, model.hosts.length);
    const links = adjacency.reduce((a, e) => a + e.length, 0);
    assert.equal(truth.manifest.counts.links, links);
    assert.equal(truth.graph.targets.length, links);
    assert.deepEqual(summary.counts, truth.manifest.counts);
    assert.deepEqual(truth.manifest.seeds, model.seedPages());
    assert.deepEqual(truth.manifest.config, JSON.parse(JSON.stringify(model.config)));
    assert.equal(truth.manifest.port, 1234);
    assert.equal(truth.manifest.pagerank.damping, 0.9);
    assert.ok(truth.manifest.pagerank.converged);
  });

  it('stores, for every page, the deduplicated non-self links of pageLinks in order', () => {
    let dropped = 0;
    let nofollow = 0;
    for (let g = 0; g < model.pageCount; g++) {
      const start = truth.graph.offsets[g] as number;
      const end = truth.graph.offsets[g + 1] as number;
      const got: [number, number][] = [];
      for (let e = start; e < end; e++) got.push([truth.graph.targets[e] as number, truth.linkKinds[e] as number]);
      assert.deepEqual(got, adjacency[g], `page ${g}`);
      dropped += pageLinks(model, g).length - got.length;
      nofollow += got.filter(([, k]) => (k & NOFOLLOW_BIT) !== 0).length;
    }
    // The dedup and nofollow paths were exercised, not just trivially passed.
    assert.ok(dropped > 0, 'some links repeated a target or the page itself');
    assert.ok(nofollow > 0, 'some links are nofollow');
    assert.ok(movedEdges > 0, 'some links are nofollow first and followed later');
    assert.ok(truth.linkKinds.some((k) => (k & 0x03) === LinkKind.redirect));
  });

  it('has in-degrees summing to the link count and matching a direct count', () => {
    const count = new Uint32Array(model.pageCount);
    for (const edges of adjacency) for (const [t] of edges) count[t] = (count[t] as number) + 1;
    assert.deepEqual([...truth.inDegree], [...count]);
    assert.equal(
      truth.inDegree.reduce((a, b) => a + b, 0),
      truth.manifest.counts.links,
    );
  });

  it('has PageRank summing to the page count and matching a naive iteration', () => {
    const n = model.pageCount;
    const sum = truth.pagerank.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - n) / n < 1e-6, `sum ${sum} vs ${n}`);
    let ir = new Array<number>(n).fill(1);
    for (let round = 0; round < 1000; round++) {
      let dangling = 0;
      const acc = new Array<number>(n).fill(0);
      for (let u = 0; u < n; u++) {
        const edges = adjacency[u] as [number, number][];
        if (edges.length === 0) dangling += ir[u] as number;
        for (const [v] of edges) acc[v] = (acc[v] as number) + (ir[u] as number) / edges.length;
      }
      ir = acc.map((a) => 0.1 + 0.9 * (a + dangling / n));
    }
    for (let g = 0; g < n; g++) {
      const rel = Math.abs((truth.pagerank[g] as number) - (ir[g] as number)) / (ir[g] as number);
      assert.ok(rel < 1e-6, `page ${g}: ${truth.pagerank[g]} vs naive ${ir[g]}`);
    }
  });

  it('computes reach like an independent polite crawl over pageLinks', () => {
    const n = model.pageCount;
    const seeds = model.seedPages();
    const linked = new Uint8Array(n);
    const stack = [...seeds];
    for (const s of seeds) linked[s] = 1;
    while (stack.length > 0) {
      const u = stack.pop() as number;
      for (const l of pageLinks(model, u)) {
        if (linked[l.target] === 0) {
          linked[l.target] = 1;
          stack.push(l.target);
        }
      }
    }
    const fetched = new Uint8Array(n);
    const discovered = new Set<number>(seeds);
    // A refusing host's pages are discovered but never fetched.
    const isFetchable = (g: number): boolean => !model.isDisallowed(g) && !model.hostOf(g).isRefusing;
    const todo = seeds.filter(isFetchable);
    while (todo.length > 0) {
      const u = todo.pop() as number;
      fetched[u] = 1;
      const kind = model.pageKind[u] as number;
      const isMetaNofollow = ((model.pageFlags[u] as number) & PageFlag.nofollow) !== 0;
      if (kind !== PageKind.redirect && (!servesContent(kind) || isMetaNofollow)) continue;
      const followable = new Set(
        pageLinks(model, u)
          .filter((l) => !l.isNofollow)
          .map((l) => l.target),
      );
      for (const v of followable) {
        if (discovered.has(v)) continue;
        discovered.add(v);
        if (isFetchable(v)) todo.push(v);
      }
    }
    const counts = [0, 0, 0];
    for (let g = 0; g < n; g++) {
      const expected = fetched[g] === 1 ? Reach.polite : linked[g] === 1 ? Reach.linked : Reach.unreachable;
      assert.equal(truth.reach[g], expected, `page ${g}`);
      counts[expected] = (counts[expected] as number) + 1;
    }
    for (const s of seeds) assert.equal(truth.reach[s], Reach.polite, `seed ${s}`);
    // Each class is populated, so the comparison above could have failed in every direction.
    assert.ok(
      counts.every((c) => c > 0),
      `reach counts ${counts.join('/')}`,
    );
    // Drip pages are fetched but lead nowhere; a refusing host's linked pages stay at reach 1.
    const isDrip = (g: number): boolean => model.pageKind[g] === PageKind.drip;
    assert.ok(
      [...Array(n).keys()].some((g) => isDrip(g) && truth.reach[g] === Reach.polite),
      'a drip page at reach 2',
    );
    assert.ok(
      [...Array(n).keys()].some((g) => model.hostOf(g).isRefusing && truth.reach[g] === Reach.linked),
      "a refusing host's page at reach 1",
    );
  });

  it('never gives reach 2 to a robots-disallowed page, nor to a page only disallowed pages link to', () => {
    const onlyFromDisallowed: number[] = [];
    const sources: number[][] = Array.from({ length: model.pageCount }, () => []);
    adjacency.forEach((edges, u) => edges.forEach(([v]) => sources[v]?.push(u)));
    let disallowedLinked = 0;
    for (let g = 0; g < model.pageCount; g++) {
      if (model.isDisallowed(g)) {
        assert.notEqual(truth.reach[g], Reach.polite, `disallowed page ${g}`);
        if (truth.reach[g] === Reach.linked) disallowedLinked++;
      }
      const from = sources[g] as number[];
      if (from.length > 0 && from.every((u) => model.isDisallowed(u)) && !model.seedPages().includes(g)) onlyFromDisallowed.push(g);
    }
    assert.ok(disallowedLinked > 0, 'some disallowed pages are linked (reach 1)');
    assert.ok(onlyFromDisallowed.length > 0, 'the fixture has pages linked only from disallowed pages');
    for (const g of onlyFromDisallowed) assert.notEqual(truth.reach[g], Reach.polite, `page ${g}`);
  });

  it('round-trips the host table', () => {
    model.hosts.forEach((h, i) => {
      const t = truth.hosts[i];
      assert.ok(t !== undefined);
      assert.equal(t.name, h.name);
      assert.equal(t.unicodeName, h.unicodeName);
      assert.equal(t.domain, h.domain);
      assert.equal(t.ip, h.ip);
      assert.equal(t.lang, model.languages[h.lang]);
      assert.equal(t.topic, model.categories[h.topic]);
      assert.equal(t.cityIndex, h.city);
      assert.equal(t.community, h.community);
      assert.deepEqual([t.firstPage, t.pageCount, t.mirrorOf], [h.firstPage, h.pageCount, h.mirrorOf]);
      assert.deepEqual([t.trap, t.robots, t.crawlDelaySeconds, t.sitemap], [h.trap, h.robots, h.crawlDelaySeconds, h.sitemap]);
      assert.deepEqual([t.isTrapBlocked, t.isRefusing], [h.trap !== null && h.robotsBlocksTrap, h.isRefusing], h.name);
    });
    assert.ok(truth.hosts.some((h) => h.cityIndex >= 0 && h.city.includes(', ')));
    assert.ok(truth.hosts.some((h) => h.isRefusing) && truth.hosts.some((h) => h.isTrapBlocked), 'both new columns hold a 1');
    assert.ok(truth.hosts.some((h) => h.trap === 'pagination'));
  });

  it('stores every page label as the model has it', () => {
    let dups = 0;
    let redirects = 0;
    for (let g = 0; g < model.pageCount; g++) {
      const kind = model.pageKind[g] as number;
      assert.equal(truth.pageHost[g], model.pageHost[g]);
      assert.equal(truth.paths.at(g), model.path(g));
      assert.equal(truth.status[g], finalStatus(model, g));
      assert.equal(PAGE_KIND_NAMES[truth.kind[g] as number], PAGE_KIND_NAMES[kind]);
      assert.equal(truth.topic[g], model.pageTopic[g]);
      assert.equal(truth.manifest.languages[truth.lang[g] as number], model.langOf(g));
      assert.equal(truth.city[g], model.pageCity[g]);
      assert.equal(truth.flags[g], model.pageFlags[g]);
      assert.equal(truth.community[g], model.hostOf(g).community);
      const expectedDup = model.contentId(g) !== g ? model.contentId(g) : kind === PageKind.nearDuplicate ? model.pageRef[g] : -1;
      assert.equal(truth.dupOf[g], expectedDup, `dup_of of page ${g}`);
      assert.equal(truth.redirectTo[g], kind === PageKind.redirect ? redirectInfo(model, g).target : -1);
      if (truth.dupOf[g] !== -1) dups++;
      if (truth.redirectTo[g] !== -1) redirects++;
    }
    assert.ok(dups > 0 && redirects > 0, `${dups} duplicates, ${redirects} redirects`);
  });

  it('lists exactly the geographic entities of every page that serves content', async () => {
    const byPage = new Map<number, unknown[]>();
    for (const e of await truth.entities()) {
      const list = byPage.get(e.page) ?? [];
      list.push({ number: e.number, street: e.street, city: e.city, state: e.state, zip: e.zip });
      byPage.set(e.page, list);
    }
    let pagesWithEntities = 0;
    for (let g = 0; g < model.pageCount; g++) {
      const expected = servesContent(model.pageKind[g] as number)
        ? geoEntities(model, g).map((e) => ({ number: e.number, street: e.street, city: e.city, state: e.state, zip: e.zip }))
        : [];
      assert.deepEqual(byPage.get(g) ?? [], expected, `page ${g}`);
      if (expected.length > 0) pagesWithEntities++;
    }
    assert.ok(pagesWithEntities > 0);
  });

  it('maps URLs back to page ids', () => {
    for (let g = 0; g < model.pageCount; g += 7) {
      assert.equal(truth.pageIdOf(model.url(g, 1234)), g, model.url(g, 1234));
    }
    for (const h of model.hosts) {
      assert.equal(truth.pageIdOf(model.url(h.firstPage, 80)), h.firstPage);
      assert.equal(truth.pageIdOf(`${h.name.toUpperCase()}${model.path(h.firstPage + h.pageCount - 1)}`), h.firstPage + h.pageCount - 1);
    }
    const host = model.hosts[0]?.name ?? '';
    assert.equal(truth.pageIdOf('http://no-such-host.test/'), -1);
    assert.equal(truth.pageIdOf(`http://${host}/no-such-page-999999.html`), -1);
    assert.equal(truth.pageIdOf(`http://${host}${model.path(3)}?x=1`), -1);
    assert.equal(truth.pageIdOf('not a url at all'), -1);
  });

  it('exports byte-identical files for the same seed and configuration, also over a previous export', async () => {
    const again = join(tmp, 'again');
    await exportTruth(new WebModel(CONFIG), again, { port: 1234 });
    const first = await digests(dir);
    assert.deepEqual(await digests(again), first);
    await exportTruth(new WebModel(CONFIG), again, { port: 1234 });
    assert.deepEqual(await digests(again), first);
    assert.notDeepEqual(await digests(await exportTo(join(tmp, 'other-seed'), { ...CONFIG, seed: 8 })), first);
  });

  it('rejects a tampered, incomplete or foreign export with TRUTH_FORMAT naming the file', async () => {
    const tampered = join(tmp, 'tampered');
    await cp(dir, tampered, { recursive: true });
    const bytes = await readFile(join(tampered, PAGES_FILE));
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 1;
    await writeFile(join(tampered, PAGES_FILE), bytes);
    await assert.rejects(readTruth(tampered), isTruthFormatError(PAGES_FILE));

    const manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
    const foreign = join(tmp, 'foreign');
    await cp(dir, foreign, { recursive: true });
    await writeFile(join(foreign, MANIFEST_FILE), JSON.stringify({ ...manifest, version: 99 }));
    await assert.rejects(readTruth(foreign), isTruthFormatError(MANIFEST_FILE));
    await rm(join(foreign, MANIFEST_FILE));
    await assert.rejects(readTruth(foreign), isTruthFormatError(MANIFEST_FILE));
  });

  it('leaves an interrupted export incomplete, and can export over it', async () => {
    const broken = join(tmp, 'interrupted');
    const stop = new Error('interrupted');
    await assert.rejects(
      exportTruth(new WebModel(CONFIG), broken, {
        onProgress: () => {
          throw stop;
        },
      }),
      (err) => err === stop,
    );
    await assert.rejects(readTruth(broken), isTruthFormatError(MANIFEST_FILE));
    await exportTruth(new WebModel(CONFIG), broken, { port: 1234 });
    assert.deepEqual(await digests(broken), await digests(dir));
  });

  it('refuses to export into a non-empty directory that is not a truth export', async () => {
    const busy = join(tmp, 'busy');
    await mkdir(busy);
    await writeFile(join(busy, 'notes.txt'), 'keep me');
    await assert.rejects(
      exportTruth(model, busy),
      (err) => err instanceof ShoalError && err.code === 'IO' && err.message.includes('notes.txt'),
    );
    assert.deepEqual(await readdir(busy), ['notes.txt']);
    const fake = join(tmp, 'fake');
    await mkdir(fake);
    await writeFile(join(fake, MANIFEST_FILE), JSON.stringify({ format: 'something-else' }));
    await assert.rejects(exportTruth(model, fake), (err) => err instanceof ShoalError && err.code === 'IO');
  });

  it('is kept by ensureTruth when current, and exported again over an older version', async () => {
    const cache = join(tmp, 'cache');
    const small = { seed: 3, hosts: 5, pages: 100 };
    assert.deepEqual(await ensureTruth(small, cache), { isCached: false });
    assert.deepEqual(await ensureTruth(small, cache), { isCached: true });
    const path = join(cache, MANIFEST_FILE);
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { version: number };
    await writeFile(path, JSON.stringify({ ...manifest, version: TRUTH_VERSION - 1 }));
    await assert.rejects(readTruth(cache), new RegExp(`version ${TRUTH_VERSION - 1} is not supported`));
    assert.deepEqual(await ensureTruth(small, cache), { isCached: false });
    assert.equal((await readTruth(cache)).manifest.version, TRUTH_VERSION);
  });
});

async function exportTo(dir: string, config: typeof CONFIG): Promise<string> {
  await exportTruth(new WebModel(config), dir, { port: 1234 });
  return dir;
}
