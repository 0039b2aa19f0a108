/**
 * The page analyzers: worker threads give the same analysis as the crawl's own thread; a page whose
 * worker dies is rejected alone and the worker is replaced; a pool whose workers cannot start
 * fails every page with a fatal error; close() rejects what is pending.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { analyzePage, type PageAnalysisOptions } from '../../../../src/parse/page-analysis.js';
import { AnalysisError, InlinePageAnalyzer, WorkerPageAnalyzer } from '../../../../src/node/analysis/page-analyzer.js';
import { readGzipMember } from '../../../../src/store/warc/gzip-members.js';
import type { RecordBytes } from '../../../../src/store/warc/warc-writer.js';
import { collectGarbage } from '../../../helpers/gc.js';

const OPTIONS: PageAnalysisOptions = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };

function html(i: number): string {
  return `<!doctype html><html lang="en"><head><title>Page ${i} of the shoal test</title>
<base href="/section-${i % 3}/"><link rel="canonical" href="index.html?b=2&amp;a=1">
<meta name="robots" content="${i % 4 === 0 ? 'nofollow, noarchive' : 'index'}"></head>
<body><p>The crawler reads page ${i} and follows <a href="next-${i}.html">the next page</a> and
<a href="http://Other.Example:80/x/../y?z=1#frag" rel="nofollow">another host</a>, then
<a href="javascript:void(0)">nothing</a> and <a href="http://[bad">a broken one</a>.</p>
<p>${'Politeness matters to every host on the web. '.repeat((i % 5) + 1)}</p></body></html>`;
}

const pages = Array.from({ length: 40 }, (_, i) => ({
  url: `http://site-${i % 7}.example/dir/page-${i}.html`,
  body: Buffer.from(html(i)),
  contentType: 'text/html; charset=utf-8',
}));

const pools: WorkerPageAnalyzer[] = [];
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

test('worker threads and the crawl thread give the same analysis', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 2 });
  pools.push(pool);
  const inline = new InlinePageAnalyzer(OPTIONS);
  const fromWorkers = await Promise.all(pages.map((p) => pool.analyze(p)));
  for (let i = 0; i < pages.length; i++) {
    const expected = analyzePage(pages[i] as (typeof pages)[number], OPTIONS);
    assert.deepEqual(fromWorkers[i], expected, `page ${i}`);
    assert.deepEqual(await inline.analyze(pages[i] as (typeof pages)[number]), expected);
  }
  const first = fromWorkers[1];
  assert.ok(first !== undefined);
  assert.equal(first.title, 'Page 1 of the shoal test');
  assert.equal(first.canonical, 'http://site-1.example/section-1/index.html?b=2&a=1');
  assert.deepEqual(
    first.links.map((l) => [l.url, l.isNofollow]),
    [
      ['http://site-1.example/section-1/next-1.html', false],
      ['http://other.example/y?z=1', true],
    ],
  );
  assert.deepEqual([first.found, first.invalid, first.nofollow], [3, 1, 1]);
  assert.equal(
    fromWorkers[0]?.links.every((l) => l.isNofollow),
    true,
    'a nofollow page makes all its links nofollow',
  );
  assert.equal(first.language, 'en');
  assert.match(first.simhash, /^[0-9a-f]{16}$/);
});

test('without wantsText, the analysis leaves the text in the worker and is otherwise the same', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  for (const page of pages.slice(0, 8)) {
    const full = analyzePage(page, OPTIONS);
    assert.ok(full.visibleText.length > 50);
    const lean = await pool.analyze({ ...page, wantsText: false });
    assert.equal(lean.visibleText, '');
    assert.deepEqual({ ...lean, visibleText: full.visibleText }, full, 'language, SimHash, text digest, links: unchanged');
    assert.equal((await new InlinePageAnalyzer(OPTIONS).analyze({ ...page, wantsText: false })).visibleText, '');
  }
});

test('without wantsAnchorContext, the links come without extended anchor text and the analysis is otherwise the same', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  for (const page of pages.slice(0, 8)) {
    const full = analyzePage(page, OPTIONS);
    assert.ok(
      full.links.some((l) => l.before !== '' && l.after !== ''),
      'the page has words on both sides of a link',
    );
    const lean = await pool.analyze({ ...page, wantsAnchorContext: false });
    assert.deepEqual(
      lean.links.map((l) => [l.before, l.after]),
      full.links.map(() => ['', '']),
    );
    assert.deepEqual(lean, { ...full, links: full.links.map((l) => ({ ...l, before: '', after: '' })) }, 'the rest unchanged');
    assert.deepEqual(await new InlinePageAnalyzer(OPTIONS).analyze({ ...page, wantsAnchorContext: false }), lean);
  }
});

test("an analysis in the crawl thread keeps nothing of the page's text alive", async () => {
  const inline = new InlinePageAnalyzer(OPTIONS);
  const kept = [];
  const before = collectGarbage();
  for (let i = 0; i < 32; i++) {
    // 1 MiB of text after the links: anchor texts, their windows and the title are cut from it.
    const page = bigPage(i, 4000);
    const body = Buffer.concat([
      page.body.subarray(0, page.body.length - 14),
      Buffer.alloc(2 ** 20, 'word '),
      Buffer.from('</body></html>'),
    ]);
    kept.push(await inline.analyze({ ...page, body, wantsText: false }));
  }
  const growth = collectGarbage() - before;
  assert.equal(kept[31]?.links[0]?.anchorText, 'the next page after 31');
  assert.equal(kept[31]?.title, 'Big 31');
  assert.ok(growth < 8 * 2 ** 20, `32 analyses of 1 MiB pages held ${growth} bytes`);
});

test('the caller keeps its body: the worker gets a copy', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  const page = pages[3] as (typeof pages)[number];
  const before = Buffer.from(page.body);
  await pool.analyze(page);
  assert.ok(page.body.equals(before));
  assert.equal(page.body.length, before.length);
});

test('a body the caller gives up moves to the worker when its memory is its own; other bodies are copied', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  const large = html(5).replace('</body>', `${'<p>More words on <a href="more.html">a page</a>.</p>'.repeat(4_000)}</body>`);
  const ownBody = (): Uint8Array => {
    const bytes = new Uint8Array(Buffer.byteLength(large));
    Buffer.from(bytes.buffer).write(large);
    return bytes;
  };
  const expected = analyzePage({ url: 'http://site.example/large.html', body: ownBody(), contentType: 'text/html' }, OPTIONS);
  assert.ok(expected.links.length > 1, 'the page has links to compare');

  const given = ownBody();
  assert.ok(given.byteLength > 200_000);
  const moved = await pool.analyze({ url: 'http://site.example/large.html', body: given, contentType: 'text/html', isBodyGiven: true });
  assert.deepEqual(moved, expected);
  assert.equal(given.byteLength, 0, 'its memory went to the worker: no copy');

  const kept = ownBody();
  assert.deepEqual(await pool.analyze({ url: 'http://site.example/large.html', body: kept, contentType: 'text/html' }), expected);
  assert.equal(kept.byteLength, Buffer.byteLength(large), 'a body not given is copied');

  // A small Buffer is a view of Node's pool, which other Buffers share: given or not, it is copied.
  const small = Buffer.from(html(6));
  const neighbour = Buffer.from('a neighbour in the same pool');
  assert.equal(small.buffer, neighbour.buffer, 'the two Buffers share one pool');
  const smallCopy = Buffer.from(small);
  assert.deepEqual(
    await pool.analyze({ url: 'http://site.example/small.html', body: small, contentType: 'text/html', isBodyGiven: true }),
    analyzePage({ url: 'http://site.example/small.html', body: smallCopy, contentType: 'text/html' }, OPTIONS),
  );
  assert.ok(small.equals(smallCopy));
  assert.equal(neighbour.toString(), 'a neighbour in the same pool');
});

test('a page that kills its worker is rejected alone; the worker is replaced and the next pages succeed', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, maxLinks: 100_000_000, workers: 1, maxWorkerHeapMb: 160 });
  pools.push(pool);
  // Two million links (a 34 MB page) take far more than a 160 MB heap holds.
  const huge = {
    url: 'http://huge.example/',
    body: Buffer.from(`<html><body>${'<a href=/p>p</a> '.repeat(2_000_000)}</body></html>`),
    contentType: 'text/html',
  };
  await assert.rejects(
    pool.analyze(huge),
    (err: unknown) => err instanceof AnalysisError && !err.isFatal && /huge\.example/.test(err.message),
  );
  assert.equal(pool.replaced, 1);
  const after = await pool.analyze(pages[5] as (typeof pages)[number]);
  assert.equal(after.title, 'Page 5 of the shoal test');
});

test('workers that cannot start fail every page with a fatal error', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1, maxWorkerHeapMb: 1 });
  pools.push(pool);
  const err = await pool.analyze(pages[0] as (typeof pages)[number]).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof AnalysisError, String(err));
  assert.equal(err.isFatal, true);
  assert.equal(pool.replaced, 0);
  await assert.rejects(pool.analyze(pages[1] as (typeof pages)[number]), (e: unknown) => e instanceof AnalysisError && e.isFatal);
});

test('close() rejects pending pages, is idempotent, and later pages are refused', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  const pending = pool.analyze(pages[2] as (typeof pages)[number]);
  const closing = pool.close();
  await assert.rejects(pending, AnalysisError);
  await closing;
  await pool.close();
  await assert.rejects(pool.analyze(pages[2] as (typeof pages)[number]), AnalysisError);
});

test('the workers compress WARC records: one valid gzip member per record, in order', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 2 });
  pools.push(pool);
  const records: RecordBytes[] = pages.slice(0, 12).map((p, i) => {
    const head = Buffer.from(`WARC/1.1\r\nWARC-Record-ID: <urn:uuid:${i}>\r\n\r\n`);
    // Every third record says its (3 KB, compressible) body is compressed already: the worker stores
    // those bytes as they are, so its member is larger than the body.
    const body = i % 3 === 0 ? Buffer.concat([p.body, p.body, p.body, p.body]) : p.body;
    const stored = i % 3 === 0 ? { from: head.length, to: head.length + body.length } : null;
    return { pieces: [head, body, Buffer.from('\r\n\r\n')], stored };
  });
  records.push(
    { pieces: [], stored: null },
    { pieces: [Buffer.alloc(0)], stored: null },
    { pieces: [Buffer.alloc(300_000, 7)], stored: null },
  );
  const [a, b] = await Promise.all([pool.compress(records, 6), pool.compress(records.slice(0, 3), 1)]);
  assert.ok(a !== undefined && b !== undefined);
  assert.equal(a.length, records.length);
  a.forEach((member, i) => {
    const bytes = Buffer.concat(member.pieces);
    assert.equal(bytes.length, member.length);
    const read = readGzipMember(bytes);
    assert.equal(read.kind, 'ok', `record ${i}`);
    const record = records[i] as RecordBytes;
    assert.ok(gunzipSync(bytes).equals(Buffer.concat(record.pieces)), `record ${i} round trip`);
    const stored = record.stored === null ? 0 : record.stored.to - record.stored.from;
    if (stored > 0)
      assert.ok(member.length > stored, `record ${i}: its ${stored} body bytes are stored, not deflated (${member.length} bytes)`);
    else if (record.pieces.length === 3) assert.ok(member.length < (record.pieces[1] as Buffer).length, `record ${i} is deflated`);
  });
  assert.equal(b.length, 3);
  assert.ok(gunzipSync(Buffer.concat(b[2]?.pieces ?? [])).equals(Buffer.concat((records[2] as RecordBytes).pieces)));
});

test('tasks of one turn travel together, and each gets its own answer: pages, records and sitemaps interleaved', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  const sitemap = Buffer.from(
    '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://site-1.example/a</loc></url></urlset>',
  );
  // All issued in one turn of the event loop: one message to the worker, answers in few messages.
  const tasks = pages
    .slice(0, 12)
    .map((p, i) =>
      i % 3 === 0
        ? pool
            .compress([{ pieces: [p.body], stored: null }], 6)
            .then((m) => ({ i, kind: 'gzip', value: gunzipSync(Buffer.concat(m[0]?.pieces ?? [])).equals(p.body) }))
        : i % 3 === 1
          ? pool.analyze(p).then((a) => ({ i, kind: 'page', value: a.title === `Page ${i} of the shoal test` }))
          : pool
              .parseSitemap({ url: `http://site-${i}.example/sitemap.xml`, body: sitemap, maxUrls: 10 })
              .then((m) => ({ i, kind: 'sitemap', value: m.kind === 'urlset' && m.urls.length === 1 })),
    );
  const answers = await Promise.all(tasks);
  assert.equal(pool.messagesSent, 1, 'the twelve tasks went to the worker in one message');
  assert.deepEqual(
    answers.map((a) => a.kind),
    pages.slice(0, 12).map((_, i) => ['gzip', 'page', 'sitemap'][i % 3]),
  );
  for (const a of answers) assert.equal(a.value, true, `task ${a.i} (${a.kind}) got its own answer`);
});

/** A page of about `bytes` bytes, its text and links numbered by `i`. */
function bigPage(i: number, bytes: number): (typeof pages)[number] {
  const block = `<p>Block of page ${i}: <a href="/p${i}/next">the next page after ${i}</a> and some words.</p>\n`;
  return {
    url: `http://big.example/p${i}`,
    body: Buffer.from(`<html><head><title>Big ${i}</title></head><body>${block.repeat(Math.ceil(bytes / block.length))}</body></html>`),
    contentType: 'text/html',
  };
}

