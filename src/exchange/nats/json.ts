/**
 * JSON helpers for the crawl's buckets: a canonical form, so two nodes holding equal configurations
 * write byte-identical values whatever their key order, and a parse that reports bad values clearly.
 */
import { ShoalError } from '../../core/errors.js';

/** JSON with object keys sorted at every level (arrays keep their order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

/** Parses a bucket value; a value that is not JSON (written by something else) is a broker-side problem. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ShoalError('EXCHANGE_MESSAGE_INVALID', `a value in the crawl's key-value bucket is not JSON: ${text.slice(0, 80)}`, {
      cause: err,
    });
  }
}
