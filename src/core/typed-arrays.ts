/**
 * Growing typed arrays: the one helper every loader, table and per-id state uses instead of its own
 * doubling code. Capacity doubles, so n appends cost O(n) copies in all.
 */

/** A typed array of numbers. */
export type NumberArray = Float64Array | Float32Array | Uint32Array | Int32Array | Uint16Array | Int16Array | Uint8Array | Int8Array;

/**
 * `a` if it has room for index `need − 1`, else a copy at least twice as long (new cells `fill`).
 * The caller keeps the returned array.
 */
export function withRoomFor<T extends NumberArray>(a: T, need: number, fill = 0): T {
  if (need <= a.length) return a;
  let capacity = Math.max(64, a.length * 2);
  while (capacity < need) capacity *= 2;
  const Ctor = a.constructor as new (length: number) => T;
  const b = new Ctor(capacity);
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
}
