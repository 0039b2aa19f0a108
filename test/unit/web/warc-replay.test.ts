/**
 * WARC replay on a hand-written WARC, as another crawler would write it (WARC/1.0 fields, a target
 * URI in angle brackets, gzip members that carry a file name, extra line ends between uncompressed
 * records), served over loopback sockets:
 *
 *   http://a.example/          response 200 (recorded Content-Length wrong, Connection and Keep-Alive
 *                              headers), then later a revisit of profile server-not-modified (a 304)
 *   http://a.example/chunked   response whose body is still chunked-framed (as wget stores it)
 *   http://a.example/dechunked response with Transfer-Encoding: chunked and a de-chunked body (as shoal stores it)
 *   http://a.example/old       301 -> http://b.example/new
 *   http://a.example/v         two captures; the newer one comes first in the file
 *   http://b.example:8080/new  response 200, Content-Encoding: gzip (body kept encoded)
 *   http://b.example/copy      revisit (identical-payload-digest) of http://a.example/, its own head
 *   http://b.example/file.txt  resource record
 *   http://c.example/big       a 3 MiB incompressible body: a member larger than the scan's window
 *
 * plus a request, a metadata and a warcinfo record, which answer nothing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync, statSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { WARCRecord, WARCSerializer } from 'warcio';
import { cdxjEntryFromStored, cdxjLine } from '../../../src/store/warc/cdxj.js';
import { scanMembers } from '../../../src/store/warc/gzip-members.js';
import { sha1Digest } from '../../../src/store/warc/warc-record.js';
import { scanWarc } from '../../../src/store/warc/warc-scan.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { WarcIndex } from '../../../src/web/warc-index.js';
import { dechunk } from '../../../src/web/warc-replay.js';
import { get } from '../../helpers/http.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-warc-replay-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HOME = Buffer.from('<html><body><a href="/old">old</a> home</body></html>');
const GZIPPED = zlib.gzipSync(Buffer.from('<html>b new</html>'));
const BIG = randomBytes(3 * 1024 * 1024);

function record(fields: Record<string, string>, block: Buffer): Buffer {
  const head = Object.entries({ ...fields, 'Content-Length': String(block.length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`WARC/1.0\r\n${head}\r\n`, 'latin1'), block, Buffer.from('\r\n\r\n')]);
}

let n = 0;
function response(url: string, date: string, head: string, body: Buffer, type = 'response', extra: Record<string, string> = {}): Buffer {
  const block = Buffer.concat([Buffer.from(`${head.split('\n').join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  return record(
    {
      'WARC-Type': type,
      'WARC-Record-ID': `<urn:uuid:00000000-0000-0000-0000-${String(++n).padStart(12, '0')}>`,
      'WARC-Date': date,
      'WARC-Target-URI': url,
      'WARC-Payload-Digest': sha1Digest([body]),
      'Content-Type': 'application/http; msgtype=response',
      ...extra,
    },
    block,
  );
}

const CHUNKED = Buffer.from('5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\n', 'latin1');

/** The records, in file order. */
function records(): Buffer[] {
  return [
    record(
      { 'WARC-Type': 'warcinfo', 'WARC-Date': '2020-01-01T00:00:00Z', 'Content-Type': 'application/warc-fields' },
      Buffer.from('software: hand\r\n'),
    ),
    record(
      {
        'WARC-Type': 'request',
        'WARC-Date': '2020-01-01T00:00:00Z',
        'WARC-Target-URI': 'http://a.example/',
        'Content-Type': 'application/http; msgtype=request',
      },
      Buffer.from('GET / HTTP/1.1\r\nHost: a.example\r\n\r\n'),
    ),
    response(
      '<http://a.example/>',
      '2020-01-01T00:00:01Z',
      'HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: 3\nConnection: close, X-Hop\nX-Hop: 1\nKeep-Alive: timeout=5\nDate: Wed, 01 Jan 2020 00:00:01 GMT',
      HOME,
    ),
    record(
      {
        'WARC-Type': 'metadata',
        'WARC-Date': '2020-01-01T00:00:02Z',
        'WARC-Target-URI': 'http://a.example/',
        'Content-Type': 'application/warc-fields',
      },
      Buffer.from('outlink: http://a.example/old\r\n'),
    ),
    response(
      'http://a.example/chunked',
      '2020-01-01T00:00:02Z',
      'HTTP/1.1 200 OK\nContent-Type: text/plain\nTransfer-Encoding: chunked',
      CHUNKED,
    ),
    response(
      'http://a.example/dechunked',
      '2020-01-01T00:00:02Z',
      'HTTP/1.1 200 OK\nContent-Type: text/plain\nTransfer-Encoding: chunked',
      Buffer.from('not chunk framing\n'),
    ),
    response(
      'http://a.example/old',
      '2020-01-01T00:00:03Z',
      'HTTP/1.1 301 Moved Permanently\nLocation: http://b.example/new',
      Buffer.alloc(0),
    ),
    response('http://a.example/v', '2021-01-01T00:00:00Z', 'HTTP/1.1 200 OK\nContent-Type: text/plain', Buffer.from('two')),
    response('http://a.example/v', '2020-01-01T00:00:00Z', 'HTTP/1.1 200 OK\nContent-Type: text/plain', Buffer.from('one')),
    response(
      'http://b.example:8080/new',
      '2020-01-01T00:00:04Z',
      'HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip',
      GZIPPED,
    ),
    response(
      'http://b.example/copy',
      '2020-01-01T00:00:05Z',
      'HTTP/1.1 200 OK\nContent-Type: text/html\nX-Copy: yes',
      Buffer.alloc(0),
      'revisit',
      {
        'WARC-Payload-Digest': sha1Digest([HOME]),
        'WARC-Refers-To-Target-URI': 'http://a.example/',
        'WARC-Refers-To-Date': '2020-01-01T00:00:01Z',
        'WARC-Profile': 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest',
      },
    ),
    response('http://a.example/', '2020-06-01T00:00:00Z', 'HTTP/1.1 304 Not Modified\nETag: "x"', Buffer.alloc(0), 'revisit', {
      'WARC-Refers-To-Target-URI': 'http://a.example/',
      'WARC-Refers-To-Date': '2020-01-01T00:00:01Z',
      'WARC-Profile': 'http://netpreserve.org/warc/1.0/revisit/server-not-modified',
    }),
    record(
      {
        'WARC-Type': 'resource',
        'WARC-Date': '2020-01-01T00:00:06Z',
        'WARC-Target-URI': 'http://b.example/file.txt',
        'Content-Type': 'text/plain',
      },
      Buffer.from('a resource\n'),
    ),
    response('http://c.example/big', '2020-01-01T00:00:07Z', 'HTTP/1.1 200 OK\nContent-Type: application/octet-stream', BIG),
  ];
}

