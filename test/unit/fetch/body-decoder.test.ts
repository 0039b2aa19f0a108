/**
 * BodyDecoder: the same answers whether a body is decoded in one call when it ends (bodies up to
 * 1 MiB as received) or as a stream while it arrives (larger ones, and every body whose one call
 * meets the limit or a corrupt stream).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { BodyDecoder, decodeOnce, type DecodeMode } from '../../../src/fetch/body-decoder.js';

interface Run {
  readonly body: Buffer;
  readonly overs: number;
  readonly errors: Error[];
}

/** Feeds `data` in chunks of `chunkBytes` and finishes. */
async function decode(
  codings: string[],
  data: Buffer,
  maxBytes: number,
  options: { chunkBytes?: number; mode?: DecodeMode } = {},
): Promise<Run> {
  let overs = 0;
  const errors: Error[] = [];
  const d = new BodyDecoder(
    codings,
    maxBytes,
    options.mode ?? 'whole',
    () => overs++,
    (e) => errors.push(e),
  );
  const step = options.chunkBytes ?? 16 * 1024;
  for (let i = 0; i < data.length; i += step) d.write(data.subarray(i, i + step));
  return { body: await d.finish(), overs, errors };
}

/** Text that compresses like a page: words drawn from a small vocabulary. */
function pageText(bytes: number): Buffer {
  const words = ['crawl', 'frontier', 'host', 'queue', 'politeness', 'robots', 'anchor', 'shoal', 'page', 'link'];
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const w = `${words[(i * 7 + (i >> 3)) % words.length]}${i % 13 === 0 ? '\n' : ' '}`;
    parts.push(w);
    n += w.length;
  }
  return Buffer.from(parts.join('').slice(0, bytes));
}

test('small bodies: every coding and stacked codings decode to the original', async () => {
  const text = pageText(20_000);
  const cases: [string[], Buffer][] = [
    [['gzip'], gzipSync(text)],
    [['deflate'], deflateSync(text)],
    [['deflate'], deflateRawSync(text)],
    [['br'], brotliCompressSync(text)],
    [['gzip', 'br'], brotliCompressSync(gzipSync(text))],
    [['deflate', 'gzip'], gzipSync(deflateSync(text))],
  ];
  for (const [codings, data] of cases) {
    const r = await decode(codings, data, 1e6);
    assert.ok(r.body.equals(text), `${codings.join(',')}`);
    assert.equal(r.overs, 0);
    assert.deepEqual(r.errors, []);
  }
});

test('an empty body decodes to nothing, without an error', async () => {
  const r = await decode(['gzip'], Buffer.alloc(0), 1000);
  assert.equal(r.body.length, 0);
  assert.deepEqual([r.overs, r.errors.length], [0, 0]);
});

test('concatenated gzip members decode to their concatenation', async () => {
  const a = pageText(3000);
  const b = Buffer.from('second member');
  const r = await decode(['gzip'], Buffer.concat([gzipSync(a), gzipSync(b)]), 1e6);
  assert.ok(r.body.equals(Buffer.concat([a, b])));
});

test('over the limit, prefix mode: the first maxBytes and one onOver, for a small body (one call) and a large one (stream)', async () => {
  const small = gzipSync(Buffer.alloc(5_000_000, 0x41)); // a bomb: a few KB on the wire
  assert.ok(small.length < 64 * 1024);
  const bomb = await decode(['gzip'], small, 100_000, { mode: 'prefix' });
  assert.equal(bomb.overs, 1);
  assert.equal(bomb.body.length, 100_000);
  assert.ok(bomb.body.equals(Buffer.alloc(100_000, 0x41)));

  const big = gzipSync(randomBytes(3 * 1024 * 1024), { level: 1 }); // incompressible: > 1 MiB on the wire, decoded as it arrives
  assert.ok(big.length > 1024 * 1024);
  const r = await decode(['gzip'], big, 2 * 1024 * 1024, { mode: 'prefix' });
  assert.equal(r.overs, 1);
  assert.equal(r.body.length, 2 * 1024 * 1024);
});

test('over the limit, whole mode: one onOver and nothing kept, for a small body (one call) and a large one (stream)', async () => {
  const small = gzipSync(Buffer.alloc(5_000_000, 0x41));
  let overs = 0;
  const d = new BodyDecoder(
    ['gzip'],
    100_000,
    'whole',
    () => overs++,
    (e) => assert.fail(e),
  );
  d.write(small);
  const pending = d.finish();
  assert.equal(overs, 1, 'a small bomb is refused by the one call, without a second decoding as a stream');
  assert.equal((await pending).length, 0);
  assert.equal(overs, 1);

  const big = gzipSync(randomBytes(3 * 1024 * 1024), { level: 1 });
  const r = await decode(['gzip'], big, 2 * 1024 * 1024);
  assert.equal(r.overs, 1);
  assert.equal(r.body.length, 0);
  // An intermediate stage over the limit (stacked codings) keeps nothing either.
  const stacked = await decode(['gzip', 'br'], brotliCompressSync(gzipSync(randomBytes(300_000), { level: 0 })), 100_000);
  assert.deepEqual([stacked.overs, stacked.body.length], [1, 0]);
});

