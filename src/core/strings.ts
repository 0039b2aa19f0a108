/**
 * String helpers for hot paths.
 */

let sink = 0;

/**
 * Returns `s`, stored by V8 as one contiguous run of characters. A string built by concatenation
 * is kept as a tree of its parts, and every longer string later built from it copies that tree
 * part by part; reading one character makes V8 copy it into one piece once, in place. Use it on
 * strings that are kept and reused many times (cached paths, origins).
 */
export function flatten(s: string): string {
  // The result is kept so that the read cannot be optimized away.
  sink = (sink + (s.length > 0 ? s.charCodeAt(0) : 0)) | 0;
  return s;
}

/**
 * A strategy's id and parameters on one line, for logs and summaries:
 * `pagerank (damping 0.9, recomputeEvery 1000)`; objects and lists as JSON.
 */
export function specLabel(spec: { readonly id: string; readonly params: Readonly<Record<string, unknown>> }): string {
  const params = Object.entries(spec.params).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return params.length === 0 ? spec.id : `${spec.id} (${params.join(', ')})`;
}
