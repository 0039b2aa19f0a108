import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ShoalError } from '../../../src/core/errors.js';
import { csrFromEdges } from '../../../src/eval/csr.js';
import {
  ANCHORS_FILE,
  LINKS_FILE,
  LINKS_HEADER_BYTES,
  LINK_RECORD_BYTES,
  LinkFlag,
  LinkGraphWriter,
  MAX_ANCHOR_BYTES,
  URLS_FILE,
  decodeLinkRecord,
  linkRecordCheck,
} from '../../../src/store/link-graph.js';
import { readLinkGraph, type LinkGraph } from '../../../src/store/link-graph-reader.js';
import { urlFingerprintInto } from '../../../src/url/fingerprint.js';
import { collectGarbage } from '../../helpers/gc.js';
import { scratchDirs, killWhileRunning } from '../../helpers/scratch.js';

// The every-offset tests repair (truncate and fsync) three files per byte: cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-links-');
let dirs = 0;
const freshDir = (base = root): string => join(base, `g${++dirs}`, 'links');

/** A link as the test wrote it, by URL. */
interface Written {
  readonly source: string;
  readonly target: string;
  readonly anchorText: string;
  readonly flags: number;
}

/**
 * The small graph (URLs a, b, c get ids 0, 1, 2 in the order first named):
 *
 *   a ──"Home"──▶ b            b ══redirect══▶ c
 *   a ──"Ünïcødé⏎line\t…"──▶ c  (nofollow)      c ──"Home"──▶ a
 *   a ──"Home"──▶ b  (again)    c ──frame──▶ c (self-link, empty anchor)
 *   b ──"🐟 shoal"──▶ a  (nav)
 */
const A = 'http://a.test/';
const B = 'http://b.test/b?x=1';
const C = 'http://bücher.test/c';
const SMALL: readonly Written[] = [
  { source: A, target: B, anchorText: 'Home', flags: 0 },
  { source: A, target: C, anchorText: 'Ünïcødé\nline\tand tab, "quoted" \\ back', flags: LinkFlag.nofollow },
  { source: B, target: C, anchorText: '', flags: LinkFlag.redirect },
  { source: C, target: A, anchorText: 'Home', flags: 0 },
  { source: A, target: B, anchorText: 'Home', flags: 0 },
  { source: C, target: C, anchorText: '', flags: LinkFlag.frame },
  { source: B, target: A, anchorText: '🐟 shoal', flags: LinkFlag.nav },
];

async function write(dir: string, links: readonly Written[], options: { bufferBytes?: number } = {}): Promise<LinkGraphWriter> {
  const w = new LinkGraphWriter({ dir, ...options });
  await w.start();
  for (const l of links) w.addLink(l.source, l.target, l.anchorText, l.flags);
  await w.close();
  return w;
}

async function read(dir: string): Promise<LinkGraph> {
  return readLinkGraph(dir);
}

/** Checks that `g` holds exactly `links` (by URL), in write order per source, with flags and anchors. */
function assertGraph(g: LinkGraph, links: readonly Written[], urls: readonly string[], label = ''): void {
  assert.deepEqual(g.urls, urls, `${label} urls`);
  const id = new Map(urls.map((u, i) => [u, i]));
  const src = Uint32Array.from(links, (l) => id.get(l.source) as number);
  const dst = Uint32Array.from(links, (l) => id.get(l.target) as number);
  const expected = csrFromEdges(urls.length, src, dst);
  assert.deepEqual(g.csr, expected, `${label} CSR`);
  for (let e = 0; e < links.length; e++) {
    const l = links[g.edgeRecord[e] as number] as Written;
    assert.equal(id.get(l.target), g.csr.targets[e], `${label} edge ${e}: record and target agree`);
    assert.equal(g.flags[e], l.flags, `${label} edge ${e} flags`);
    assert.equal(g.anchorOf(e), l.anchorText, `${label} edge ${e} anchor`);
  }
}

/** URLs in first-named order. */
function urlsOf(links: readonly Written[]): string[] {
  const seen = new Set<string>();
  for (const l of links) {
    seen.add(l.source);
    seen.add(l.target);
  }
  return [...seen];
}

/** A reproducible random graph over `n` URLs (xorshift32). */
function randomLinks(count: number, n: number, seed = 7): Written[] {
  let x = seed;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % 1_000_003;
  };
  const anchors = ['', 'Home', 'Next »', 'Ελληνικά', 'line\nbreak', '日本語のリンク'];
  return Array.from({ length: count }, (_, i) => ({
    source: `http://h${next() % 13}.test/p${next() % n}`,
    target: `http://h${next() % 13}.test/p${next() % n}`,
    anchorText: next() % 3 === 0 ? `unique ${i}` : (anchors[next() % anchors.length] as string),
    flags: next() % 16,
  }));
}