test('decodeOnce tells a body over the limit from a corrupt one', () => {
  const text = pageText(10_000);
  assert.equal(decodeOnce(['gzip'], gzipSync(text), 5_000, false).kind, 'over');
  assert.equal(decodeOnce(['br'], brotliCompressSync(text), 5_000, false).kind, 'over');
  assert.equal(decodeOnce(['gzip'], Buffer.concat([gzipSync(text).subarray(0, 20), Buffer.alloc(200, 7)]), 1e6, false).kind, 'corrupt');
  const ok = decodeOnce(['deflate', 'gzip'], gzipSync(deflateSync(text)), 10_000, false);
  assert.ok(ok.kind === 'decoded' && ok.body.equals(text));
});

test('a gzip body is decoded into one buffer of the length its trailer gives, not joined from pieces', () => {
  const text = pageText(500_000);
  const r = decodeOnce(['gzip'], gzipSync(text), 1e6, false);
  assert.ok(r.kind === 'decoded' && r.body.equals(text));
  assert.equal(r.body.buffer.byteLength, text.length + 64, "room for the trailer's length and some to spare");
  // A trailer that lies (or a cut body) still decodes correctly, or fails as corrupt: the room is a guess.
  const lying = gzipSync(text);
  lying.writeUInt32LE(100, lying.length - 4);
  assert.equal(decodeOnce(['gzip'], lying, 1e6, false).kind, 'corrupt');
  assert.equal(decodeOnce(['gzip'], Buffer.concat([gzipSync(text), gzipSync(Buffer.from('x'))]), 1e6, false).kind, 'decoded');
});

test('exactly at the limit is not over it', async () => {
  const text = pageText(50_000);
  const r = await decode(['gzip'], gzipSync(text), 50_000);
  assert.equal(r.overs, 0);
  assert.ok(r.body.equals(text));
});

test('a large body within the limit decodes as a stream to the same bytes', async () => {
  const data = randomBytes(2 * 1024 * 1024);
  for (const codings of [['gzip'], ['br']]) {
    const packed = codings[0] === 'gzip' ? gzipSync(data, { level: 1 }) : brotliCompressSync(data);
    const r = await decode(codings, packed, 4 * 1024 * 1024, { chunkBytes: 64 * 1024 });
    assert.ok(r.body.equals(data), codings.join(','));
    assert.deepEqual([r.overs, r.errors.length], [0, 0]);
  }
});

test('a corrupt body calls onError (small and large bodies)', async () => {
  const text = pageText(10_000);
  const corrupt = Buffer.concat([gzipSync(text).subarray(0, 20), Buffer.alloc(200, 7)]);
  const r = await decode(['gzip'], corrupt, 1e6);
  assert.equal(r.errors.length, 1);
  const bigCorrupt = Buffer.concat([gzipSync(randomBytes(1_500_000), { level: 1 }).subarray(0, 1_200_000), Buffer.alloc(100_000, 7)]);
  const rb = await decode(['gzip'], bigCorrupt, 4e6);
  assert.equal(rb.errors.length, 1);
});

test('lenient decoding keeps what a cut-off stream held; strict decoding fails on it', async () => {
  const text = pageText(40_000);
  const packed = gzipSync(text);
  const cut = packed.subarray(0, Math.floor(packed.length / 2));
  const lenient = await decode(['gzip'], cut, 1e6, { mode: 'prefix' });
  assert.deepEqual(lenient.errors, []);
  assert.ok(lenient.body.length > 0 && lenient.body.length < text.length);
  assert.ok(text.subarray(0, lenient.body.length).equals(lenient.body), 'a prefix of the original');
  const strict = await decode(['gzip'], cut, 1e6);
  assert.equal(strict.errors.length, 1);
});

test('stacked codings: an intermediate stage past the limit is over the limit too', async () => {
  // The outer coding (br) expands to a gzip stream larger than the limit.
  const inner = gzipSync(randomBytes(300_000), { level: 0 });
  const r = await decode(['gzip', 'br'], brotliCompressSync(inner), 100_000, { mode: 'prefix' });
  assert.equal(r.overs, 1);
  assert.ok(r.body.length <= 100_000);
});

test('destroy() before finish resolves with nothing further', async () => {
  const d = new BodyDecoder(
    ['gzip'],
    1e6,
    'whole',
    () => assert.fail('no onOver'),
    () => assert.fail('no onError'),
  );
  d.write(gzipSync(pageText(5000)));
  d.destroy();
  const body = await d.finish();
  assert.equal(body.length, 0);
});
