/**
 * Where each edge of a CSR built by `csrFromEdges` (`eval/csr.ts`) came from: the loaders keep
 * per-edge facts (nofollow, which file and record) in input order and read them by CSR edge.
 */
import type { Csr } from '../../eval/csr.js';

/**
 * `origin[e]` = the index in `src` of CSR edge e. csrFromEdges is a stable counting sort on the
 * source, so the same walk over `src` gives every edge's place.
 */
export function edgeOrigins(csr: Csr, src: Uint32Array): Uint32Array {
  const fill = csr.offsets.slice(0, csr.nodeCount);
  const origin = new Uint32Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const u = src[i] as number;
    const e = fill[u] as number;
    fill[u] = e + 1;
    origin[e] = i;
  }
  return origin;
}
