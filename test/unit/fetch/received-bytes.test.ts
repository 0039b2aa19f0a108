/**
 * ReceivedBytes: a body's bytes come back exactly as pushed, whatever the chunking, and a large body
 * ends in one buffer of its own sized by the announced length.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { OWN_BUFFER_BYTES, ReceivedBytes } from '../../../src/fetch/received-bytes.js';

function pushAll(r: ReceivedBytes, data: Buffer, chunk: number): void {
  for (let at = 0; at < data.length; at += chunk) r.push(data.subarray(at, Math.min(data.length, at + chunk)));
}

test('the bytes come back as pushed, small and large, with and without an announced length', () => {
  for (const size of [0, 1, 1000, OWN_BUFFER_BYTES - 1, OWN_BUFFER_BYTES, OWN_BUFFER_BYTES + 1, 3 * OWN_BUFFER_BYTES + 17]) {
    for (const chunk of [1000, 65_536]) {
      for (const expected of [NaN, size, Math.floor(size / 2)]) {
        const data = randomBytes(size);
        const r = new ReceivedBytes(expected, 10 * 1024 * 1024);
        pushAll(r, data, chunk);
        assert.equal(r.length, size);
        assert.ok(r.bytes().equals(data), `size ${size}, chunks of ${chunk}, announced ${expected}`);
      }
    }
  }
});

test('a small body is its one chunk, not a copy', () => {
  const chunk = Buffer.from('hello');
  const r = new ReceivedBytes(5, 1000);
  r.push(chunk);
  assert.equal(r.bytes(), chunk);
});

test('a large body lives in one buffer of the announced length, and stays there as it grows', () => {
  const size = 5 * 1024 * 1024;
  const data = randomBytes(size);
  const r = new ReceivedBytes(size, 10 * 1024 * 1024);
  pushAll(r, data.subarray(0, OWN_BUFFER_BYTES + 10), 65_536);
  const first = r.bytes();
  assert.equal(first.buffer.byteLength, size, 'sized by Content-Length from the first copy on');
  pushAll(r, data.subarray(OWN_BUFFER_BYTES + 10), 65_536);
  const all = r.bytes();
  assert.equal(all.buffer, first.buffer, 'no reallocation');
  assert.ok(all.equals(data));
});

test('without an announced length it grows by doubling, never past the cap', () => {
  const cap = 1_000_000;
  const data = randomBytes(cap);
  const r = new ReceivedBytes(NaN, cap);
  pushAll(r, data, 65_536);
  const all = r.bytes();
  assert.ok(all.equals(data));
  assert.ok(all.buffer.byteLength <= cap, `buffer of ${all.buffer.byteLength} for a cap of ${cap}`);
});
