import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { addressPool, hostSizes } from '../../../src/web/hosts.js';
import { PageKind, WebModel, parseWebConfig } from '../../../src/web/model.js';
import { Rng, hash32, zipfRank } from '../../../src/core/prng.js';
import { relativePath } from '../../../src/web/render.js';

describe('prng', () => {
  it('is a pure function of (seed, purpose, id, sub)', () => {
    const a = new Rng(1, 2, 3, 4);
    const b = new Rng(1, 2, 3, 4);
    const c = new Rng(1, 2, 3, 5);
    const xs = Array.from({ length: 5 }, () => a.nextU32());
    assert.deepEqual(
      Array.from({ length: 5 }, () => b.nextU32()),
      xs,
    );
    assert.notDeepEqual(
      Array.from({ length: 5 }, () => c.nextU32()),
      xs,
    );
    assert.notEqual(hash32(1, 2), hash32(2, 1));
  });

  it('draws Zipf ranks with the configured exponent', () => {
    // P(r) ∝ (r + 1)^-s: the mass of ranks [10, 20) over that of [100, 200) is 10^(s - 1).
    const rng = new Rng(9, 9, 9);
    const counts = new Float64Array(1000);
    for (let i = 0; i < 400_000; i++) counts[zipfRank(rng.next(), 1000, 1.2)]! += 1;
    const sum = (lo: number, hi: number): number => counts.slice(lo, hi).reduce((a, b) => a + b, 0);
    const measured = Math.log10(sum(10, 20) / sum(100, 200));
    assert.ok(Math.abs(measured - 0.2) < 0.04, `log10 ratio ${measured}`);
    assert.ok(counts[0]! > counts[1]! && counts[1]! > counts[5]!);
    assert.equal(zipfRank(0.999999, 5, 1), 4);
    assert.equal(zipfRank(0, 5, 0.5), 0);
  });
});

describe('host table', () => {
  it('splits pages over hosts by a Zipf law, every host at least one page', () => {
    const sizes = hostSizes(10_000, 100, 1);
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      10_000,
    );
    assert.ok(sizes.every((s) => s >= 1));
    assert.ok(sizes[0]! > 5 * sizes[50]!);
  });

  it('a mirror host takes everything its robots.txt and pages say from its original, null values too', () => {
    const m = new WebModel({
      seed: 5,
      hosts: 200,
      pages: 4000,
      duplicates: { mirrorHostRate: 0.3 },
      traps: { hostRate: 0.3 },
      robots: { crawlDelayRate: 0.5 },
    });
    const mirrors = m.hosts.filter((h) => h.mirrorOf >= 0);
    assert.ok(mirrors.length > 20);
    let withoutTrap = 0;
    for (const h of mirrors) {
      const o = m.hosts[h.mirrorOf]!;
      assert.deepEqual(
        [h.robots, h.trap, h.crawlDelaySeconds, h.disallowed, h.sitemap],
        [o.robots, o.trap, o.crawlDelaySeconds, o.disallowed, o.sitemap],
        h.name,
      );
      if (o.trap === null || o.crawlDelaySeconds === null) withoutTrap++;
    }
    assert.ok(withoutTrap > 0, 'originals without a trap or a Crawl-delay are among them');
  });

  it('keeps the address pool inside 127.0.0.0/8', () => {
    const cfg = parseWebConfig({ server: { addressBase: '127.0.1.250', addressCount: 10 } });
    assert.deepEqual(addressPool(cfg).slice(4, 7), ['127.0.1.254', '127.0.1.255', '127.0.2.0']);
    assert.throws(() => addressPool(parseWebConfig({ server: { addressBase: '10.0.0.1' } })), ConfigError);
    assert.throws(() => addressPool(parseWebConfig({ server: { addressBase: '127.255.255.250', addressCount: 10 } })), ConfigError);
  });
});

