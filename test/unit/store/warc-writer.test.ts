import assert from 'node:assert/strict';
import { createReadStream, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { WARCParser } from 'warcio';
import { ShoalError } from '../../../src/core/errors.js';
import { payloadDigest } from '../../../src/dedup/content-digest.js';
import {
  INDEX_FILE,
  gzipMember,
  readGzipMember,
  repairWarcTail,
  WarcWriter,
  type WarcCompressor,
  type WarcWriteResult,
} from '../../../src/store/warc/warc-writer.js';
import {
  encodeRecord,
  IDENTICAL_PAYLOAD_PROFILE,
  metadataRecord,
  requestRecord,
  responseRecord,
  revisitRecord,
  type WarcRecord,
} from '../../../src/store/warc/warc-record.js';
import { scratchDirs } from '../../helpers/scratch.js';

const T0 = Date.UTC(2024, 4, 1, 12, 0, 0);
// Every repair that cuts fsyncs; the every-offset test does a thousand of them, cheap on a RAM disk.
const { root, ramRoot } = scratchDirs('shoal-warc-');
let dirs = 0;
const freshDir = (): string => join(root, `d${++dirs}`);

/** Incompressible but reproducible bytes (xorshift32), so a 5 MB body stays ~5 MB compressed. */
function noise(n: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

function page(i: number, bodyBytes = 200): WarcRecord {
  return responseRecord({
    date: T0 + i * 1000,
    targetUri: `http://site.test/p/${i}`,
    httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n',
    body: Buffer.from(`<p>${i}</p>`.padEnd(bodyBytes, '.')),
  });
}

async function readAll(path: string, parseHttp = false) {
  const parser = new WARCParser(createReadStream(path), { parseHttp });
  const out: Array<{ offset: number; length: number; type: string; headers: Map<string, string>; block: Buffer }> = [];
  for await (const rec of parser) {
    const block = Buffer.from(await rec.readFully(false));
    const headers = new Map<string, string>();
    for (const [k, v] of rec.warcHeaders.headers as Iterable<[string, string]>) headers.set(k.toLowerCase(), v);
    out.push({ offset: parser.offset, length: parser.recordLength, type: rec.warcType, headers, block });
  }
  return out;
}

function warcFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.warc.gz'))
    .sort();
}

describe('WarcWriter', () => {
  it('writes every record kind so that warcio reads back each field, digest, length and offset', async () => {
    const dir = freshDir();
    const w = new WarcWriter({
      dir,
      version: '0.1.0',
      now: () => T0,
      warcinfoFields: [
        ['operator', 'Åsa <asa@example.org>'],
        ['isPartOf', 'test-crawl'],
      ],
    });
    await w.start();
    const url = 'http://bücher.test/straße?q=日本';
    const big = noise(5 * 1024 * 1024);
    const rawHead = Buffer.concat([
      Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nX-Title: '),
      Buffer.from('Ünïcødé 日本', 'utf8'),
      Buffer.from('\r\n\r\n'),
    ]);
    const req = requestRecord({
      date: T0,
      targetUri: url,
      httpHead: 'GET /stra%C3%9Fe?q=%E6%97%A5%E6%9C%AC HTTP/1.1\r\nHost: xn--bcher-kva.test\r\n\r\n',
      ipAddress: '127.0.0.2',
    });
    const res = responseRecord({
      date: T0 + 1,
      targetUri: url,
      httpHead: rawHead,
      body: big,
      ipAddress: '127.0.0.2',
      concurrentTo: [req.id],
    });
    const meta = metadataRecord({
      date: T0 + 2,
      targetUri: url,
      concurrentTo: [res.id],
      fields: [
        ['outlink', 'http://a.test/ü'],
        ['fetchTimeMs', '12'],
      ],
    });
    const again = revisitRecord({
      date: T0 + 3,
      targetUri: url,
      payloadDigest: res.payloadDigest ?? '',
      refersToTargetUri: url,
      refersToDate: T0 + 1,
      refersTo: res.id,
      httpHead: 'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n',
    });
    const small = page(1);
    const records = [req, res, meta, again, small];
    const results: WarcWriteResult[] = [];
    for (const r of records) results.push(await w.write(r));
    const flushed = await w.flush();
    await w.close();

    const [name] = warcFiles(dir);
    assert.equal(name, 'shoal-20240501120000-00001.warc.gz');
    const path = join(dir, name ?? '');
    assert.deepEqual(flushed, { filename: name, durableBytes: statSync(path).size });

    const read = await readAll(path);
    assert.deepEqual(
      read.map((r) => r.type),
      ['warcinfo', 'request', 'response', 'metadata', 'revisit', 'response'],
    );
    const info = read[0];
    assert.ok(info !== undefined);
    assert.equal(info.offset, 0);
    assert.equal(info.headers.get('warc-filename'), name);
    const infoText = info.block.toString('utf8');
    for (const line of [
      'software: shoal/0.1.0',
      'format: WARC File Format 1.1',
      'conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/',
      'operator: Åsa <asa@example.org>',
      'isPartOf: test-crawl',
    ]) {
      assert.ok(infoText.includes(`${line}\r\n`), line);
    }
    const infoId = info.headers.get('warc-record-id');

    for (let i = 0; i < records.length; i++) {
      const r = records[i] as WarcRecord;
      const got = read[i + 1];
      assert.ok(got !== undefined);
      const h = got.headers;
      assert.equal(got.offset, results[i]?.offset, `offset of record ${i}`);
      assert.equal(got.length, results[i]?.length, `length of record ${i}`);
      assert.equal(h.get('warc-record-id'), r.id);
      assert.equal(h.get('warc-date'), r.date);
      assert.equal(h.get('warc-warcinfo-id'), infoId);
      assert.equal(Number(h.get('content-length')), got.block.length);
      assert.equal(got.block.length, r.blockLength);
      assert.ok(got.block.equals(Buffer.concat(r.block)), `block of record ${i}`);
      assert.equal(h.get('warc-block-digest'), payloadDigest(got.block), `block digest of record ${i}`);
    }
    const [, rq, rs, md, rv] = read;
    assert.equal(rq?.headers.get('warc-target-uri'), 'http://xn--bcher-kva.test/stra%C3%9Fe?q=%E6%97%A5%E6%9C%AC');
    assert.equal(rq?.headers.get('content-type'), 'application/http;msgtype=request');
    assert.equal(rq?.headers.get('warc-ip-address'), '127.0.0.2');
    assert.equal(rs?.headers.get('content-type'), 'application/http;msgtype=response');
    assert.equal(rs?.headers.get('warc-concurrent-to'), req.id);
    assert.equal(rs?.headers.get('warc-payload-digest'), payloadDigest(big));
    assert.ok(rs?.block.subarray(0, rawHead.length).equals(rawHead), 'non-ASCII header bytes kept as received');
    assert.equal(md?.headers.get('content-type'), 'application/warc-fields');
    assert.equal(md?.block.toString('utf8'), 'outlink: http://a.test/ü\r\nfetchTimeMs: 12\r\n');
    assert.equal(rv?.headers.get('warc-profile'), IDENTICAL_PAYLOAD_PROFILE);
    assert.equal(rv?.headers.get('warc-refers-to'), res.id);
    assert.equal(rv?.headers.get('warc-refers-to-date'), res.date);
    assert.equal(rv?.headers.get('warc-payload-digest'), payloadDigest(big));

    // With HTTP parsing on, warcio sees the status and the 5 MB payload.
    const parser = new WARCParser(createReadStream(path));
    for await (const rec of parser) {
      if (rec.warcType !== 'response' || rec.warcHeader('WARC-Record-ID') !== res.id) continue;
      assert.equal(rec.httpHeaders?.statusCode, 200);
      assert.ok(Buffer.from(await rec.readFully()).equals(big));
    }
  });

  it('starts every record on its own gzip member, readable from its offset alone', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0 });
    await w.start();
    const records = [page(1), page(2, 300_000), page(3)];
    const results = await Promise.all(records.map((r) => w.write(r)));
    await w.close();
    const path = join(dir, results[0]?.filename ?? '');
    const file = readFileSync(path);
    for (let i = 0; i < records.length; i++) {
      const { offset, length } = results[i] as WarcWriteResult;
      const member = file.subarray(offset, offset + length);
      assert.deepEqual([...member.subarray(0, 3)], [0x1f, 0x8b, 8]);
      const data = zlib.gunzipSync(member); // exactly one record: header, block, two CRLFs
      const tail = Buffer.concat([...(records[i] as WarcRecord).block, Buffer.from('\r\n\r\n')]);
      assert.ok(data.subarray(0, 10).equals(Buffer.from('WARC/1.1\r\n')));
      assert.ok(data.subarray(data.length - tail.length).equals(tail));
      assert.equal(
        data.length - tail.length,
        encodeRecord(records[i] as WarcRecord, '<urn:uuid:00000000-0000-4000-8000-000000000000>')[0]?.length,
        'header of the same size',
      );
      const rec = await WARCParser.parse(createReadStream(path, { start: offset }));
      assert.equal(rec?.warcHeader('WARC-Record-ID'), records[i]?.id);
      assert.equal(Buffer.from(await (rec?.readFully() ?? Promise.resolve(new Uint8Array()))).length, records[i]?.block[1]?.length ?? -1);
    }
    const last = results[results.length - 1] as WarcWriteResult;
    assert.equal(last.offset + last.length, file.length, 'members are back to back');
    // Standard gunzip reads the whole file as one stream of records.
    assert.ok(zlib.gunzipSync(file).subarray(0, 10).equals(Buffer.from('WARC/1.1\r\n')));
  });

  it('rotates once a file has passed maxFileBytes, each file opening with a warcinfo', async () => {
    const dir = freshDir();
    let clock = T0;
    const w = new WarcWriter({ dir, version: '0.1.0', prefix: 'node-a', maxFileBytes: 1500, now: () => (clock += 1000) });
    await w.start();
    const results: WarcWriteResult[] = [];
    const members: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await w.write(page(i, 2000));
      results.push(r);
      members.push(r.length);
    }
    await w.close();
    const files = warcFiles(dir);
    assert.ok(files.length > 2, `several files, got ${files.length}`);
    files.forEach((f, i) => assert.match(f, new RegExp(`^node-a-\\d{14}-${String(i + 1).padStart(5, '0')}\\.warc\\.gz$`)));
    assert.equal(files[0], 'node-a-20240501120001-00001.warc.gz');
    const maxMember = Math.max(...members);
    let seen = 0;
    for (const f of files) {
      const read = await readAll(join(dir, f));
      assert.equal(read[0]?.type, 'warcinfo');
      assert.equal(read[0]?.headers.get('warc-filename'), f);
      assert.ok(read.length >= 2);
      for (const r of read.slice(1)) {
        assert.equal(r.headers.get('warc-warcinfo-id'), read[0]?.headers.get('warc-record-id'));
        assert.equal(r.headers.get('warc-target-uri'), `http://site.test/p/${seen}`);
        assert.equal(results[seen]?.filename, f);
        assert.equal(results[seen]?.offset, r.offset);
        seen++;
      }
      const size = statSync(join(dir, f)).size;
      assert.ok(size < 1500 + maxMember, 'a file ends with the record that carried it past the limit');
      const beforeLast = read[read.length - 1]?.offset ?? 0;
      if (f !== files[files.length - 1]) assert.ok(beforeLast < 1500, 'and not later');
    }
    assert.equal(seen, 20);
  });

  it('with a tiny limit, every file holds its warcinfo and one record', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', maxFileBytes: 1, now: () => T0 });
    await w.start();
    for (let i = 0; i < 3; i++) await w.write(page(i));
    await w.close();
    const files = warcFiles(dir);
    assert.deepEqual(files, [
      'shoal-20240501120000-00001.warc.gz',
      'shoal-20240501120000-00002.warc.gz',
      'shoal-20240501120000-00003.warc.gz',
    ]);
    for (const f of files)
      assert.deepEqual(
        (await readAll(join(dir, f))).map((r) => r.type),
        ['warcinfo', 'response'],
      );
  });

  it('close is idempotent, drains what is queued, and refuses later writes', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0 });
    await w.start();
    const pending = [w.write(page(1)), w.write(page(2))];
    const c1 = w.close();
    const c2 = w.close();
    assert.equal(c1, c2);
    await c1;
    assert.equal((await Promise.all(pending)).length, 2);
    await assert.rejects(w.write(page(3)), /closed/);
    await assert.rejects(w.flush());
    assert.equal((await readAll(join(dir, warcFiles(dir)[0] ?? ''))).length, 3);
    await new WarcWriter({ dir: freshDir(), version: '0' }).close(); // never started: nothing to do
  });

  it('flush reports the file that was current when it was called, even if a write then rotates', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', maxFileBytes: 1, now: () => T0 });
    await w.start();
    const first = await w.write(page(1));
    const flushed = w.flush();
    const second = w.write(page(2)); // passes the limit: a new file
    assert.notEqual((await second).filename, first.filename);
    assert.deepEqual(await flushed, { filename: first.filename, durableBytes: statSync(join(dir, first.filename)).size });
    await w.close();
  });

  it('after an I/O failure, rejects the pending and every later call with an IO error', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', maxFileBytes: 1, now: () => T0 });
    await w.start();
    await w.write(page(1));
    rmSync(dir, { recursive: true }); // the next file cannot be created
    const isIoError = (e: unknown): boolean => e instanceof ShoalError && e.code === 'IO';
    await assert.rejects(w.write(page(2)), isIoError);
    await assert.rejects(w.write(page(3)), isIoError);
    await assert.rejects(w.flush(), isIoError);
    await assert.rejects(w.close(), isIoError);
  });

  it('builds gzip members from large pieces without joining them, for any level', () => {
    const pieces = [Buffer.from('head\r\n'), noise(600_000, 7), Buffer.alloc(300_000, 0x61), Buffer.from('\r\n\r\n')];
    for (const level of [0, 1, 6, 9]) {
      const m = gzipMember(pieces, level);
      const bytes = Buffer.concat(m.pieces);
      assert.equal(bytes.length, m.length);
      assert.ok(zlib.gunzipSync(bytes).equals(Buffer.concat(pieces)), `level ${level}`);
      const r = readGzipMember(Buffer.concat([bytes, Buffer.from('next')]));
      assert.equal(r.kind === 'ok' ? r.length : -1, m.length);
      // The noise (level 0: stored, the worst case) comes out of one zlib buffer with room to spare, not joined from 16 KiB pieces.
      if (level === 0) assert.ok(m.pieces.some((p) => p.length > 600_000 && p.buffer.byteLength > p.length));
    }
    assert.ok(zlib.gunzipSync(Buffer.concat(gzipMember([]).pieces)).length === 0);
  });

  it('stores a range that is compressed already, wherever it falls across the pieces', () => {
    const text = Buffer.from('the same words again and again '.repeat(400)); // 12,400 compressible bytes
    const pieces = [Buffer.from('WARC/1.1\r\n\r\n'), text.subarray(0, 5000), text.subarray(5000), Buffer.from('\r\n\r\n')];
    const all = Buffer.concat(pieces);
    const deflated = gzipMember(pieces, 6).length;
    for (const [from, to] of [
      [14, 14 + 12_400],
      [0, all.length],
      [100, 5014],
      [3000, 9000],
      [5014, 5015 + 2000],
    ] as const) {
      const m = gzipMember(pieces, 6, { from, to });
      const bytes = Buffer.concat(m.pieces);
      assert.equal(bytes.length, m.length);
      assert.ok(zlib.gunzipSync(bytes).equals(all), `[${from}, ${to}) round trip`);
      assert.equal(readGzipMember(bytes).kind, 'ok');
      assert.ok(m.length > to - from, `[${from}, ${to}): ${to - from} bytes stored (member ${m.length} bytes)`);
      assert.ok(m.length < to - from + deflated + 64, `[${from}, ${to}): the rest is deflated`);
    }
    // Short ranges, and level 0, are not worth a separate call: the member is the plain one.
    assert.deepEqual(Buffer.concat(gzipMember(pieces, 6, { from: 20, to: 1000 }).pieces), Buffer.concat(gzipMember(pieces, 6).pieces));
    assert.ok(zlib.gunzipSync(Buffer.concat(gzipMember(pieces, 0, { from: 14, to: 12_414 }).pieces)).equals(all));
  });

  it('stores the body of a gzip-encoded response in its WARC member, and readers see the same record', async () => {
    const dir = freshDir();
    const plain = Buffer.from('<p>compressible text, over and over</p>\n'.repeat(300));
    const gz = zlib.gzipSync(plain);
    const record = (i: number, encoded: boolean): WarcRecord =>
      responseRecord({
        date: T0 + i,
        targetUri: `http://site.test/${i}`,
        body: encoded ? gz : plain,
        httpHead: `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n${encoded ? 'Content-Encoding: gzip\r\n' : ''}\r\n`,
      });
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0 });
    await w.start();
    const a = await w.write(record(1, true));
    const b = await w.write(record(2, false));
    await w.close();
    assert.ok(a.length > gz.length, `the gzip body (${gz.length} bytes) is stored: member ${a.length} bytes`);
    assert.ok(b.length < plain.length / 5, 'a plain body is deflated');
    const [file] = warcFiles(dir);
    const read = await readAll(join(dir, file as string));
    assert.ok(read[1]?.block.subarray(-gz.length).equals(gz), 'the stored body reads back byte for byte');
  });

  it('reads members written by other tools (file name and comment in the header)', () => {
    const data = Buffer.from('WARC/1.1\r\n\r\n');
    const deflated = zlib.deflateRawSync(data);
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(zlib.crc32(data) >>> 0, 0);
    trailer.writeUInt32LE(data.length, 4);
    const member = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 8 | 16, 0, 0, 0, 0, 0, 3]), Buffer.from('x.warc\0hi\0'), deflated, trailer]);
    const r = readGzipMember(member);
    assert.ok(r.kind === 'ok' && r.length === member.length && r.data.equals(data));
    assert.equal(readGzipMember(member.subarray(0, 14)).kind, 'incomplete');
    assert.equal(readGzipMember(Buffer.from('WARC/1.1')).kind, 'invalid');
    const badCrc = Buffer.from(member);
    badCrc.writeUInt32LE((zlib.crc32(data) ^ 1) >>> 0, member.length - 8);
    assert.equal(readGzipMember(badCrc).kind, 'invalid');
  });
});

