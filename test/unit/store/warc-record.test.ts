import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import { payloadDigest } from '../../../src/dedup/content-digest.js';
import {
  ContentType,
  encodeHeader,
  encodeRecord,
  formatHttpHead,
  formatWarcDate,
  IDENTICAL_PAYLOAD_PROFILE,
  metadataRecord,
  parseHttpHead,
  parseWarcHead,
  requestRecord,
  responseRecord,
  revisitRecord,
  sha1Digest,
  storedRange,
  uriForm,
  warcinfoRecord,
  WarcType,
  type WarcRecord,
} from '../../../src/store/warc/warc-record.js';

const T = Date.UTC(2024, 4, 1, 12, 30, 45, 123);
const ID = '<urn:uuid:00000000-0000-4000-8000-000000000001>';

function bytes(r: WarcRecord, warcinfoId: string | null = null): Buffer {
  return Buffer.concat(encodeRecord(r, warcinfoId));
}

/** Independent RFC 4648 base32 (bit string chunking), to check the digests against. */
function base32Sha1(data: Buffer): string {
  const bits = [...createHash('sha1').update(data).digest()].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(i, i + 5), 2)];
  return `sha1:${out}`;
}

describe('WARC record serialization', () => {
  it('digests are sha1: + base32 of SHA-1, over all the pieces', () => {
    assert.equal(sha1Digest([]), 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
    const a = Buffer.from('HTTP/1.1 200 OK\r\n\r\n');
    const b = Buffer.from('hello, world ✓');
    assert.equal(sha1Digest([a, b]), base32Sha1(Buffer.concat([a, b])));
    assert.equal(sha1Digest([b]), payloadDigest(b), 'the same form as the dedup digest');
  });

  it('dates are ISO 8601 UTC with milliseconds', () => {
    assert.equal(formatWarcDate(T), '2024-05-01T12:30:45.123Z');
    assert.equal(formatWarcDate(new Date(T)), '2024-05-01T12:30:45.123Z');
  });

  it('lays a response out as version line, fields, blank line, block, two CRLFs', () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n';
    const body = Buffer.from('<p>hi</p>');
    const r = responseRecord({
      id: ID,
      date: T,
      targetUri: 'http://a.test/x',
      httpHead: head,
      body,
      ipAddress: '127.0.0.1',
      concurrentTo: ['<urn:uuid:c>'],
    });
    const block = Buffer.concat([Buffer.from(head), body]);
    const expected =
      'WARC/1.1\r\n' +
      'WARC-Type: response\r\n' +
      `WARC-Record-ID: ${ID}\r\n` +
      'WARC-Date: 2024-05-01T12:30:45.123Z\r\n' +
      'WARC-Target-URI: http://a.test/x\r\n' +
      'WARC-IP-Address: 127.0.0.1\r\n' +
      'WARC-Concurrent-To: <urn:uuid:c>\r\n' +
      `WARC-Payload-Digest: ${base32Sha1(body)}\r\n` +
      `WARC-Block-Digest: ${base32Sha1(block)}\r\n` +
      'WARC-Warcinfo-ID: <urn:uuid:w>\r\n' +
      'Content-Type: application/http;msgtype=response\r\n' +
      `Content-Length: ${block.length}\r\n` +
      '\r\n';
    assert.equal(bytes(r, '<urn:uuid:w>').toString('latin1'), expected + block.toString('latin1') + '\r\n\r\n');
    assert.deepEqual(r.http, { status: 200, mime: 'text/html' });
    assert.equal(r.block[1], body, 'the body buffer is used as is, not copied');
  });

  it('never lets a value end the header: CR and LF become spaces', () => {
    const r = metadataRecord({
      id: ID,
      date: T,
      targetUri: 'http://a.test/\r\nWARC-Type: evil',
      concurrentTo: ['<urn:uuid:x>\nX: y'],
      fields: [
        ['outlink', 'http://b.test/\r\n\r\nWARC/1.1'],
        ['via', 'a\rb'],
      ],
    });
    const header = encodeHeader(r).toString('utf8');
    assert.equal(header.indexOf('\r\n\r\n'), header.length - 4, 'exactly one blank line, at the end');
    const parsed = parseWarcHead(bytes(r));
    assert.ok(parsed !== null);
    assert.equal(parsed.fields.get('warc-type'), 'metadata');
    // The URL parser drops CR and LF itself; a value that is not a URL would keep them as spaces.
    assert.equal(parsed.fields.get('warc-target-uri'), 'http://a.test/WARC-Type:%20evil');
    assert.equal(parsed.fields.get('warc-concurrent-to'), '<urn:uuid:x> X: y');
    assert.equal(parsed.fields.get('x'), undefined);
    assert.equal(Buffer.concat(r.block).toString(), 'outlink: http://b.test/ WARC/1.1\r\nvia: a b\r\n');
    assert.throws(() => metadataRecord({ date: T, targetUri: 'http://a.test/', fields: [['bad name', 'v']] }), RangeError);
    assert.throws(() => metadataRecord({ date: T, targetUri: 'http://a.test/', fields: [['a:b', 'v']] }), RangeError);
  });

  it('writes non-ASCII target URIs in their ASCII URI form and other values as UTF-8', () => {
    assert.equal(uriForm('http://bücher.test/straße?q=日本'), 'http://xn--bcher-kva.test/stra%C3%9Fe?q=%E6%97%A5%E6%9C%AC');
    assert.equal(uriForm('http://a.test/plain?x=1'), 'http://a.test/plain?x=1');
    assert.equal(uriForm('not a url ü'), 'not a url ü');
    const r = warcinfoRecord({ id: ID, date: T, filename: 'f.warc.gz', fields: [['operator', 'Åsa Öberg <åsa@example.org>']] });
    assert.equal(Buffer.concat(r.block).toString('utf8'), 'operator: Åsa Öberg <åsa@example.org>\r\n');
    const resp = responseRecord({ date: T, targetUri: 'http://bücher.test/', httpHead: 'HTTP/1.1 200 OK\r\n\r\n' });
    assert.equal(resp.targetUri, 'http://xn--bcher-kva.test/');
  });

  it('completes an HTTP head that lacks its blank line', () => {
    for (const head of ['HTTP/1.1 204 No Content', 'HTTP/1.1 204 No Content\r\n', 'HTTP/1.1 204 No Content\r\n\r\n']) {
      const r = responseRecord({ date: T, targetUri: 'http://a.test/', httpHead: head });
      assert.equal(Buffer.concat(r.block).toString(), 'HTTP/1.1 204 No Content\r\n\r\n');
    }
    for (const head of ['HTTP/1.0 200 OK\nA: b\n\n', 'HTTP/1.0 200 OK\r\nA: b\n\r\n']) {
      const r = responseRecord({ date: T, targetUri: 'http://a.test/', httpHead: head, body: Buffer.from('x') });
      assert.equal(Buffer.concat(r.block).toString(), `${head}x`, 'a complete head is kept as received');
    }
  });

  it('parses status and media type from a head, tolerating bare LF', () => {
    assert.deepEqual(parseHttpHead(Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-TYPE:  Text/HTML ; charset=x\r\n\r\nbody')), {
      status: 404,
      mime: 'text/html',
    });
    assert.deepEqual(parseHttpHead(Buffer.from('HTTP/1.0 301\nLocation: /x\n\n')), { status: 301, mime: null });
    assert.deepEqual(parseHttpHead(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n')), { status: null, mime: null });
  });

  it('marks a response body that is compressed already (content coding or media type) to be stored, not deflated', () => {
    const body = Buffer.alloc(5000, 1);
    const stored = (head: string): number =>
      responseRecord({ date: T, targetUri: 'http://a.test/', httpHead: head, body }).storedPayloadBytes;
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n'), 5000);
    assert.equal(stored('HTTP/1.1 200 OK\r\ncontent-encoding: identity, br\r\n\r\n'), 5000);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: image/JPEG\r\n\r\n'), 5000);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: application/zip; name=a.zip\r\n\r\n'), 5000);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n'), 5000);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), 0);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: image/svg+xml\r\nContent-Encoding: identity\r\n\r\n'), 0);
    assert.equal(stored('HTTP/1.1 200 OK\r\nContent-Type: audio/wav\r\n\r\n'), 0);
    const request = requestRecord({
      date: T,
      targetUri: 'http://a.test/',
      httpHead: 'POST / HTTP/1.1\r\nContent-Encoding: gzip\r\n\r\n',
      body,
    });
    assert.equal(request.storedPayloadBytes, 0, 'only response bodies are looked at');
    const r = responseRecord({ date: T, targetUri: 'http://a.test/', httpHead: 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n', body });
    const pieces = encodeRecord(r);
    const raw = Buffer.concat(pieces);
    const range = storedRange(r, raw.length);
    assert.ok(range !== null && raw.subarray(range.from, range.to).equals(body), 'the stored range is the body');
    assert.equal(
      storedRange(responseRecord({ date: T, targetUri: 'http://a.test/', httpHead: 'HTTP/1.1 200 OK\r\n\r\n', body }), raw.length),
      null,
    );
  });

  it('formats an HTTP head byte-for-byte from latin1 strings, UTF-8 when needed', () => {
    const h = formatHttpHead('HTTP/1.1 200 OK', [
      ['X-Latin', 'caf\u00e9'],
      ['X-Wide', '日本'],
      ['X-Inject', 'a\r\nSet-Cookie: b'],
    ]);
    const wide = Buffer.from('日本', 'utf8').toString('latin1');
    assert.equal(h.toString('latin1'), `HTTP/1.1 200 OK\r\nX-Latin: caf\u00e9\r\nX-Wide: ${wide}\r\nX-Inject: a Set-Cookie: b\r\n\r\n`);
  });

  it('request: the request bytes, with a payload digest only when there is a body', () => {
    const get = requestRecord({ date: T, targetUri: 'http://a.test/', httpHead: 'GET / HTTP/1.1\r\nHost: a.test\r\n\r\n' });
    assert.equal(get.contentType, ContentType.httpRequest);
    assert.equal(get.payloadDigest, null);
    assert.ok(!encodeHeader(get).toString().includes('WARC-Payload-Digest'));
    const post = requestRecord({ date: T, targetUri: 'http://a.test/', httpHead: 'POST / HTTP/1.1\r\n\r\n', body: Buffer.from('a=1') });
    assert.equal(post.payloadDigest, payloadDigest(Buffer.from('a=1')));
    assert.equal(post.blockLength, 'POST / HTTP/1.1\r\n\r\na=1'.length);
  });

  it('revisit: identical-payload-digest profile, the head only, the original payload digest', () => {
    const digest = payloadDigest(Buffer.from('same'));
    const r = revisitRecord({
      date: T,
      targetUri: 'http://a.test/',
      payloadDigest: digest,
      refersToTargetUri: 'http://a.test/',
      refersToDate: Date.UTC(2024, 0, 1),
      refersTo: ID,
      httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n',
    });
    const f = parseWarcHead(bytes(r))?.fields;
    assert.ok(f !== undefined);
    assert.equal(f.get('warc-type'), 'revisit');
    assert.equal(f.get('warc-profile'), IDENTICAL_PAYLOAD_PROFILE);
    assert.equal(f.get('warc-refers-to'), ID);
    assert.equal(f.get('warc-refers-to-target-uri'), 'http://a.test/');
    assert.equal(f.get('warc-refers-to-date'), '2024-01-01T00:00:00.000Z');
    assert.equal(f.get('warc-payload-digest'), digest);
    assert.equal(f.get('content-length'), String('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n'.length));
    assert.deepEqual(r.http, { status: 200, mime: 'text/plain' });
    const bare = revisitRecord({
      date: T,
      targetUri: 'http://a.test/',
      payloadDigest: digest,
      refersToTargetUri: 'http://a.test/',
      refersToDate: '2024-01-01T00:00:00Z',
    });
    const g = parseWarcHead(bytes(bare))?.fields;
    assert.equal(g?.get('content-length'), '0');
    assert.equal(g?.get('content-type'), undefined);
    assert.equal(g?.get('warc-block-digest'), 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  it('warcinfo: WARC-Filename and an application/warc-fields block', () => {
    const r = warcinfoRecord({
      date: T,
      filename: 'x-1.warc.gz',
      fields: [
        ['software', 'shoal/0.1.0'],
        ['format', 'WARC File Format 1.1'],
      ],
    });
    assert.equal(r.type, WarcType.warcinfo);
    assert.match(r.id, /^<urn:uuid:[0-9a-f-]{36}>$/);
    const f = parseWarcHead(bytes(r))?.fields;
    assert.equal(f?.get('warc-filename'), 'x-1.warc.gz');
    assert.equal(f?.get('content-type'), 'application/warc-fields');
    assert.equal(f?.get('warc-target-uri'), undefined);
  });

  it('every kind reads back with warcio, with the declared lengths and digests', async () => {
    const req = requestRecord({ date: T, targetUri: 'http://a.test/p', httpHead: 'GET /p HTTP/1.1\r\nHost: a.test\r\n\r\n' });
    const body = Buffer.from('<html>ünïcødé</html>');
    const records = [
      warcinfoRecord({ date: T, filename: 'f.warc', fields: [['software', 'shoal/0.1.0']] }),
      req,
      responseRecord({
        date: T,
        targetUri: 'http://a.test/p',
        httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n',
        body,
        concurrentTo: [req.id],
      }),
      metadataRecord({ date: T, targetUri: 'http://a.test/p', fields: [['outlink', 'http://a.test/q']] }),
      revisitRecord({
        date: T,
        targetUri: 'http://a.test/p',
        payloadDigest: payloadDigest(body),
        refersToTargetUri: 'http://a.test/p',
        refersToDate: T,
      }),
    ];
    const parser = new WARCParser([Buffer.concat(records.map((r) => bytes(r)))], { parseHttp: false });
    let i = 0;
    for await (const rec of parser) {
      const r = records[i++] as WarcRecord;
      const block = Buffer.from(await rec.readFully(false));
      assert.equal(rec.warcType, r.type);
      assert.equal(rec.warcHeader('WARC-Record-ID'), r.id);
      assert.equal(rec.warcDate, r.date);
      assert.equal(rec.warcContentLength, block.length);
      assert.equal(rec.warcBlockDigest, base32Sha1(block));
    }
    assert.equal(i, records.length);
  });
});
