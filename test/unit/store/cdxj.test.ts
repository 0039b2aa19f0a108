import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CDXIndexer, WARCParser } from 'warcio';
import {
  cdxjEntry,
  cdxjEntryFromStored,
  cdxjLine,
  cdxjTimestamp,
  parseCdxjLine,
  reconcileCdxj,
  sortCdxj,
  surtKey,
  type CdxjEntry,
} from '../../../src/store/warc/cdxj.js';
import {
  encodeRecord,
  metadataRecord,
  requestRecord,
  responseRecord,
  revisitRecord,
  type WarcRecord,
} from '../../../src/store/warc/warc-record.js';
import { INDEX_FILE, WarcWriter, type WarcWriteResult } from '../../../src/store/warc/warc-writer.js';

const T0 = Date.UTC(2024, 4, 1, 12, 0, 0);
const root = mkdtempSync(join(tmpdir(), 'shoal-cdxj-'));
after(() => rmSync(root, { recursive: true, force: true }));

/**
 * SURT keys as pywb computes them. Most rows are the `surt` package's own test cases
 * (WaybackURLKeyMakerTest, IAURLCanonicalizerTest, GoogleURLCanonicalizerTest).
 */
const SURT_CASES: ReadonlyArray<readonly [string, string]> = [
  ['http://www.archive.org/', 'org,archive)/'],
  ['http://archive.org/', 'org,archive)/'],
  ['http://ARCHIVE.ORG/', 'org,archive)/'],
  ['http://example.com', 'com,example)/'],
  ['http://archive.org/goo/', 'org,archive)/goo'],
  ['http://archive.org/goo/?', 'org,archive)/goo'],
  ['http://archive.org/goo/?b&a', 'org,archive)/goo?a&b'],
  ['http://archive.org/goo/?a=2&b&a=1', 'org,archive)/goo?a=1&a=2&b'],
  ['http://archive.org/index.html?b=a&b=b&a=b', 'org,archive)/index.html?a=b&b=a&b=b'],
  ['http://www34.archive.org/index.html?b=a&b=b&a=b', 'org,archive)/index.html?a=b&b=a&b=b'],
  [
    'http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221',
    'org,archive)/index.php?action=profile;u=4221',
  ],
  ['http://a.test/x?jsessionid=0123456789abcdefghijklemopqrstuv&x=y', 'test,a)/x?x=y'],
  ['http://a.test/x?CFID=1169580&CFTOKEN=48630702&dtstamp=22', 'test,a)/x?dtstamp=22'],
  ['http://www.archive.org:80/', 'org,archive)/'],
  ['https://www.archive.org:80/', 'org,archive:80)/'],
  ['http://www.archive.org:443/', 'org,archive:443)/'],
  ['https://www.archive.org:443/', 'org,archive)/'],
  ['http://www.archive.org/big/', 'org,archive)/big'],
  ['http://www12.foo.com/', 'com,foo)/'],
  ['http://www2foo.com/', 'com,www2foo)/'],
  ['http://www2.www2foo.com/', 'com,www2foo)/'],
  ['http://example.com/foo?X=Y', 'com,example)/foo?x=y'],
  ['http://host/%25%32%35', 'host)/%25'],
  ['http://host/%2525252525252525', 'host)/%25'],
  ['http://host/%%%25%32%35asd%%', 'host)/%25%25%25asd%25%25'],
  ['http://host.com/ab%23cd', 'com,host)/ab%23cd'],
  ['http://host.com//twoslashes?more//slashes', 'com,host)/twoslashes?more//slashes'],
  ['http://www.google.com/blah/..', 'com,google)/'],
  ['http://3279880203/blah', '11,0,127,195)/blah'],
  ['http://127.0.0.1:8080/A', '1,0,0,127:8080)/a'],
  ['http://www.evil.com/blah#frag', 'com,evil)/blah'],
  ['http://evil.com/foo;', 'com,evil)/foo;'],
  ['http://user:pw@example.com/', 'com,example)/'],
  ['http://a.test/%7Euser/', 'test,a)/~user'],
  ['http://bücher.test/Straße?Q=日本', 'test,xn--bcher-kva)/stra%c3%9fe?q=%e6%97%a5%e6%9c%ac'],
  [
    'http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768&o=Win32&c=24&j=true&v=1.2',
    'com,yahoo,webhosting,visit)/visit.gif?&b=netscape%205.0%20(windows;%20en-us)&c=24&j=true&o=win32&r=http://web.archive.org/web/20090517140029/http://anthonystewarthead.electric-chi.com/&s=1366x768&v=1.2',
  ],
  ['mailto:foo@example.com', 'mailto:foo@example.com'],
  ['dns:archive.org', 'dns:archive.org'],
  ['not a url', 'not a url'],
];

function page(i: number, url = `http://site.test/p/${i}`): WarcRecord {
  return responseRecord({
    date: T0 + i * 1000,
    targetUri: url,
    httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n',
    body: Buffer.from(`<p>${i}</p>`),
  });
}

