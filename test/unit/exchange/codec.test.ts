import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { Packr } from 'msgpackr';
import { ShoalError } from '../../../src/core/errors.js';
import { decodeMessage, encodeMessage, MAX_INFLATED_BYTES } from '../../../src/exchange/codec.js';
import type { ExchangeMessage, ForwardedPageMessage } from '../../../src/exchange/messages.js';

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b);

const PAGE: ForwardedPageMessage = {
  kind: 'page',
  from: 'node-1',
  seq: 7,
  url: 'https://example.com/a?b=1',
  depth: 2,
  fromUrl: 'https://example.com/',
  fetchedAtMs: 1_700_000_000_123,
  durationMs: 12.5,
  ip: '93.184.216.34',
  request: new TextEncoder().encode('GET /a?b=1 HTTP/1.1\r\nHost: example.com\r\n\r\n'),
  status: 200,
  statusText: 'OK',
  headers: { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' },
  responseHead: new TextEncoder().encode('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n'),
  rawBody: bytes(0x1f, 0x8b, 0, 255, 254, 0, 1),
  body: new TextEncoder().encode('<html>héllo</html>'),
  contentEncodings: ['gzip'],
  contentType: 'text/html',
  charset: 'utf-8',
};

/** One message of every kind and shape, with and without optional fields. */
const SAMPLES: readonly ExchangeMessage[] = [
  { kind: 'urls', from: 'node-1', seq: 1, urls: [] },
  {
    kind: 'urls',
    from: 'n',
    seq: 2,
    urls: [
      { url: 'http://a.example/', depth: 0, fromUrl: null },
      { url: 'https://b.example/x%20y', depth: 3, fromUrl: 'http://a.example/', anchorText: 'B — link', priorityHint: 0.25 },
      { url: 'https://c.example/', depth: 1, fromUrl: 'http://a.example/', priorityHint: -3 },
    ],
  },
  PAGE,
  {
    ...PAGE,
    seq: 8,
    body: undefined,
    ip: null,
    fromUrl: null,
    contentType: null,
    charset: null,
    headers: {},
    rawBody: bytes(),
    contentEncodings: [],
  },
  {
    kind: 'links',
    from: 'node-2',
    seq: 2 ** 40,
    counts: [
      ['https://a.example/', 3],
      ['http://b.example/p', 0],
    ],
  },
  { kind: 'links', from: 'node-4', seq: 3, counts: [['https://c.example/', 2]], partition: 5 },
  { kind: 'simhashes', from: 'node-5', seq: 4, urls: [], simhashes: bytes() },
  {
    kind: 'simhashes',
    from: 'node-5',
    seq: 5,
    urls: ['https://a.example/near', 'http://b.example/copy?x=1'],
    simhashes: bytes(0xff, 0xee, 0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 1),
  },
  { kind: 'control', from: 'node-3', seq: 9, control: { kind: 'stats', pages: 10, bytes: 123_456, frontier: 7, atMs: 1_700_000_000_000 } },
  { kind: 'control', from: 'node-3', seq: 10, control: { kind: 'stop', reason: 'limit reached' } },
];

/** The message without optional fields that are undefined (deepEqual tells absent from undefined). */
function withoutUndefined(m: ExchangeMessage): ExchangeMessage {
  return m.kind === 'page' && m.body === undefined ? (({ body: _body, ...rest }) => rest)(m) : m;
}

const packr = new Packr({ useRecords: false });
/** A frame holding any MessagePack value, to build messages the encoder would never write. */
function frame(value: unknown, flags = 0): Uint8Array {
  const payload = packr.pack(value);
  return Buffer.concat([bytes(1, flags), flags === 1 ? deflateRawSync(payload) : payload]);
}

function assertInvalid(input: Uint8Array, why?: RegExp): void {
  assert.throws(
    () => decodeMessage(input),
    (err: unknown) => {
      assert.ok(err instanceof ShoalError, `not a ShoalError: ${String(err)}`);
      assert.equal(err.code, 'EXCHANGE_MESSAGE_INVALID');
      if (why !== undefined) assert.match(err.message, why);
      return true;
    },
  );
}

/** Deterministic PRNG (mulberry32): the fuzz cases are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('codec', () => {
  it('round-trips a message of every kind', () => {
    for (const m of SAMPLES) assert.deepStrictEqual(decodeMessage(encodeMessage(m)), withoutUndefined(m));
  });

  it('preserves byte fields byte for byte, whatever view they come in', () => {
    const backing = Buffer.from([9, 9, 0, 1, 2, 255, 9]);
    const m = { ...PAGE, rawBody: backing.subarray(2, 6), request: bytes(), body: new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff) };
    const got = decodeMessage(encodeMessage(m)) as ForwardedPageMessage;
    assert.deepStrictEqual([...got.rawBody], [0, 1, 2, 255]);
    assert.ok(got.rawBody instanceof Uint8Array);
    assert.equal(got.request.length, 0);
    assert.ok(got.body !== undefined && Buffer.from(got.body).equals(Buffer.from(m.body)));
  });

  it('copies byte fields out of a frame that was not deflated (the transport may reuse its buffer)', () => {
    const input = frame({ ...PAGE, body: undefined });
    const got = decodeMessage(input) as ForwardedPageMessage;
    input.fill(0);
    assert.deepStrictEqual(got.rawBody, PAGE.rawBody);
  });

  it('deflates pages always, other messages only above 1 KiB', () => {
    const tiny: ExchangeMessage = { ...PAGE, headers: {}, request: bytes(), responseHead: bytes(), rawBody: bytes(), body: undefined };
    assert.equal(encodeMessage(tiny)[1], 1);
    assert.equal(encodeMessage(SAMPLES[1] as ExchangeMessage)[1], 0);
    const many: ExchangeMessage = {
      kind: 'urls',
      from: 'n',
      seq: 1,
      urls: Array.from({ length: 200 }, (_, i) => ({ url: `https://example.com/page/${i}`, depth: 1, fromUrl: 'https://example.com/' })),
    };
    const encoded = encodeMessage(many);
    assert.equal(encoded[0], 1);
    assert.equal(encoded[1], 1);
    assert.deepStrictEqual(decodeMessage(encoded), many);
  });

  it('writes the same bytes however the sender ordered the fields', () => {
    const { kind, from, seq, ...rest } = PAGE;
    const reordered = { ...rest, seq, from, kind } as ForwardedPageMessage;
    assert.deepStrictEqual(encodeMessage(reordered), encodeMessage(PAGE));
  });

  it('rejects frames that are too short, of another version, or with unknown flags', () => {
    assertInvalid(bytes(), /too short/);
    assertInvalid(bytes(1, 0), /too short/);
    const good = encodeMessage(SAMPLES[0] as ExchangeMessage);
    assertInvalid(Buffer.concat([bytes(2), good.subarray(1)]), /version 2/);
    assertInvalid(Buffer.concat([bytes(1, 2), good.subarray(2)]), /flags/);
    assertInvalid(Buffer.concat([bytes(1, 1), good.subarray(2)]), /inflate/);
    assertInvalid('not bytes' as unknown as Uint8Array, /not a byte array/);
  });

  it('rejects every truncation of a valid message', () => {
    for (const m of [SAMPLES[1], PAGE, SAMPLES[4]] as ExchangeMessage[]) {
      const encoded = encodeMessage(m);
      for (let n = 0; n < encoded.length; n++) assertInvalid(encoded.subarray(0, n));
    }
  });

  it('rejects trailing bytes after the MessagePack value', () => {
    assertInvalid(Buffer.concat([encodeMessage(SAMPLES[0] as ExchangeMessage), bytes(0)]), /not MessagePack/);
  });

  it('rejects a payload that inflates past the cap (a zip bomb)', () => {
    const bomb = Buffer.concat([bytes(1, 1), deflateRawSync(Buffer.alloc(MAX_INFLATED_BYTES + 1024))]);
    assert.ok(bomb.length < 200_000);
    assertInvalid(bomb, /inflate/);
  });

  it('rejects fields of the wrong type or range, naming them', () => {
    const urls = { kind: 'urls', from: 'n', seq: 1, urls: [{ url: 'https://a.example/', depth: 0, fromUrl: null }] };
    const url0 = urls.urls[0];
    const page = { ...PAGE, body: undefined };
    const cases: [unknown, RegExp][] = [
      [null, /not a map/],
      [[1, 2], /not a map/],
      ['text', /not a map/],
      [new Date(0), /not a map/],
      [{ ...urls, kind: 'nope' }, /unknown message kind "nope"/],
      [{ ...urls, kind: 3 }, /unknown message kind/],
      [{ ...urls, from: undefined }, /from is not a string/],
      [{ ...urls, from: '' }, /from is empty/],
      [{ ...urls, seq: 0 }, /seq/],
      [{ ...urls, seq: 1.5 }, /seq/],
      [{ ...urls, seq: '1' }, /seq/],
      [{ ...urls, seq: 2 ** 53 }, /seq/],
      [{ ...urls, urls: 'x' }, /urls is not an array/],
      [{ ...urls, urls: [5] }, /urls\[0\] is not a map/],
      [{ ...urls, urls: [{ ...url0, url: 'ftp://a.example/' }] }, /urls\[0\]\.url/],
      [{ ...urls, urls: [{ ...url0, url: 'https://a.example/x y' }] }, /urls\[0\]\.url/],
      [{ ...urls, urls: [{ ...url0, url: `https://a.example/${'x'.repeat(70_000)}` }] }, /urls\[0\]\.url/],
      [{ ...urls, urls: [{ ...url0, depth: -1 }] }, /depth/],
      [{ ...urls, urls: [{ ...url0, fromUrl: 5 }] }, /fromUrl/],
      [{ ...urls, urls: [{ ...url0, anchorText: 3 }] }, /anchorText/],
      [{ ...urls, urls: [{ ...url0, priorityHint: NaN }] }, /priorityHint/],
      [{ ...page, request: 'GET /' }, /request is not binary/],
      [{ ...page, headers: { a: 1 } }, /headers\.a/],
      [{ ...page, headers: ['a'] }, /headers is not a map/],
      [{ ...page, contentEncodings: [1] }, /contentEncodings\[0\]/],
      [{ ...page, status: 200.5 }, /status/],
      [{ ...page, ip: 4 }, /ip/],
      [{ ...page, body: 'x' }, /body is not binary/],
      [{ ...page, fetchedAtMs: -1 }, /fetchedAtMs/],
      [{ ...page, durationMs: Infinity }, /durationMs/],
      [{ kind: 'links', from: 'n', seq: 1, counts: [['https://a.example/']] }, /counts\[0\] is not a \[url, count\] pair/],
      [{ kind: 'links', from: 'n', seq: 1, counts: [['https://a.example/', -1]] }, /counts\[0\]\[1\]/],
      [{ kind: 'links', from: 'n', seq: 1, counts: [[1, 1]] }, /counts\[0\]\[0\]/],
      [{ kind: 'links', from: 'n', seq: 1, counts: [], partition: -1 }, /message\.partition/],
      [{ kind: 'simhashes', from: 'n', seq: 1, urls: ['https://a.example/'] }, /simhashes is not binary/],
      [{ kind: 'simhashes', from: 'n', seq: 1, urls: ['https://a.example/'], simhashes: [1, 2] }, /simhashes is not binary/],
      [
        { kind: 'simhashes', from: 'n', seq: 1, urls: 'https://a.example/', simhashes: bytes(1, 0, 0, 0, 0, 0, 0, 0) },
        /urls is not an array/,
      ],
      [{ kind: 'simhashes', from: 'n', seq: 1, urls: ['a.example/x'], simhashes: bytes(1, 0, 0, 0, 0, 0, 0, 0) }, /urls\[0\]/],
      [
        { kind: 'simhashes', from: 'n', seq: 1, urls: ['https://a.example/'], simhashes: bytes(1, 2, 3) },
        /3 bytes, not 8 for each of 1 URLs/,
      ],
      [
        {
          kind: 'simhashes',
          from: 'n',
          seq: 1,
          urls: ['https://a.example/', 'https://b.example/'],
          simhashes: bytes(1, 0, 0, 0, 0, 0, 0, 0),
        },
        /8 bytes, not 8 for each of 2 URLs/,
      ],
      [
        {
          kind: 'simhashes',
          from: 'n',
          seq: 1,
          urls: ['https://a.example/', 'https://b.example/'],
          simhashes: new Uint8Array(16).fill(0, 0, 16).fill(7, 0, 8),
        },
        /simhashes\[1\] is 0/,
      ],
      [{ kind: 'control', from: 'n', seq: 1, control: { kind: 'x' } }, /unknown control kind "x"/],
      [{ kind: 'control', from: 'n', seq: 1, control: null }, /control is not a map/],
      [{ kind: 'control', from: 'n', seq: 1, control: { kind: 'stats', pages: 'a', bytes: 0, frontier: 0, atMs: 0 } }, /pages/],
      [{ kind: 'control', from: 'n', seq: 1, control: { kind: 'stop' } }, /reason/],
    ];
    for (const [value, why] of cases) {
      assertInvalid(frame(value), why);
      assertInvalid(frame(value, 1), why);
    }
  });

  it('drops unknown fields, and a header named __proto__ cannot change a prototype', () => {
    const got = decodeMessage(frame({ ...PAGE, body: undefined, extra: 1, headers: JSON.parse('{"__proto__":"x","a":"b"}') }, 1));
    assert.ok(got.kind === 'page');
    assert.equal('extra' in got, false);
    assert.equal(got.headers.a, 'b');
    assert.equal(Object.getPrototypeOf(got.headers), Object.prototype);
    assertInvalid(frame({ ...PAGE, body: undefined, headers: JSON.parse('{"__proto__":{"polluted":"x"}}') }, 1), /headers/);
  });

  it('throws nothing but EXCHANGE_MESSAGE_INVALID on random and mutated bytes', () => {
    const next = random(42);
    const valid = SAMPLES.map(encodeMessage);
    let rejected = 0;
    for (let i = 0; i < 4000; i++) {
      let input: Uint8Array;
      if (i % 2 === 0) {
        input = new Uint8Array(Math.floor(next() * 120)).map(() => Math.floor(next() * 256));
        if (input.length > 2 && next() < 0.7) {
          input[0] = 1;
          input[1] = next() < 0.5 ? 0 : 1;
        }
      } else {
        input = Uint8Array.from(valid[i % valid.length] as Uint8Array);
        for (let k = 1 + Math.floor(next() * 3); k > 0; k--) input[2 + Math.floor(next() * (input.length - 2))] = Math.floor(next() * 256);
      }
      try {
        const m = decodeMessage(input);
        assert.deepStrictEqual(decodeMessage(encodeMessage(m)), m); // what decodes is a well-formed message
      } catch (err) {
        if (!(err instanceof ShoalError) || err.code !== 'EXCHANGE_MESSAGE_INVALID') throw err;
        rejected++;
      }
    }
    assert.ok(rejected >= 2000, `only ${rejected} of 4000 rejected`); // the 2000 random ones at least
  });
});
