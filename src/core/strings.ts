/**
 * String helpers: for hot paths, and the one-line form of a strategy's spec.
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
 * A copy of `s` that holds no other string's characters. V8 keeps a substring of 13 or more
 * characters (`slice`, a regular expression's match) as a view of its parent, so a short text cut
 * from a page and kept in a cache keeps the whole page alive with it. Prefixing makes a new string
 * that V8 copies into one piece when it is sliced, so the result's parent is its own characters and
 * one more. Use it on text from a page that is kept beyond the page.
 */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/** A parameter value in a {@link StrategySpec}. */
export type SpecValue = string | number | boolean | readonly string[] | readonly number[];

/**
 * The identity of a strategy or metric (CONVENTIONS §3): its configuration id and every parameter
 * that changes its result, with the effective value. Ordering policies, partitioners, importance
 * metrics and curves all name themselves with one.
 */
export interface StrategySpec {
  /** Configuration id (`bfs`, `pagerank`, `host-hash`, `backlinks`, ...). */
  readonly id: string;
  /** Every parameter that changes the result, with its effective value. */
  readonly params: Readonly<Record<string, SpecValue>>;
}

/**
 * A strategy's id and parameters on one line, in the form `--order` reads back:
 * `pagerank(damping=0.9, recomputeEvery=1000)`, parameters in key order, lists as `[a,b]`, other
 * objects as JSON; the bare id when there are no parameters. For logs, summaries, legends and CSV
 * headers.
 */
export function specLabel(spec: { readonly id: string; readonly params: Readonly<Record<string, unknown>> }): string {
  const keys = Object.keys(spec.params).sort();
  if (keys.length === 0) return spec.id;
  const value = (v: unknown): string =>
    Array.isArray(v) ? `[${v.join(',')}]` : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  return `${spec.id}(${keys.map((k) => `${k}=${value(spec.params[k])}`).join(', ')})`;
}