function entryAt(filename: string, offset: number, length: number, url = 'http://a.test/'): CdxjEntry {
  return {
    urlkey: surtKey(url),
    timestamp: '20240501120000',
    url,
    mime: 'text/html',
    status: '200',
    digest: 'ABC',
    length,
    offset,
    filename,
  };
}

describe('surtKey', () => {
  for (const [url, key] of SURT_CASES) {
    it(`${url} -> ${key}`, () => assert.equal(surtKey(url), key));
  }
});

describe('CDXJ lines', () => {
  it('are key, 14-digit timestamp, then JSON in the order and types pywb tools write', () => {
    const e = entryAt('a-00001.warc.gz', 1234, 567);
    assert.equal(
      cdxjLine(e),
      'test,a)/ 20240501120000 {"url":"http://a.test/","mime":"text/html","status":"200","digest":"ABC","length":"567","offset":"1234","filename":"a-00001.warc.gz"}',
    );
    assert.deepEqual(parseCdxjLine(cdxjLine(e)), e);
    assert.deepEqual(parseCdxjLine(cdxjLine({ ...e, status: null, digest: null })), { ...e, status: null, digest: null });
    assert.equal(parseCdxjLine('test,a)/ 20240501120000 {"url":'), null);
    assert.equal(parseCdxjLine('garbage'), null);
    assert.equal(cdxjTimestamp('2024-05-01T12:30:45.123Z'), '20240501123045');
    assert.equal(cdxjTimestamp('2024-05-01T12:30:45Z'), '20240501123045');
  });

  it('index only responses and revisits', () => {
    const at = { filename: 'f', offset: 0, length: 1 };
    const req = requestRecord({ date: T0, targetUri: 'http://a.test/', httpHead: 'GET / HTTP/1.1\r\n\r\n' });
    const meta = metadataRecord({ date: T0, targetUri: 'http://a.test/', fields: [] });
    assert.equal(cdxjEntry(req, at), null);
    assert.equal(cdxjEntry(meta, at), null);
    const res = page(1);
    const e = cdxjEntry(res, at);
    assert.equal(e?.digest, res.payloadDigest?.slice(5));
    assert.equal(e?.mime, 'text/html');
    const rv = revisitRecord({
      date: T0,
      targetUri: 'http://a.test/',
      payloadDigest: 'sha1:XYZ',
      refersToTargetUri: 'http://a.test/',
      refersToDate: T0,
    });
    assert.deepEqual(
      { mime: cdxjEntry(rv, at)?.mime, status: cdxjEntry(rv, at)?.status, digest: cdxjEntry(rv, at)?.digest },
      { mime: 'warc/revisit', status: null, digest: 'XYZ' },
    );
  });

  it('an entry rebuilt from the stored bytes equals the one made when writing', () => {
    const at = { filename: 'f', offset: 10, length: 20 };
    const records = [
      page(1),
      page(2, 'http://bücher.test/ü'),
      responseRecord({ date: T0, targetUri: 'http://a.test/none', httpHead: 'HTTP/1.1 204 No Content\r\n\r\n' }),
      revisitRecord({
        date: T0,
        targetUri: 'http://a.test/',
        payloadDigest: 'sha1:XYZ',
        refersToTargetUri: 'http://a.test/',
        refersToDate: T0,
        httpHead: 'HTTP/1.1 200 OK\r\n\r\n',
      }),
      metadataRecord({ date: T0, targetUri: 'http://a.test/', fields: [['a', 'b']] }),
    ];
    for (const r of records) assert.deepEqual(cdxjEntryFromStored(Buffer.concat(encodeRecord(r, '<urn:uuid:w>')), at), cdxjEntry(r, at));
  });
});