describe('LinkGraphWriter and readLinkGraph', () => {
  it('round-trips the small graph: URLs, CSR, flags and anchor texts (non-ASCII, line breaks, tabs)', async () => {
    const dir = freshDir();
    const w = await write(dir, SMALL);
    assert.equal(w.urlCount, 3);
    assert.equal(w.linkCount, SMALL.length);
    const g = await read(dir);
    assertGraph(g, SMALL, [A, B, C]);
    // Spelled out once: a (0) -> b, c, b;  b (1) -> c, a;  c (2) -> a, c.
    assert.deepEqual([...g.csr.offsets], [0, 3, 5, 7]);
    assert.deepEqual([...g.csr.targets], [1, 2, 1, 2, 0, 0, 2]);
    assert.deepEqual([...g.edgeRecord], [0, 1, 4, 2, 6, 3, 5]);
    g.close();
    g.close();
    assert.throws(() => g.anchorOf(0), /closed/);
    assert.equal(readFileSync(join(dir, URLS_FILE), 'utf8'), `id\turl\n0\t${A}\n1\t${B}\n2\t${C}\n`);
    const anchors = readFileSync(join(dir, ANCHORS_FILE), 'utf8');
    assert.equal(anchors.split('Home').length - 1, 1, 'a repeated anchor text is written once');
  });

  it('remembers recent anchor texts without keeping the pages they were cut from', async () => {
    const dir = freshDir();
    const w = new LinkGraphWriter({ dir });
    await w.start();
    const before = collectGarbage();
    for (let n = 0; n < 48; n++) {
      // One page of 1 MiB per source, its anchor text a slice of it (as an analysis in the crawl thread gives).
      const page = `<a href="/x">menu item number ${n} of the site</a>`.padEnd(2 ** 20, ' ');
      w.addLink(`http://a.test/${n}`, 'http://a.test/x', page.slice(13, 43));
    }
    const growth = collectGarbage() - before;
    assert.ok(growth < 8 * 2 ** 20, `the writer held ${growth} bytes after 48 pages of 1 MiB`);
    await w.close();
    const g = await read(dir);
    assert.equal(g.anchorOf(47), 'menu item number 47 of the sit');
    g.close();
  });

  it('round-trips a random graph of 5,000 links through small buffers', async () => {
    const dir = freshDir();
    const links = randomLinks(5000, 300);
    await write(dir, links, { bufferBytes: 256 });
    const g = await read(dir);
    assertGraph(g, links, urlsOf(links));
    g.close();
  });

  it("addLinks, with or without the targets' fingerprints, writes the files addLink writes link by link", async () => {
    // 40 pages of 0–9 links each; the random targets repeat sources and one another.
    const targets = randomLinks(400, 60);
    const pages = Array.from({ length: 40 }, (_, k) => ({
      source: `http://h${k % 13}.test/p${(k * 7) % 60}`,
      links: targets.slice(k * 10, k * 10 + (k % 10)),
    }));
    const dirs = [freshDir(), freshDir(), freshDir()];
    const writers = dirs.map((dir) => new LinkGraphWriter({ dir }));
    await Promise.all(writers.map((w) => w.start()));
    const [one, many, hashed] = writers as [LinkGraphWriter, LinkGraphWriter, LinkGraphWriter];
    for (const { source, links } of pages) {
      for (const l of links) one.addLink(source, l.target, l.anchorText, l.flags);
      const toWrite = links.map((l) => ({ target: l.target, anchorText: l.anchorText, flags: l.flags }));
      many.addLinks(source, toWrite);
      const fingerprints = new Uint32Array(2 * links.length);
      links.forEach((l, i) => urlFingerprintInto(l.target, fingerprints, 2 * i));
      hashed.addLinks(source, toWrite, fingerprints);
    }
    await Promise.all(writers.map((w) => w.close()));
    assert.ok(one.linkCount > 100);
    for (const file of [URLS_FILE, ANCHORS_FILE, LINKS_FILE]) {
      const expected = readFileSync(join(dirs[0] as string, file));
      for (const dir of dirs.slice(1)) assert.ok(readFileSync(join(dir, file)).equals(expected), `${file} of ${dir}`);
    }
  });

  it('cuts an anchor text longer than MAX_ANCHOR_BYTES at a character boundary', async () => {
    const dir = freshDir();
    const long = 'é'.repeat(40_000); // 80,000 bytes
    await write(dir, [
      { source: A, target: B, anchorText: long, flags: 0 },
      { source: A, target: C, anchorText: 'after', flags: 0 },
    ]);
    const g = await read(dir);
    const cut = g.anchorOf(0);
    assert.equal(Buffer.byteLength(cut), MAX_ANCHOR_BYTES - 1, 'the largest whole number of 2-byte characters');
    assert.ok(long.startsWith(cut));
    assert.equal(g.anchorOf(1), 'after');
    g.close();
  });

  it('keeps ids across a resume and appends after the links already there', async () => {
    const dir = freshDir();
    await write(dir, SMALL.slice(0, 4));
    const w = new LinkGraphWriter({ dir });
    const report = await w.start();
    assert.equal(report.urlCount, 3);
    assert.equal(report.linkCount, 4);
    assert.equal(w.urlId(C), 2);
    for (const l of SMALL.slice(4)) w.addLink(l.source, l.target, l.anchorText, l.flags);
    w.addLink(C, 'http://d.test/', 'new', 0);
    await w.close();
    const all = [...SMALL, { source: C, target: 'http://d.test/', anchorText: 'new', flags: 0 }];
    const g = await read(dir);
    assertGraph(g, all, [A, B, C, 'http://d.test/']);
    g.close();
  });

  it('refuses flags outside LinkFlag and URLs with tabs or line breaks', async () => {
    const w = new LinkGraphWriter({ dir: freshDir() });
    await w.start();
    assert.throws(() => w.addLink(A, B, '', 0x10), /LinkFlag bits/);
    assert.throws(() => w.addLink(A, 'http://x.test/\tq'), /without tabs or line breaks/);
    assert.throws(() => w.urlId(''), /non-empty/);
    await w.close();
  });

  for (const file of [URLS_FILE, ANCHORS_FILE, LINKS_FILE]) {
    it(`after ${file} is torn at any byte offset, start() keeps the longest consistent prefix of the links`, async () => {
      const source = freshDir();
      await write(source, SMALL);
      const whole: Record<string, Buffer> = {
        [URLS_FILE]: readFileSync(join(source, URLS_FILE)),
        [ANCHORS_FILE]: readFileSync(join(source, ANCHORS_FILE)),
        [LINKS_FILE]: readFileSync(join(source, LINKS_FILE)),
      };
      const urls = [A, B, C];
      const records = Array.from({ length: SMALL.length }, (_, i) =>
        decodeLinkRecord(whole[LINKS_FILE] as Buffer, LINKS_HEADER_BYTES + i * LINK_RECORD_BYTES),
      );
      const buf = whole[file] as Buffer;
      for (let cut = 0; cut <= buf.length; cut++) {
        const dir = freshDir(ramRoot);
        mkdirSync(dir, { recursive: true });
        for (const [name, bytes] of Object.entries(whole)) writeFileSync(join(dir, name), name === file ? bytes.subarray(0, cut) : bytes);
        // What must survive: URLs on complete lines, then links up to the first that names what was cut.
        const urlCount = file === URLS_FILE ? Math.max(0, buf.subarray(0, cut).toString('utf8').split('\n').length - 2) : 3;
        const anchorBytes = file === ANCHORS_FILE ? cut : (whole[ANCHORS_FILE] as Buffer).length;
        const recordCount = file === LINKS_FILE ? Math.max(0, Math.floor((cut - LINKS_HEADER_BYTES) / LINK_RECORD_BYTES)) : SMALL.length;
        let keep = 0;
        while (keep < recordCount) {
          const r = records[keep];
          if (r == null || r.source >= urlCount || r.target >= urlCount || r.anchorOffset + r.anchorBytes > anchorBytes) break;
          keep++;
        }
        const w = new LinkGraphWriter({ dir });
        const report = await w.start();
        assert.equal(report.urlCount, urlCount, `${file} cut at ${cut}: URLs`);
        assert.equal(report.linkCount, keep, `${file} cut at ${cut}: links`);
        w.addLink(C, A, 'after the crash', LinkFlag.nav); // the writer goes on from the repaired state
        await w.close();
        const kept = [...SMALL.slice(0, keep), { source: C, target: A, anchorText: 'after the crash', flags: LinkFlag.nav }];
        const expectedUrls = [...urls.slice(0, urlCount), ...[C, A].filter((u) => !urls.slice(0, urlCount).includes(u))];
        const g = await read(dir);
        assertGraph(g, kept, expectedUrls, `${file} cut at ${cut}`);
        g.close();
      }
    });
  }

  it('start() cuts from a damaged record (zeros left by a power loss), which the reader refuses to read', async () => {
    const dir = freshDir();
    await write(dir, SMALL);
    assert.notEqual(linkRecordCheck(0, 0, 0, 0, 0), 0, 'an all-zero record does not pass its check');
    const path = join(dir, LINKS_FILE);
    const bytes = readFileSync(path);
    bytes.fill(0, LINKS_HEADER_BYTES + 5 * LINK_RECORD_BYTES, LINKS_HEADER_BYTES + 6 * LINK_RECORD_BYTES);
    writeFileSync(path, bytes);
    await assert.rejects(
      read(dir),
      (err: unknown) =>
        err instanceof ShoalError && err.code === 'IO' && /links\.bin: record 5: its check does not match/.test(err.message),
    );
    const w = new LinkGraphWriter({ dir });
    assert.equal((await w.start()).linkCount, 5, 'record 5 and the valid one after it are cut');
    await w.close();
    const g = await read(dir);
    assertGraph(g, SMALL.slice(0, 5), [A, B, C]);
    g.close();
  });

  it('refuses a links.bin of another version, and a damaged dictionary', async () => {
    const dir = freshDir();
    await write(dir, SMALL);
    const path = join(dir, LINKS_FILE);
    const original = readFileSync(path);
    const other = Buffer.from(original);
    other.writeUInt32LE(2, 8);
    writeFileSync(path, other);
    await assert.rejects(read(dir), /another format or version/);
    await assert.rejects(new LinkGraphWriter({ dir }).start(), /does not start with the expected header/);
    writeFileSync(path, original);
    writeFileSync(join(dir, URLS_FILE), `id\turl\n0\t${A}\n2\t${B}\n1\t${C}\n`);
    await assert.rejects(read(dir), /urls\.tsv: line 3: expected "1<TAB><url>"/);
    await assert.rejects(new LinkGraphWriter({ dir }).start(), /urls\.tsv:3: expected URL id 1/);
  });

  it('reads a graph that is still being written: whatever has reached the files is a consistent prefix', async () => {
    const dir = freshDir();
    const links = randomLinks(600, 50, 11);
    const w = new LinkGraphWriter({ dir, bufferBytes: 128 });
    await w.start();
    for (let i = 0; i < links.length; i++) {
      const l = links[i] as Written;
      w.addLink(l.source, l.target, l.anchorText, l.flags);
      if (i % 50 !== 49) continue;
      const g = await read(dir); // throws if a link named a URL or anchor not yet on disk
      const n = g.edgeRecord.length;
      assert.ok(n <= i + 1);
      assertGraph(g, links.slice(0, n), g.urls, `after ${i + 1} added`);
      g.close();
    }
    await w.close();
  });

  it('after SIGKILL while adding links, opens, repairs and reads back a prefix of the links added', async () => {
    const dir = freshDir();
    const moduleUrl = new URL('../../../src/store/link-graph.js', import.meta.url).href;
    const child = `
      const [moduleUrl, dir] = process.argv.slice(1);
      const { LinkGraphWriter } = await import(moduleUrl);
      const w = new LinkGraphWriter({ dir, bufferBytes: 1000 });
      await w.start();
      // The same links as link(i) in the test.
      const link = (i) => ['http://s' + (i % 97) + '.test/', 'http://t' + ((i * 31) % 1009) + '.test/', i % 5 === 0 ? '' : 'anchor ' + (i % 211) + ' ✓', i % 16];
      for (let i = 0; ; i++) {
        w.addLink(...link(i));
        if (i % 500 === 499) {
          await w.flush();
          process.stdout.write((i + 1) + '\\n');
        }
      }
    `;
    const link = (i: number): Written => ({
      source: `http://s${i % 97}.test/`,
      target: `http://t${(i * 31) % 1009}.test/`,
      anchorText: i % 5 === 0 ? '' : `anchor ${i % 211} ✓`,
      flags: i % 16,
    });
    const { flushed } = await killWhileRunning(child, [moduleUrl, dir], 3000);
    const w = new LinkGraphWriter({ dir });
    const report = await w.start();
    await w.close();
    assert.ok(report.linkCount >= flushed, `${report.linkCount} links survive, ${flushed} were flushed`);
    const links = Array.from({ length: report.linkCount }, (_, i) => link(i));
    const g = await read(dir);
    assert.deepEqual(g.urls.slice(0, urlsOf(links).length), urlsOf(links), 'URLs in first-named order');
    assertGraph(g, links, g.urls);
    g.close();
  });
});