describe('repairWarcTail', () => {
  /** A small file of four members and its member boundaries. */
  async function smallFile(): Promise<{ bytes: Buffer; ends: number[] }> {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0, isIndexed: false });
    await w.start();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await w.write(page(i, 40)));
    await w.close();
    const bytes = readFileSync(join(dir, warcFiles(dir)[0] ?? ''));
    return { bytes, ends: [results[0]?.offset ?? 0, ...results.map((r) => r.offset + r.length)] };
  }

  it('keeps every complete record and nothing else, whatever byte the file was cut at', async () => {
    const { bytes, ends } = await smallFile();
    assert.equal(ends[ends.length - 1], bytes.length);
    const path = join(ramRoot, 'cut.warc.gz');
    assert.ok(bytes.length > 1000, `a file of ${bytes.length} bytes`);
    for (let cut = 0; cut <= bytes.length; cut++) {
      writeFileSync(path, bytes.subarray(0, cut));
      const expected = Math.max(0, ...ends.filter((e) => e <= cut));
      const r = repairWarcTail(path);
      assert.deepEqual(r, { keptBytes: expected, droppedBytes: cut - expected }, `cut at ${cut}`);
      const kept = readFileSync(path);
      assert.ok(kept.equals(bytes.subarray(0, expected)), `content after a cut at ${cut}`);
    }
    // A repaired file is complete: warcio reads every record in it.
    writeFileSync(path, bytes.subarray(0, (ends[2] ?? 0) + 5));
    repairWarcTail(path);
    assert.deepEqual(
      (await readAll(path)).map((r) => r.type),
      ['warcinfo', 'response', 'response'],
    );
  });

  it('drops zeros left after the last member and a last member that fails its checksum', async () => {
    const { bytes, ends } = await smallFile();
    const path = join(root, 'zeros.warc.gz');
    writeFileSync(path, Buffer.concat([bytes, Buffer.alloc(4096)]));
    assert.deepEqual(repairWarcTail(path), { keptBytes: bytes.length, droppedBytes: 4096 });
    const flipped = Buffer.from(bytes);
    flipped[bytes.length - 6] = (flipped[bytes.length - 6] ?? 0) ^ 0xff; // inside the last CRC-32
    writeFileSync(path, flipped);
    assert.deepEqual(repairWarcTail(path), { keptBytes: ends[2], droppedBytes: bytes.length - (ends[2] ?? 0) });
    writeFileSync(path, bytes);
    assert.deepEqual(repairWarcTail(path), { keptBytes: bytes.length, droppedBytes: 0 });
  });
});

