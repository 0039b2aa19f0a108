/**
 * A tiny test web's ground truth as a simulator graph: the same pages, URLs and seeds as the web
 * served on loopback, links marked nofollow exactly where a crawl of the web does not follow them,
 * the hosts' addresses and Crawl-delays, and (rebuilt on demand) the titles and anchor texts the
 * served pages carry.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseHtml } from '../../../src/parse/html-page.js';
import { normalizeUrl } from '../../../src/url/normalize.js';
import { LinkKind, pageLinks } from '../../../src/web/links.js';
import { servesContent } from '../../../src/web/model.js';
import { pageTitle, renderPage } from '../../../src/web/render.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { LINK_KIND_MASK } from '../../../src/web/truth/format.js';
import { readTruth } from '../../../src/web/truth/read.js';
import { loadTruthGraph } from '../../../src/sim/graph/truth-graph.js';
import { detectGraphFormat } from '../../../src/sim/graph/load-graph.js';
import { scratchDirs } from '../../helpers/scratch.js';

const { root: dir } = scratchDirs('shoal-sim-truth-');
let web: TestWeb;

before(async () => {
  web = await startTestWeb({
    hosts: 12,
    pages: 600,
    seeds: 3,
    links: { nofollowRate: 0.1 },
    meta: { nofollowRate: 0.05 },
    robots: { rulesRate: 1, crawlDelayRate: 0.5 },
  });
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
});
after(async () => {
  await web?.close();
});

describe('truth graph', () => {
  it('has the web’s pages, URLs and seeds', async () => {
    const g = await loadTruthGraph(join(dir, 'truth'));
    assert.equal(detectGraphFormat([join(dir, 'truth')]), 'truth');
    assert.equal(g.pageCount, web.model.pageCount);
    assert.deepEqual(
      Array.from(g.seeds, (s) => g.urlOf(s)),
      web.seeds,
    );
    for (const p of [0, 17, 333, g.pageCount - 1]) {
      assert.equal(g.urlOf(p), web.url(p));
      assert.equal(g.pageIdOf(web.url(p)), p);
    }
    assert.equal(g.pageIdOf('17'), 17);
    assert.equal(g.hosts.nameOf(g.pageHost[0] as number), `${web.model.hosts[0]?.name}:${web.port}`);
    assert.deepEqual(
      g.hosts.ips,
      web.model.hosts.map((h) => h.ip),
    );
    assert.ok(
      g.hosts.crawlDelayMs?.some((d) => d > 0),
      'some host has a Crawl-delay',
    );
  });

  it('marks a link not followed when every occurrence is rel=nofollow or its page says meta nofollow', async () => {
    const g = await loadTruthGraph(join(dir, 'truth'));
    const truth = await readTruth(join(dir, 'truth'));
    const metaNofollow = truth.manifest.pageFlags['nofollow'] as number;
    let marked = 0;
    let byMeta = 0;
    for (let p = 0; p < g.pageCount; p++) {
      const links = pageLinks(web.model, p);
      const isMeta = ((truth.flags[p] as number) & metaNofollow) !== 0;
      for (let e = g.csr.offsets[p] as number; e < (g.csr.offsets[p + 1] as number); e++) {
        const target = g.csr.targets[e] as number;
        const occurrences = links.filter((l) => l.target === target);
        const expected = isMeta || (occurrences.length > 0 && occurrences.every((l) => l.isNofollow)) ? 1 : 0;
        assert.equal(g.edgeNofollow?.[e], expected, `page ${p} → ${target}`);
        marked += expected;
        if (isMeta) byMeta++;
      }
    }
    assert.ok(marked > byMeta && byMeta > 0, `links marked: ${marked}, of which on meta-nofollow pages: ${byMeta}`);
  });

  it('rebuilds titles and anchor texts as the server writes them', async () => {
    const g = await loadTruthGraph(join(dir, 'truth'), { rebuildContent: true });
    const truth = await readTruth(join(dir, 'truth'));
    const seed = g.seeds[0] as number;
    assert.equal(g.contentOf?.(seed).title, pageTitle(web.model, seed));
    assert.ok((g.contentOf?.(seed).text ?? '').length > 100);
    let navLinks = 0;
    for (let e = g.csr.offsets[seed] as number; e < (g.csr.offsets[seed + 1] as number); e++) {
      if (((truth.linkKinds[e] as number) & LINK_KIND_MASK) !== LinkKind.nav) continue;
      navLinks++;
      // Navigation links are written with their target's title as the anchor.
      assert.equal(g.anchorOf?.(e), pageTitle(web.model, g.csr.targets[e] as number));
    }
    assert.ok(navLinks > 0);
  });

  it('gives an edge the anchor of the link a crawl queues, and a policy every occurrence of its links', async () => {
    const g = await loadTruthGraph(join(dir, 'truth'), { rebuildContent: true });
    let nofollowFirst = 0;
    for (let p = 0; p < g.pageCount; p++) {
      if (!servesContent(web.model.pageKind[p] as number)) continue;
      const html = parseHtml(renderPage(web.model, p, web.port).html, web.url(p));
      const occurrences = html.links.flatMap((l) => {
        const n = normalizeUrl(l.href, html.effectiveBase);
        const id = n.kind === 'ok' ? g.pageIdOf(n.url) : -1;
        return id < 0 ? [] : [{ id, anchor: l.anchorText, isNofollow: l.isNofollow }];
      });
      const links = g.linksOf?.(p);
      assert.deepEqual(
        Array.from(links?.ids ?? []),
        occurrences.map((o) => o.id),
        `page ${p}: link targets`,
      );
      assert.deepEqual(
        links?.anchors,
        occurrences.map((o) => o.anchor),
        `page ${p}: anchors`,
      );
      for (let e = g.csr.offsets[p] as number; e < (g.csr.offsets[p + 1] as number); e++) {
        const of = occurrences.filter((o) => o.id === g.csr.targets[e]);
        const queued = of.find((o) => !o.isNofollow) ?? of[0];
        assert.equal(g.anchorOf?.(e), queued?.anchor ?? '', `page ${p}, edge ${e}`);
        if (of[0]?.isNofollow === true && queued !== of[0] && queued?.anchor !== of[0].anchor) nofollowFirst++;
      }
    }
    assert.ok(nofollowFirst > 0, 'some link is written rel=nofollow, then followed with another anchor');
  });
});