/** A gzip member whose header names a file (FNAME), as some writers make them. */
function member(data: Buffer): Buffer {
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(zlib.crc32(data) >>> 0, 0);
  trailer.writeUInt32LE(data.length, 4);
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 0, 0xff]), Buffer.from('rec\0'), zlib.deflateRawSync(data), trailer]);
}

const plainFile = join(dir, 'hand.warc');
const gzipFile = join(dir, 'hand.warc.gz');
let web: TestWeb;

before(async () => {
  // One more line end after each record, as some writers leave.
  writeFileSync(plainFile, Buffer.concat(records().flatMap((r) => [r, Buffer.from('\r\n')])));
  writeFileSync(gzipFile, Buffer.concat(records().map(member)));
});
after(async () => web?.close());

describe('dechunk', () => {
  it('removes chunked framing, extensions and trailers; refuses what is not framing', () => {
    assert.equal(dechunk(CHUNKED)?.toString(), 'hello, world');
    assert.equal(dechunk(Buffer.from('0\r\n\r\n'))?.length, 0);
    assert.equal(dechunk(Buffer.from('<html>')), null);
    assert.equal(dechunk(Buffer.from('5\r\nhel')), null, 'a chunk cut short');
    assert.equal(dechunk(Buffer.from('3\r\nabcX0\r\n\r\n')), null, 'no line end after a chunk');
  });
});

describe('scanWarc', () => {
  it('finds the same records at their offsets in a plain and a gzip-per-record file', async () => {
    const types = async (file: string): Promise<string[]> => {
      const out: string[] = [];
      for await (const r of scanWarc(file)) out.push(`${r.head.fields.get('warc-type')} ${r.head.fields.get('warc-target-uri') ?? ''}`);
      return out;
    };
    const plain = await types(plainFile);
    assert.equal(plain.length, records().length);
    assert.deepEqual(await types(gzipFile), plain);
    // The offsets are those of shoal's own member walk.
    const fd = openSync(gzipFile, 'r');
    const offsets = [...scanMembers(fd, 0, statSync(gzipFile).size)].map((m) => m.offset);
    closeSync(fd);
    const scanned: number[] = [];
    for await (const r of scanWarc(gzipFile)) scanned.push(r.offset);
    assert.deepEqual(scanned, offsets);
  });

  it('stops before a torn last member and says where', async () => {
    const torn = join(dir, 'torn.warc.gz');
    writeFileSync(torn, Buffer.concat(records().map(member)));
    truncateSync(torn, statSync(torn).size - 1000);
    const it = scanWarc(torn);
    let count = 0;
    let step = await it.next();
    for (; step.done !== true; step = await it.next()) count++;
    assert.equal(count, records().length - 1);
    assert.match(step.value.problem ?? '', /cut short|does not inflate/);
  });

  it('refuses a file gzipped as one stream, and a file that is not a WARC', async () => {
    const whole = join(dir, 'whole.warc.gz');
    writeFileSync(whole, zlib.gzipSync(Buffer.concat(records())));
    await assert.rejects(WarcIndex.open([whole]), /gzipped as one stream/);
    const html = join(dir, 'page.html');
    writeFileSync(html, '<html></html>');
    await assert.rejects(WarcIndex.open([html]), /not a WARC file/);
  });
});