test('the workers hold at most maxBytesInHand: later tasks wait in line, in order, and all get their answers', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 2, maxBytesInHand: 1_500_000 });
  pools.push(pool);
  const big = Array.from({ length: 6 }, (_, i) => bigPage(i, 600_000));
  const record: RecordBytes = { pieces: [big[0]?.body as Buffer], stored: null };
  let mostInHand = 0;
  const watch = setInterval(() => (mostInHand = Math.max(mostInHand, pool.bytesInHand)), 1);
  const analyses = big.map((p) => pool.analyze(p));
  const members = pool.compress([record], 6);
  // Two pages fit (1.2 MB); the other four and the record wait, none of their bytes copied yet.
  assert.equal(pool.tasksWaiting, 5);
  assert.equal(pool.bytesInHand, (big[0]?.body.length ?? 0) + (big[1]?.body.length ?? 0));
  const done = await Promise.all(analyses);
  clearInterval(watch);
  done.forEach((a, i) => assert.deepEqual(a, analyzePage(big[i] as (typeof pages)[number], OPTIONS), `page ${i}`));
  assert.ok(gunzipSync(Buffer.concat((await members)[0]?.pieces ?? [])).equals(big[0]?.body as Buffer));
  assert.ok(mostInHand <= 1_500_000, `the workers held ${mostInHand} bytes`);
  assert.equal(pool.tasksWaiting, 0);
  assert.equal(pool.bytesInHand, 0);
});