describe('WarcWriter resume', () => {
  it('repairs a torn last file, keeps appending to it, and reconciles the index', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0 });
    await w.start();
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await w.write(page(i)));
    await w.close();
    const name = results[0]?.filename ?? '';
    const path = join(dir, name);
    const indexPath = join(dir, INDEX_FILE);
    const fullIndex = readFileSync(indexPath, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    assert.equal(fullIndex.length, 5);

    // kill -9 in the middle of record 4, whose index line was half written; record 3 made it to
    // the WARC file but not to the index.
    const last = results[4] as WarcWriteResult;
    truncateSync(path, last.offset + Math.floor(last.length / 2));
    writeFileSync(indexPath, `${fullIndex.slice(0, 3).join('\n')}\n${(fullIndex[3] ?? '').slice(0, 30)}`);

    const w2 = new WarcWriter({ dir, version: '0.1.0', now: () => T0 + 60_000 });
    const report = await w2.start();
    assert.deepEqual(report, {
      lastFile: name,
      keptBytes: last.offset,
      droppedBytes: Math.floor(last.length / 2),
      droppedIndexLines: 1,
      reindexed: 1,
      isAppending: true,
    });
    assert.deepEqual(
      readFileSync(indexPath, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
      fullIndex.slice(0, 4),
    );
    const r5 = await w2.write(page(5));
    assert.deepEqual({ filename: r5.filename, offset: r5.offset }, { filename: name, offset: last.offset });
    await w2.close();
    const read = await readAll(path);
    assert.deepEqual(
      read.map((r) => r.headers.get('warc-target-uri') ?? 'info'),
      ['info', ...[0, 1, 2, 3, 5].map((i) => `http://site.test/p/${i}`)],
    );
    assert.ok(read.slice(1).every((r) => r.headers.get('warc-warcinfo-id') === read[0]?.headers.get('warc-record-id')));
    assert.equal(
      readFileSync(indexPath, 'utf8')
        .split('\n')
        .filter((l) => l !== '').length,
      5,
    );
  });

  it('drops index lines that point past the repaired end', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0 });
    await w.start();
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await w.write(page(i)));
    await w.close();
    const path = join(dir, results[0]?.filename ?? '');
    truncateSync(path, (results[2]?.offset ?? 0) + 3);
    const w2 = new WarcWriter({ dir, version: '0.1.0' });
    const report = await w2.start();
    await w2.close();
    assert.equal(report.droppedIndexLines, 1);
    assert.equal(report.reindexed, 0);
    const lines = readFileSync(join(dir, INDEX_FILE), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    assert.equal(lines.length, 2);
  });

  it('starts a new file when the last one is full, and restarts one whose warcinfo was torn', async () => {
    const dir = freshDir();
    const w = new WarcWriter({ dir, version: '0.1.0', maxFileBytes: 1, now: () => T0 });
    await w.start();
    await w.write(page(1));
    await w.close();
    const w2 = new WarcWriter({ dir, version: '0.1.0', maxFileBytes: 1, now: () => T0 });
    const report = await w2.start();
    assert.equal(report.isAppending, false);
    await w2.write(page(2));
    await w2.close();
    assert.deepEqual(warcFiles(dir), ['shoal-20240501120000-00001.warc.gz', 'shoal-20240501120000-00002.warc.gz']);

    const torn = join(dir, 'shoal-20240501120000-00003.warc.gz');
    writeFileSync(torn, readFileSync(join(dir, 'shoal-20240501120000-00002.warc.gz')).subarray(0, 20));
    appendFileSync(join(dir, INDEX_FILE), '');
    const w3 = new WarcWriter({ dir, version: '0.1.0', now: () => T0 + 3_600_000 });
    const r3 = await w3.start();
    assert.deepEqual(
      { keptBytes: r3.keptBytes, droppedBytes: r3.droppedBytes, isAppending: r3.isAppending },
      { keptBytes: 0, droppedBytes: 20, isAppending: false },
    );
    await w3.write(page(3));
    await w3.close();
    assert.deepEqual(warcFiles(dir), [
      'shoal-20240501120000-00001.warc.gz',
      'shoal-20240501120000-00002.warc.gz',
      'shoal-20240501130000-00003.warc.gz',
    ]);
  });

  describe('with a compressor elsewhere (worker threads)', () => {
    /**
     * A compressor whose batches finish out of order, some of them failing (the writer then compresses
     * itself): it holds batches until it has three, then finishes them newest first; `finishHeld`
     * lets go of the ones still held, for when no more batches come.
     */
    function shuffledCompressor(failEvery: number): { compress: WarcCompressor; batches: number[]; finishHeld: () => void } {
      const batches: number[] = [];
      let held: (() => void)[] = [];
      const finishHeld = (): void => {
        const group = held.reverse();
        held = [];
        for (const finish of group) finish();
      };
      const compress: WarcCompressor = async (records, level) => {
        const k = batches.push(records.length);
        await new Promise<void>((resolve) => {
          held.push(resolve);
          if (held.length === 3) finishHeld();
        });
        if (k % failEvery === 0) throw new Error('worker died');
        return records.map(({ pieces, stored }) => gzipMember(pieces, level, stored));
      };
      return { compress, batches, finishHeld };
    }

    it('lands records in call order with the offsets it reported, rotating and flushing in line', async () => {
      const dir = freshDir();
      const { compress, batches, finishHeld } = shuffledCompressor(5);
      const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0, maxFileBytes: 20_000, compress });
      await w.start();
      const written: Promise<WarcWriteResult>[] = [];
      const flushes: Promise<{ filename: string | null; durableBytes: number }>[] = [];
      const flushedAfter: number[] = [];
      for (let i = 0; i < 120; i++) {
        written.push(w.write(page(i, i % 9 === 0 ? 6000 : 300)));
        if (i % 10 === 9) {
          flushes.push(w.flush());
          flushedAfter.push(i);
        }
        if (i % 4 === 3) await new Promise((resolve) => setImmediate(resolve)); // several records per batch, several batches in flight
      }
      finishHeld();
      const results = await Promise.all(written);
      const flushed = await Promise.all(flushes);
      await w.close();
      assert.ok(batches.length > 10 && batches.some((b) => b > 1), `batches ${batches.join(',')}`);

      const files = warcFiles(dir);
      assert.ok(files.length >= 3, `rotated into ${files.length} files`);
      // Read every file back: the records in call order, each at the offset and length its write reported.
      const seen: { file: string; offset: number; length: number; uri: string }[] = [];
      for (const f of files) {
        const records = await readAll(join(dir, f));
        assert.equal(records[0]?.type, 'warcinfo');
        for (const r of records.slice(1))
          seen.push({ file: f, offset: r.offset, length: r.length, uri: r.headers.get('warc-target-uri') ?? '' });
      }
      assert.deepEqual(
        seen.map((r) => r.uri),
        results.map((_, i) => `http://site.test/p/${i}`),
      );
      results.forEach((r, i) => {
        const at = seen[i];
        assert.deepEqual(
          { file: r.filename, offset: r.offset, length: r.length },
          { file: at?.file, offset: at?.offset, length: at?.length },
          `record ${i}`,
        );
      });
      // A file is rotated once it has reached the limit (counting records still compressing at their raw size).
      for (const f of files.slice(0, -1))
        assert.ok(statSync(join(dir, f)).size < 20_000 + 7000, `${f} is ${statSync(join(dir, f)).size} bytes`);
      // Each flush covers exactly the records written before it: its durable length ends just after the last of them.
      let checked = 0;
      flushed.forEach((fl, k) => {
        const last = results[flushedAfter[k] as number] as WarcWriteResult;
        if (fl.filename !== last.filename) return; // a write after the flush's last record rotated first
        assert.equal(fl.durableBytes, last.offset + last.length, `flush ${k}`);
        checked++;
      });
      assert.ok(checked >= flushed.length / 2, `${checked} of ${flushed.length} flushes checked`);
      // The index lists every response at its place.
      const index = readFileSync(join(dir, INDEX_FILE), 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      assert.equal(index.length, results.length);
    });

    it('a compressor that always fails costs nothing but time: the writer compresses itself', async () => {
      const dir = freshDir();
      const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0, compress: () => Promise.reject(new Error('no workers')) });
      await w.start();
      const results = await Promise.all([w.write(page(1)), w.write(page(2)), w.write(page(3))]);
      await w.close();
      const records = await readAll(join(dir, warcFiles(dir)[0] ?? ''));
      assert.deepEqual(
        records.slice(1).map((r) => r.offset),
        results.map((r) => r.offset),
      );
    });

    it('close waits for records still being compressed', async () => {
      const dir = freshDir();
      // The compressor holds its batch until the test releases it, once close has been called.
      let onCalled!: () => void;
      const called = new Promise<void>((resolve) => {
        onCalled = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const held: WarcCompressor = async (records, level) => {
        onCalled();
        await released;
        return records.map(({ pieces, stored }) => gzipMember(pieces, level, stored));
      };
      const w = new WarcWriter({ dir, version: '0.1.0', now: () => T0, compress: held });
      await w.start();
      const pending = [w.write(page(1)), w.write(page(2))];
      let isReleased = false;
      const closed = w.close().then(() => assert.ok(isReleased, 'close resolved only after the compressor finished'));
      await called;
      // A turn of the event loop with the records still held: a close that thought it had nothing to
      // wait for would resolve here; one that closed the file anyway leaves the records out of it.
      await new Promise((resolve) => setImmediate(resolve));
      isReleased = true;
      release();
      await closed;
      const results = await Promise.all(pending);
      const records = await readAll(join(dir, warcFiles(dir)[0] ?? ''));
      assert.equal(records.length, 3);
      assert.equal(results[1]?.offset, records[2]?.offset);
    });
  });
});
