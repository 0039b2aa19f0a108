/**
 * The indexed heap of src/frontier/host-heap.ts: order, slot bookkeeping, and invariants under a long
 * seeded run of random pushes, pops, removals and key changes checked against a plain sorted model.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HostHeap, NOT_IN_HEAP } from '../../../src/frontier/host-heap.js';
import { Rng } from '../../../src/core/prng.js';

interface Item {
  heapIndex: number;
  key: number;
  readonly id: number;
}

// Ties broken by id, so the pop order is fully determined and the model can predict it.
const before = (a: Item, b: Item): boolean => a.key < b.key || (a.key === b.key && a.id < b.id);
const item = (id: number, key: number): Item => ({ id, key, heapIndex: NOT_IN_HEAP });

function drain(heap: HostHeap<Item>): number[] {
  const out: number[] = [];
  for (let x = heap.pop(); x !== undefined; x = heap.pop()) out.push(x.id);
  return out;
}

describe('HostHeap', () => {
  test('pops by key, ties by the caller-supplied tie-break', () => {
    const heap = new HostHeap<Item>(before);
    // keys: id 0→5, 1→1, 2→5, 3→0, 4→1; expected: key 0 (3), key 1 (1 then 4), key 5 (0 then 2)
    [5, 1, 5, 0, 1].forEach((key, id) => heap.push(item(id, key)));
    assert.equal(heap.size, 5);
    assert.equal(heap.peek()?.id, 3);
    assert.deepEqual(drain(heap), [3, 1, 4, 0, 2]);
    assert.equal(heap.pop(), undefined);
    assert.equal(heap.peek(), undefined);
  });

  test('remove and update keep slots right and the order intact', () => {
    const heap = new HostHeap<Item>(before);
    const items = [10, 20, 30, 40, 50, 60].map((key, id) => item(id, key));
    for (const x of items) heap.push(x);
    const [a, b, c, , e] = items as [Item, Item, Item, Item, Item, Item];
    assert.equal(heap.remove(c), true);
    assert.equal(c.heapIndex, NOT_IN_HEAP);
    assert.equal(heap.has(c), false);
    assert.equal(heap.remove(c), false, 'removing twice is a no-op');
    e.key = 5; // 50 -> 5: moves up to the top
    assert.equal(heap.update(e), true);
    a.key = 100; // 10 -> 100: moves down to the bottom
    heap.update(a);
    heap.validate();
    assert.equal(heap.update(c), false, 'update of an item that is not held does nothing');
    assert.deepEqual(drain(heap), [4, 1, 3, 5, 0]);
    assert.equal(b.heapIndex, NOT_IN_HEAP, 'popped items are marked out of any heap');
  });

  test('refuses an item that already lives in a heap, even another one', () => {
    const one = new HostHeap<Item>(before);
    const two = new HostHeap<Item>(before);
    const x = item(0, 1);
    one.push(x);
    assert.throws(() => one.push(x), /already in a heap/);
    assert.throws(() => two.push(x), /already in a heap/);
    assert.equal(two.has(x), false);
    assert.equal(two.remove(x), false, 'another heap cannot remove it');
    one.clear();
    assert.equal(x.heapIndex, NOT_IN_HEAP);
    two.push(x);
    assert.equal(two.peek(), x);
  });

  test('validate reports a broken heap', () => {
    const heap = new HostHeap<Item>(before);
    const x = item(0, 1);
    const y = item(1, 2);
    heap.push(x);
    heap.push(y);
    y.key = 0; // changed without update(): the heap order is now wrong
    assert.throws(() => heap.validate(), /before its parent/);
  });

  test('keeps its invariants under 20,000 random operations (seeded)', () => {
    const rng = new Rng(20240611, 1, 0);
    const heap = new HostHeap<Item>(before);
    const inside = new Set<Item>();
    let nextId = 0;
    for (let step = 0; step < 20_000; step++) {
      const members = [...inside];
      const op = rng.int(10);
      if (op < 4 || members.length === 0) {
        const x = item(nextId++, rng.int(50));
        heap.push(x);
        inside.add(x);
      } else if (op < 6) {
        const popped = heap.pop() as Item;
        const best = members.reduce((m, x) => (before(x, m) ? x : m));
        assert.equal(popped, best, `step ${step}: pop must return the model's minimum`);
        inside.delete(popped);
      } else if (op < 8) {
        const x = rng.pick(members);
        assert.equal(heap.remove(x), true);
        inside.delete(x);
      } else {
        const x = rng.pick(members);
        x.key = rng.int(50);
        assert.equal(heap.update(x), true);
      }
      assert.equal(heap.size, inside.size);
      if (step % 97 === 0 || heap.size < 8) heap.validate();
      for (const x of inside) assert.ok(heap.has(x));
    }
    heap.validate();
    const expected = [...inside].sort((a, b) => (before(a, b) ? -1 : 1)).map((x) => x.id);
    assert.deepEqual(drain(heap), expected);
  });
});
