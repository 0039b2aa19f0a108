/**
 * Garbage collections for tests that check what a structure keeps alive: the heap in use after a
 * full collection, before and after the structure is filled, says what it holds; minor collections
 * alone say what is freed without waiting for a full one.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Exposing the collector after start-up is allowed; a fresh context then sees `gc`.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

/** Runs full collections until the heap stops shrinking; returns the bytes of the heap in use. */
export function collectGarbage(): number {
  let used = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    gc();
    const now = process.memoryUsage().heapUsed;
    if (now >= used) return now;
    used = now;
  }
  return used;
}

/** Runs minor collections (the young generation only), enough for its survivors to be promoted. */
export function collectYoung(): void {
  for (let i = 0; i < 3; i++) gc({ type: 'minor' });
}