/** Fetches a URL of the replay (the port of the URL is replaced by the web's). */
async function fetchAt(url: string, method = 'GET'): Promise<Awaited<ReturnType<typeof get>>> {
  const u = new URL(url);
  u.port = String(web.port);
  return get(u.href, web.hostsMap, { method });
}

for (const [label, file] of [
  ['plain WARC/1.0', plainFile],
  ['gzip per record', gzipFile],
] as const) {
  describe(`shoal web --warc: ${label}`, () => {
    before(async () => {
      await web?.close();
      web = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 2 }, warc: [file] });
    });

    it('maps each host to an address of the pool and lists roots as seeds', () => {
      assert.deepEqual([...web.hostsMap.keys()], ['a.example', 'b.example', 'c.example']);
      assert.notEqual(web.hostsMap.get('a.example'), web.hostsMap.get('b.example'));
      assert.deepEqual(web.seeds, [`http://a.example:${web.port}/`]);
      assert.equal(web.warc?.index.files[0]?.indexedFrom, 'scan');
    });

    it('serves a response with its recorded head, its true length and no hop-by-hop headers', async () => {
      // The newest capture of / is a 304 revisit: the original's head and body answer.
      const r = await fetchAt('http://a.example/');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, HOME);
      assert.equal(r.headers['content-length'], String(HOME.length));
      assert.equal(r.headers['content-type'], 'text/html');
      assert.equal(r.headers['date'], 'Wed, 01 Jan 2020 00:00:01 GMT');
      for (const h of ['keep-alive', 'x-hop', 'etag']) assert.equal(r.headers[h], undefined, h);
      const head = await fetchAt('http://a.example/', 'HEAD');
      assert.equal(head.headers['content-length'], String(HOME.length));
      assert.equal(head.body.length, 0);
    });

    it('de-chunks a chunk-framed body and sends a de-chunked one as it is', async () => {
      const r = await fetchAt('http://a.example/chunked');
      assert.equal(r.body.toString(), 'hello, world');
      assert.equal(r.headers['content-length'], '12');
      assert.equal(r.headers['transfer-encoding'], undefined);
      assert.equal((await fetchAt('http://a.example/dechunked')).body.toString(), 'not chunk framing\n');
    });

    it('serves redirects as recorded, the newest capture, and the encoded body with its Content-Encoding', async () => {
      const r = await fetchAt('http://a.example/old');
      assert.equal(r.status, 301);
      assert.equal(r.headers.location, 'http://b.example/new');
      assert.equal((await fetchAt('http://a.example/v')).body.toString(), 'two');
      const g = await fetchAt('http://b.example/new');
      assert.equal(g.headers['content-encoding'], 'gzip');
      assert.deepEqual(g.body, GZIPPED);
    });

    it('answers a revisit with its own head and its original’s payload', async () => {
      const r = await fetchAt('http://b.example/copy');
      assert.equal(r.status, 200);
      assert.equal(r.headers['x-copy'], 'yes');
      assert.deepEqual(r.body, HOME);
    });

    it('serves resource records, large bodies, and 404 for what the WARC does not hold', async () => {
      const res = await fetchAt('http://b.example/file.txt');
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/plain');
      assert.equal(res.body.toString(), 'a resource\n');
      const big = await fetchAt('http://c.example/big');
      assert.ok(big.body.equals(BIG));
      assert.equal((await fetchAt('http://a.example/missing')).status, 404);
      assert.equal((await fetchAt('http://c.example/')).status, 404);
      assert.ok(web.log.entries().every((e) => e.outcome === 'warc'));
    });
  });
}

