/** Exact duplicates within a crawl: first capture per content digest, bounded. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DedupIndex, packCapture, unpackCapture, type DedupStore, type FirstCapture } from '../../../../src/node/durability/dedup-index.js';
import { LogDedupStore } from '../../../../src/node/durability/dedup-store.js';
import { hostnameOfKey, urlParts } from '../../../../src/url/url-parts.js';
import { normalizeUrl } from '../../../../src/url/normalize.js';

const capture = (url: string) => ({
  url,
  payloadDigest: `sha1:${url}`,
  recordId: `<urn:uuid:${url}>`,
  warcDate: '2024-01-01T00:00:00.000Z',
});

describe('DedupIndex', () => {
  test('remembers the first capture of each digest and forgets the least recently matched beyond its size', () => {
    const index = new DedupIndex(2);
    index.remember('d1', capture('a'));
    index.remember('d2', capture('b'));
    assert.equal(index.find('d1')?.url, 'a');
    index.remember('d3', capture('c'));
    assert.equal(index.size, 2);
    assert.equal(index.find('d2'), undefined, 'd2 was the least recently matched');
    assert.equal(index.find('d1')?.url, 'a');
  });

  test('size 0 turns detection off', () => {
    const index = new DedupIndex(0);
    index.remember('d', capture('a'));
    assert.equal(index.find('d'), undefined);
  });
});

describe('packCapture', () => {
  test('gives back every field exactly, whatever characters they hold', () => {
    const cases: FirstCapture[] = [
      capture('http://a.test/x'),
      { url: 'http://a.test/a:b c?d=1:2#', payloadDigest: '', recordId: '<urn:uuid:1:2>', warcDate: '2024-01-01T00:00:00Z' },
      { url: '', payloadDigest: '12:34:', recordId: ':', warcDate: '0:0:0' },
      { url: 'http://bücher.test/ü', payloadDigest: 'sha1:ABC', recordId: 'ü:é', warcDate: '' },
    ];
    for (const c of cases) assert.deepEqual(unpackCapture(packCapture(c)), c);
  });

  test('the index and the store hand back what they were given', async () => {
    const c = { url: 'http://a.test/p:1 2', payloadDigest: '', recordId: '<urn:uuid:x>', warcDate: '2024-01-01T00:00:00.000Z' };
    const index = new DedupIndex(4);
    index.remember('d', c);
    assert.deepEqual(index.find('d'), c);
    const dir = mkdtempSync(join(tmpdir(), 'shoal-dedup-pack-'));
    try {
      const store = new LogDedupStore(dir, 4);
      await store.open();
      await store.putAll([['d', c]]);
      await store.close();
      const reopened = new LogDedupStore(dir, 4);
      await reopened.open();
      assert.deepEqual(reopened.get('d'), c);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('DedupIndex across runs', () => {
  /** A store in memory that records what it was given. */
  function memoryStore(): DedupStore & { readonly puts: string[][] } {
    const m = new Map<string, FirstCapture>();
    const puts: string[][] = [];
    return {
      puts,
      get: (d) => m.get(d),
      putAll: (captures) => {
        puts.push(captures.map(([d]) => d));
        for (const [d, c] of captures) if (!m.has(d)) m.set(d, c);
        return Promise.resolve();
      },
    };
  }

  test('only confirmed captures sealed before a checkpoint are stored, at its promote', async () => {
    const store = memoryStore();
    const index = new DedupIndex(10, store);
    index.remember('d1', capture('a'));
    index.remember('d2', capture('b'));
    index.confirm('d1', capture('a')); // its response record was written; d2's not yet
    index.seal();
    index.confirm('d2', capture('b')); // confirmed after the seal: the next checkpoint's
    await index.promote();
    assert.deepEqual(store.puts, [['d1']]);
    index.seal();
    await index.promote();
    assert.deepEqual(store.puts, [['d1'], ['d2']]);
    await index.promote();
    assert.equal(store.puts.length, 2, 'nothing sealed, nothing written');
  });

  test('a digest not in memory is looked up in the store (a later run), and kept in memory', () => {
    const store = memoryStore();
    void store.putAll([['old', capture('http://x.test/first')]]);
    const index = new DedupIndex(10, store);
    assert.equal(index.find('old')?.url, 'http://x.test/first');
    assert.equal(index.size, 1);
    assert.equal(index.find('never'), undefined);
  });

  test('LogDedupStore keeps first captures across close and open; reads back the newest maxDigests, each handed out once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-dedup-'));
    try {
      const a = new LogDedupStore(join(dir, 'dedup'), 2);
      await a.open();
      await a.putAll([
        ['d1', capture('a')],
        ['d2', capture('b')],
      ]);
      await a.putAll([['d3', capture('c')]]);
      await a.close();
      const b = new LogDedupStore(join(dir, 'dedup'), 2);
      await b.open();
      assert.equal(b.size, 2);
      assert.equal(b.get('d1'), undefined, 'the oldest is beyond maxDigests');
      assert.deepEqual(b.get('d2'), capture('b'));
      assert.equal(b.get('d2'), undefined, 'handed out once: the index keeps it');
      assert.deepEqual(b.get('d3'), capture('c'));
      await b.close();
      const store = new LogDedupStore(join(dir, 'dedup'), 10);
      await store.open();
      const resumed = new DedupIndex(10, store);
      assert.equal(resumed.find('d1')?.url, 'a', 'a resumed index finds a capture of an earlier run');
      assert.equal(resumed.find('d9'), undefined);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('urlParts', () => {
  test('hostnameOfKey gives the host name normalization gives, without port or userinfo', () => {
    for (const u of [
      'http://[::1]:8080/x',
      'http://user:pw@Ex.test:81/a',
      'http://bücher.test/',
      'https://a.test/',
      'http://127.0.0.1:9/',
    ]) {
      const n = normalizeUrl(u);
      assert.ok(n.kind === 'ok');
      assert.equal(hostnameOfKey(urlParts(n.url).hostKey), n.host, u);
    }
  });

  test('cuts origin, politeness key and robots path out of a normalized URL', () => {
    assert.deepEqual(urlParts('http://user:pw@a.test:8080/x/y?q=1'), {
      origin: 'http://a.test:8080',
      hostKey: 'a.test:8080',
      pathAndQuery: '/x/y?q=1',
    });
    assert.deepEqual(urlParts('https://[::1]/'), { origin: 'https://[::1]', hostKey: '[::1]', pathAndQuery: '/' });
  });
});
