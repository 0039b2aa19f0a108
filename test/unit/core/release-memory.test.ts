/**
 * releaseMemory: a large buffer's memory goes back at the next minor collection, even once the
 * buffer has been promoted to the old generation; small buffers, and slabs of Node's Buffer pool
 * that other Buffers share, are left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUnsharedMemory, MIN_RELEASED_BYTES, releaseMemory } from '../../../src/core/release-memory.js';
import { collectYoung } from '../../helpers/gc.js';

const MiB = 2 ** 20;
const arrayBuffers = (): number => process.memoryUsage().arrayBuffers;

test('released buffers read as empty, and their memory goes at minor collections', () => {
  const buffers = Array.from({ length: 32 }, (_, i) => Buffer.allocUnsafeSlow(MiB).fill(i));
  collectYoung(); // the buffers survive: promoted to the old generation, as a page's body is
  const held = arrayBuffers();
  assert.ok(held >= 32 * MiB);
  for (const b of buffers.splice(0)) assert.equal(releaseMemory(b), true);
  collectYoung();
  assert.ok(held - arrayBuffers() >= 30 * MiB, `freed ${((held - arrayBuffers()) / MiB).toFixed(1)} MiB without a full collection`);
});

test('the control: dropped without release, promoted buffers stay until a full collection', () => {
  let buffers: Buffer[] | null = Array.from({ length: 32 }, (_, i) => Buffer.allocUnsafeSlow(MiB).fill(i));
  collectYoung();
  const held = arrayBuffers();
  assert.equal(buffers.length, 32);
  buffers = null;
  collectYoung();
  assert.ok(held - arrayBuffers() < 8 * MiB, `freed ${((held - arrayBuffers()) / MiB).toFixed(1)} MiB`);
});

test('a view releases all of its memory; other views of it read as empty', () => {
  const memory = Buffer.allocUnsafeSlow(MIN_RELEASED_BYTES * 2).fill(7);
  const view = memory.subarray(10, 20);
  assert.equal(releaseMemory(view), true);
  assert.equal(memory.length, 0);
  assert.equal(view.length, 0);
});

test('small buffers and slabs of the Buffer pool are left alone', () => {
  const small = Buffer.allocUnsafeSlow(MIN_RELEASED_BYTES - 1).fill(1);
  assert.equal(releaseMemory(small), false);
  assert.equal(small.length, MIN_RELEASED_BYTES - 1);
  const pooled = Buffer.from('a Buffer from the pool');
  const neighbour = Buffer.from('its neighbour');
  assert.equal(pooled.buffer, neighbour.buffer);
  assert.equal(releaseMemory(pooled), false);
  assert.equal(neighbour.toString(), 'its neighbour');
});

test('memory that cannot be detached is left to the collector', () => {
  // WebAssembly is not in the compiler's library here (no DOM types): typed as far as this test uses it.
  const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } } }).WebAssembly;
  const memory = new wasm.Memory({ initial: 8 }); // 512 KiB
  const view = new Uint8Array(memory.buffer);
  view[3] = 42;
  assert.equal(releaseMemory(view), false);
  assert.equal(view.length, 8 * 65536);
  assert.equal(new Uint8Array(memory.buffer)[3], 42);
});

test('isUnsharedMemory: memory of its own of the size asked, not a pool slab nor shared memory', () => {
  const own = Buffer.allocUnsafeSlow(64 * 1024);
  assert.equal(isUnsharedMemory(own, 64 * 1024), true);
  assert.equal(isUnsharedMemory(own.subarray(0, 10), 64 * 1024), true, 'judged by its whole buffer');
  assert.equal(isUnsharedMemory(own, 64 * 1024 + 1), false);
  assert.equal(isUnsharedMemory(Buffer.from('pooled'), 0), false);
  assert.equal(isUnsharedMemory(new Uint8Array(new SharedArrayBuffer(1 << 20)), 0), false);
});