describe('shoal web --warc: a CDXJ index beside the file', () => {
  it('is used instead of reading the records, and answers the same', async () => {
    const dir2 = mkdtempSync(join(dir, 'cdxj-'));
    const file = join(dir2, 'hand.warc.gz');
    writeFileSync(file, Buffer.concat(records().map(member)));
    const fd = openSync(file, 'r');
    const lines = [...scanMembers(fd, 0, statSync(file).size)]
      .map((m) => cdxjEntryFromStored(m.data, { filename: 'hand.warc.gz', offset: m.offset, length: m.length }))
      .flatMap((e) => (e === null ? [] : [cdxjLine(e)]));
    closeSync(fd);
    writeFileSync(join(dir2, 'index.cdxj'), `${lines.join('\n')}\n`);
    await web?.close();
    web = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 2 }, warc: [file] });
    assert.equal(web.warc?.index.files[0]?.indexedFrom, join(dir2, 'index.cdxj'));
    assert.deepEqual((await fetchAt('http://a.example/')).body, HOME);
    assert.deepEqual((await fetchAt('http://b.example/copy')).body, HOME);
    assert.equal((await fetchAt('http://a.example/v')).body.toString(), 'two');
    assert.equal((await fetchAt('http://a.example/old')).status, 301);
  });
});

describe('shoal web --warc: a record shorter than its Content-Length', () => {
  it('cuts that response off and goes on serving', async () => {
    const dir3 = mkdtempSync(join(dir, 'short-'));
    const file = join(dir3, 'short.warc');
    const good = response(
      'http://d.example/good',
      '2020-01-01T00:00:00Z',
      'HTTP/1.1 200 OK\nContent-Type: text/plain',
      Buffer.from('fine'),
    );
    const whole = response(
      'http://d.example/short',
      '2020-01-01T00:00:00Z',
      'HTTP/1.1 200 OK\nContent-Type: text/plain\nTransfer-Encoding: chunked',
      Buffer.alloc(100, 0x61),
    );
    // Chunked, so read whole before the head goes out; the header still says 100 body bytes, 60 are gone.
    const cut = whole.subarray(0, whole.length - 64);
    writeFileSync(file, Buffer.concat([good, cut]));
    const line = (url: string, offset: number, length: number): string =>
      `example,d)/${url} 20200101000000 {"url":"http://d.example/${url}","mime":"text/plain","status":"200","length":"${length}","offset":"${offset}","filename":"short.warc"}`;
    writeFileSync(`${file}.cdxj`, `${line('good', 0, good.length)}\n${line('short', good.length, cut.length)}\n`);
    await web?.close();
    web = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 1 }, warc: [file] });
    await assert.rejects(fetchAt('http://d.example/short'));
    assert.equal((await fetchAt('http://d.example/good')).body.toString(), 'fine');
  });
});

describe('shoal web --warc: a WARC written by warcio.js (as pywb and ReplayWeb.page write them)', () => {
  it('serves its responses with their recorded heads', async () => {
    const file = join(mkdtempSync(join(dir, 'warcio-')), 'warcio.warc.gz');
    const warcVersion = 'WARC/1.1';
    const info = await WARCRecord.createWARCInfo({ filename: 'warcio.warc.gz', warcVersion }, { software: 'warcio.js' });
    const make = async (url: string, body: string, httpHeaders: Record<string, string>): Promise<Uint8Array> => {
      async function* content(): AsyncGenerator<Uint8Array> {
        yield new TextEncoder().encode(body);
      }
      const rec = await WARCRecord.create({ url, date: '2024-01-01T00:00:00Z', type: 'response', warcVersion, httpHeaders }, content());
      return WARCSerializer.serialize(rec, { gzip: true });
    };
    const parts = [
      await WARCSerializer.serialize(info, { gzip: true }),
      await make('https://e.example/', '<html>e home</html>', { 'Content-Type': 'text/html', 'Custom-Header': 'somevalue' }),
      await make('https://e.example/a?b=1', 'plain text', { 'Content-Type': 'text/plain' }),
    ];
    writeFileSync(file, Buffer.concat(parts.map((p) => Buffer.from(p))));
    await web?.close();
    web = await startTestWeb({ hosts: 0, pages: 0, server: { addressCount: 1 }, warc: [file] });
    assert.deepEqual(web.seeds, [`http://e.example:${web.port}/`]);
    const home = await fetchAt('http://e.example/');
    assert.equal(home.body.toString(), '<html>e home</html>');
    assert.equal(home.headers['custom-header'], 'somevalue');
    assert.equal((await fetchAt('http://e.example/a?b=1')).body.toString(), 'plain text');
    assert.equal((await fetchAt('http://e.example/a?b=2')).status, 404);
  });
});