describe('index.cdxj of a WarcWriter', () => {
  it("points every line at the gzip member of its record, and matches warcio's indexer line for line", async () => {
    const dir = join(root, 'w1');
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0, maxFileBytes: 4000 });
    await w.start();
    const written: Array<{ record: WarcRecord; at: WarcWriteResult }> = [];
    for (let i = 0; i < 12; i++) {
      const url = `http://site.test/p/${i}`;
      const req = requestRecord({ date: T0 + i * 1000, targetUri: url, httpHead: `GET /p/${i} HTTP/1.1\r\nHost: site.test\r\n\r\n` });
      const res =
        i % 4 === 3
          ? revisitRecord({
              date: T0 + i * 1000,
              targetUri: url,
              payloadDigest: page(0).payloadDigest ?? '',
              refersToTargetUri: 'http://site.test/p/0',
              refersToDate: T0,
              httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n',
            })
          : page(i);
      await w.write(req);
      written.push({ record: res, at: await w.write(res) });
      await w.write(
        metadataRecord({ date: T0 + i * 1000, targetUri: url, concurrentTo: [res.id], fields: [['outlink', 'http://site.test/']] }),
      );
    }
    await w.close();
    const lines = readFileSync(join(dir, INDEX_FILE), 'utf8').split('\n');
    assert.equal(lines.pop(), '', 'every line ends with a newline');
    assert.equal(lines.length, written.length);
    const files = new Set<string>();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const [key, stamp] = line.split(' ');
      const json = JSON.parse(line.slice((key?.length ?? 0) + (stamp?.length ?? 0) + 2)) as Record<string, string>;
      const { record, at } = written[i] as { record: WarcRecord; at: WarcWriteResult };
      assert.equal(key, surtKey(record.targetUri ?? ''));
      assert.equal(stamp, cdxjTimestamp(record.date));
      assert.deepEqual(json, {
        url: record.targetUri,
        mime: record.type === 'revisit' ? 'warc/revisit' : 'text/html',
        status: '200',
        digest: record.payloadDigest?.slice(5),
        length: String(at.length),
        offset: String(at.offset),
        filename: at.filename,
      });
      files.add(at.filename);
      const rec = await WARCParser.parse(
        createReadStream(join(dir, json.filename ?? ''), {
          start: Number(json.offset),
          end: Number(json.offset) + Number(json.length) - 1,
        }),
      );
      assert.equal(rec?.warcHeader('WARC-Record-ID'), record.id, `line ${i} reads its own record`);
    }
    assert.ok(files.size > 1, 'the index spans rotated files');

    const theirs: string[] = [];
    const indexer = new CDXIndexer({ format: 'cdxj' });
    for (const f of [...files].sort()) {
      for await (const result of indexer.iterIndex([{ filename: f, reader: createReadStream(join(dir, f)) }])) {
        theirs.push(indexer.serializeCDXJ(result).trimEnd());
      }
    }
    assert.deepEqual(lines, theirs);
  });

  it('sortCdxj sorts by byte order, in place or to another file', () => {
    const src = join(root, 'unsorted.cdxj');
    const urls = ['http://b.test/', 'http://a.test/z', 'http://a.test/', 'http://ü.test/', 'http://a.test/a?x=1'];
    writeFileSync(src, urls.map((u, i) => `${cdxjLine(entryAt('f', i, 1, u))}\n`).join(''));
    const dst = join(root, 'sorted.cdxj');
    assert.equal(sortCdxj(src, dst), urls.length);
    const sorted = readFileSync(dst, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const expected = readFileSync(src, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => Buffer.from(l))
      .sort(Buffer.compare)
      .map((b) => b.toString());
    assert.deepEqual(sorted, expected);
    assert.deepEqual(
      sorted.map((l) => l.split(' ')[0]),
      ['test,a)/', 'test,a)/a?x=1', 'test,a)/z', 'test,b)/', 'test,xn--tda)/'],
    );
    sortCdxj(src);
    assert.equal(readFileSync(src, 'utf8'), readFileSync(dst, 'utf8'));
  });
});

describe('reconcileCdxj', () => {
  const path = join(root, 'reconcile.cdxj');
  const line = (file: string, offset: number, length: number, url?: string): string => `${cdxjLine(entryAt(file, offset, length, url))}\n`;

  it('drops a torn last line and lines past the repaired end, and reports where the file is indexed to', () => {
    writeFileSync(path, line('a', 0, 10) + line('b', 0, 10) + line('b', 10, 10) + line('b', 20, 10) + line('b', 30, 10).slice(0, 25));
    assert.deepEqual(reconcileCdxj(path, 'b', 25), { indexedEnd: 20, droppedLines: 2 });
    assert.equal(readFileSync(path, 'utf8'), line('a', 0, 10) + line('b', 0, 10) + line('b', 10, 10));
    assert.deepEqual(reconcileCdxj(path, 'b', 25), { indexedEnd: 20, droppedLines: 0 });
    assert.deepEqual(reconcileCdxj(path, 'b', 5), { indexedEnd: 0, droppedLines: 2 }, "down to another file's line");
    assert.equal(readFileSync(path, 'utf8'), line('a', 0, 10));
    assert.deepEqual(reconcileCdxj(path, 'a', 0), { indexedEnd: 0, droppedLines: 1 });
    assert.equal(readFileSync(path, 'utf8'), '');
    assert.deepEqual(reconcileCdxj(join(root, 'missing.cdxj'), 'a', 0), { indexedEnd: 0, droppedLines: 0 });
  });

  it('reads further back when a line is longer than its first block', () => {
    const long = `http://a.test/${'x'.repeat(100_000)}`;
    writeFileSync(path, line('a', 0, 10) + line('a', 10, 10, long) + line('a', 20, 10, long).slice(0, 90_000));
    assert.deepEqual(reconcileCdxj(path, 'a', 1000), { indexedEnd: 20, droppedLines: 1 });
    assert.equal(readFileSync(path, 'utf8'), line('a', 0, 10) + line('a', 10, 10, long));
    writeFileSync(path, line('a', 10, 10, long).slice(0, 90_000));
    assert.deepEqual(reconcileCdxj(path, 'a', 1000), { indexedEnd: 0, droppedLines: 1 });
    assert.equal(readFileSync(path).length, 0);
  });
});
