/** Shared by the URL-seen set tests. */

/** What a correct set answers for `batch` (1: new), kept in a JS Set of strings. */
export function oracleAnswers(oracle: Set<string>, batch: BigUint64Array): Uint8Array {
  const out = new Uint8Array(batch.length);
  batch.forEach((f, i) => {
    const k = f.toString(16);
    if (!oracle.has(k)) {
      oracle.add(k);
      out[i] = 1;
    }
  });
  return out;
}