describe('WebModel', () => {
  const model = new WebModel({ seed: 3, hosts: 40, pages: 4000, server: { addressCount: 8 } });

  it('gives every page a canonical path that maps back to it', () => {
    for (let g = 0; g < model.pageCount; g += 7) {
      const h = model.hostOf(g);
      const path = model.path(g);
      assert.equal(model.pageAtPath(h, decodeURIComponent(path)).page, g, path);
    }
    const h = model.hostOf(100);
    assert.equal(model.pageAtPath(h, '/no-such-thing-999999.html').page, -1);
  });

  it('spreads hosts over several addresses, each host name unique', () => {
    const names = new Set(model.hosts.map((h) => h.name));
    assert.equal(names.size, model.hosts.length);
    assert.ok(new Set(model.hosts.map((h) => h.ip)).size >= 6);
    assert.ok(model.hosts.every((h) => /^[a-z0-9.-]+$/.test(h.name) && h.name.endsWith('.test')));
  });

  it('keeps home pages ok and labels non-English pages WORLD', () => {
    const world = model.categories.indexOf('WORLD');
    for (const h of model.hosts) {
      assert.equal(model.pageKind[h.firstPage], PageKind.ok);
      if (model.languages[h.lang] !== 'en') assert.equal(model.pageTopic[h.firstPage], world);
    }
  });

  it('has pages of the configured hosts purity', () => {
    let same = 0;
    let english = 0;
    for (let g = 0; g < model.pageCount; g++) {
      const h = model.hostOf(g);
      if (model.languages[h.lang] !== 'en' || model.pageKind[g] === PageKind.nearDuplicate || h.mirrorOf >= 0) continue;
      english++;
      if (model.pageTopic[g] === h.topic) same++;
    }
    // hostPurity 0.85 plus the 1/15 chance that a re-draw picks the host topic again.
    const expected = 0.85 + 0.15 / 15;
    assert.ok(Math.abs(same / english - expected) < 0.03, `${same / english}`);
  });

  it('is the same model for the same seed and another for another seed', () => {
    const again = new WebModel({ seed: 3, hosts: 40, pages: 4000, server: { addressCount: 8 } });
    assert.deepEqual(again.pageKind, model.pageKind);
    assert.deepEqual(again.hosts, model.hosts);
    const other = new WebModel({ seed: 4, hosts: 40, pages: 4000, server: { addressCount: 8 } });
    assert.notDeepEqual(
      other.hosts.map((h) => h.name),
      model.hosts.map((h) => h.name),
    );
  });

  it('rejects impossible configurations with every path', () => {
    assert.throws(
      () => new WebModel({ hosts: 10, pages: 5, links: { topicLocality: 2 } }),
      (e: unknown) => e instanceof ConfigError && e.issues.some((i) => i.path === 'links.topicLocality') && e.issues.length >= 1,
    );
    assert.throws(() => new WebModel({ topics: { worldCategory: 'MARS' } }), /topics\.worldCategory/);
    // A misspelt option is an error, not a silently ignored key.
    assert.throws(
      () => new WebModel({ hosts: 10, pages: 50, links: { fanot: 3 } } as never),
      (e: unknown) => e instanceof ConfigError && e.issues.some((i) => i.path === 'links.fanot'),
    );
    // Topics are stored in one byte per page.
    const many = Array.from({ length: 241 }, (_, i) => `T${i}`);
    assert.throws(() => new WebModel({ topics: { categories: many, worldCategory: null } }), /topics\.categories/);
  });
});

describe('relativePath', () => {
  it('writes the shortest dot-relative reference', () => {
    assert.equal(relativePath('/a/b/c.html', '/a/b/d.html'), 'd.html');
    assert.equal(relativePath('/a/b/c.html', '/a/x/'), '../x/');
    assert.equal(relativePath('/a/', '/'), '../');
    assert.equal(relativePath('/', '/'), './');
    for (const [from, to] of [
      ['/a/b/c.html', '/z.html'],
      ['/x/', '/x/y/z/w.html'],
      ['/p/q/', '/p/'],
    ]) {
      assert.equal(new URL(relativePath(from!, to!), `http://h${from}`).pathname, to);
    }
  });
});