test('a task larger than maxBytesInHand goes alone; a worker that dies on it is replaced and the line moves on', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, maxLinks: 100_000_000, workers: 1, maxWorkerHeapMb: 160, maxBytesInHand: 1_000_000 });
  pools.push(pool);
  // As above: two million links take far more than a 160 MB heap holds.
  const huge = {
    url: 'http://huge.example/',
    body: Buffer.from(`<html><body>${'<a href=/p>p</a> '.repeat(2_000_000)}</body></html>`),
    contentType: 'text/html',
  };
  const first = pool.analyze(huge);
  const next = [pool.analyze(pages[5] as (typeof pages)[number]), pool.analyze(bigPage(9, 1_200_000))];
  assert.equal(pool.tasksWaiting, 2, 'the 34 MB page went alone; the others wait for it');
  await assert.rejects(first, (err: unknown) => err instanceof AnalysisError && /huge\.example/.test(err.message));
  const [small, alone] = await Promise.all(next);
  assert.equal(small?.title, 'Page 5 of the shoal test');
  assert.equal(alone?.title, 'Big 9', 'a page over the limit is analysed when nothing else is in hand');
  assert.equal(pool.replaced, 1);
  assert.equal(pool.bytesInHand, 0);
});

test('close() rejects the tasks waiting in line too', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1, maxBytesInHand: 100 });
  const waiting = pages.slice(0, 4).map((p) => pool.analyze(p));
  assert.equal(pool.tasksWaiting, 3);
  const rejected = waiting.map((w) => assert.rejects(w, AnalysisError));
  await pool.close();
  await Promise.all(rejected);
  assert.equal(pool.tasksWaiting, 0);
});

