/**
 * Name resolution for the crawler (SPEC §2 item 6): host name -> IP address, recorded with every
 * fetch because the IP partitioner and the per-IP politeness rule need it.
 *
 * **Contract.** `resolve` never rejects for a name that does not resolve: a failure is data
 * (`dns-error`, with the resolver's code such as `ENOTFOUND`), so the crawl can count it and move
 * on. IP literals resolve to themselves. Names are compared case-insensitively and in their ASCII
 * (punycode) form. Implementations may cache, and must then honour a positive and a negative
 * time-to-live; concurrent lookups of one name share a single query. `close()` is idempotent.
 *
 * **Sources.** SPEC §2 item 6; Mercator (seed 001) on why a crawler needs its own DNS cache.
 */

/**
 * How long a crawl waits for a name server by default, ms, before it goes on without the answer (the
 * lookup goes on): enough for an answer the local resolver holds. Every page that links a new host
 * whose name is slower would hold its fetch slot this long (on the Python documentation, 100 ms made
 * its 528 pages take 28–30 s instead of 19 s, measured when the page also held its host's connection).
 */
export const DEFAULT_DNS_WAIT_MS = 20;

/** Where an answer came from (a crawl-log field). */
export const ResolveSource = { hostsMap: 'hosts-map', literal: 'literal', dns: 'dns', cache: 'cache' } as const;
export type ResolveSource = (typeof ResolveSource)[keyof typeof ResolveSource];

/** The outcome of one resolution. */
export type ResolveResult =
  | { readonly kind: 'ok'; readonly ip: string; readonly family: 4 | 6; readonly source: ResolveSource }
  | { readonly kind: 'dns-error'; readonly code: string; readonly message: string; readonly source: ResolveSource };

/**
 * Codes of a definite answer that a name has no address: it does not exist (NXDOMAIN: `ENOTFOUND`),
 * it has no address record (`ENODATA`), it is not a host name (`EBADNAME`), or it is not in the
 * hosts map while system lookups are off (`ENOHOSTSMAP`). Every other failure (a name server that
 * timed out, failed or refused: `ETIMEOUT`, `ESERVFAIL`, `EAI_AGAIN`, ...) says nothing about the
 * name, and a later lookup may succeed.
 */
const UNRESOLVABLE_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'ENOHOSTSMAP']);

/** Whether `result` says for certain that the name has no address (the codes above); false for an address, a failure that may pass, or null. */
export function isUnresolvable(result: ResolveResult | null): result is Extract<ResolveResult, { kind: 'dns-error' }> {
  return result !== null && result.kind === 'dns-error' && UNRESOLVABLE_CODES.has(result.code);
}

/** Resolves host names to addresses. */
export interface Resolver {
  resolve(host: string): Promise<ResolveResult>;
  /**
   * The answer `resolve` would give without a lookup (an IP literal, a fixed answer, a fresh cached
   * one), or null when it would have to ask. Optional: a resolver without it is never asked.
   */
  peek?(host: string): ResolveResult | null;
  close(): void;
}