test('sitemaps are read the same in the workers as in the crawl thread, gzip included', async () => {
  const pool = new WorkerPageAnalyzer({ ...OPTIONS, workers: 1 });
  pools.push(pool);
  const inline = new InlinePageAnalyzer(OPTIONS);
  const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${Array.from(
    { length: 30 },
    (_, i) => `<url><loc>http://other.example/p${i}?b=1&amp;a=2</loc><lastmod>2024-0${1 + (i % 9)}-01</lastmod></url>`,
  ).join('')}</urlset>`;
  const url = 'http://site.example/maps/sitemap.xml';
  for (const body of [Buffer.from(xml), gzipSync(xml)]) {
    const fromWorker = await pool.parseSitemap({ url, body, maxUrls: 20 });
    assert.deepEqual(fromWorker, await inline.parseSitemap({ url, body, maxUrls: 20 }));
    assert.equal(fromWorker.kind, 'urlset');
    if (fromWorker.kind !== 'urlset') return;
    assert.equal(fromWorker.urls.length, 20, 'maxUrls holds');
    assert.equal(fromWorker.urls[0]?.url, 'http://other.example/p0?b=1&a=2', 'another host: the location rule is off');
    assert.equal(fromWorker.urls[0]?.lastmodMs, Date.UTC(2024, 0, 1));
  }
  const html = await pool.parseSitemap({ url, body: Buffer.from('<html><body>Not found</body></html>'), maxUrls: 10 });
  assert.equal(html.kind, 'problem');
});

test('worker counts below 1 are refused', () => {
  assert.throws(() => new WorkerPageAnalyzer({ ...OPTIONS, workers: 0 }), RangeError);
});
