/**
 * Compressed sparse row (CSR) graphs on typed arrays: the one graph representation of `eval/`,
 * the simulator and the ground-truth export. Node ids are 0..n−1; the out-links of node u are
 * `targets[offsets[u] .. offsets[u + 1])`. A million nodes and twenty million edges take about
 * 84 MB and no per-node objects.
 */

/** A directed graph in compressed sparse row form. Edge order within a node is meaningful (kept). */
export interface Csr {
  /** Number of nodes n. */
  readonly nodeCount: number;
  /** n + 1 entries: out-links of u are `targets[offsets[u]]` .. `targets[offsets[u + 1] − 1]`. */
  readonly offsets: Uint32Array;
  /** Target node of each edge, grouped by source node. */
  readonly targets: Uint32Array;
}

/**
 * Builds a CSR from an edge list (src[i] → dst[i]) by a stable counting sort on the source: the
 * edges of each node keep their input order. Duplicate edges and self-loops are kept as given.
 *
 * @param n number of nodes; every id in `src` and `dst` must be < n (checked).
 * @throws RangeError if the arrays differ in length or an id is out of range.
 */
export function csrFromEdges(n: number, src: Uint32Array, dst: Uint32Array): Csr {
  if (src.length !== dst.length) throw new RangeError(`csrFromEdges: ${src.length} sources but ${dst.length} targets`);
  const m = src.length;
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < m; i++) {
    const u = src[i] as number;
    const v = dst[i] as number;
    if (u >= n || v >= n) throw new RangeError(`csrFromEdges: edge ${i} (${u} -> ${v}) names a node >= ${n}`);
    offsets[u + 1] = (offsets[u + 1] as number) + 1;
  }
  for (let u = 0; u < n; u++) offsets[u + 1] = (offsets[u + 1] as number) + (offsets[u] as number);
  const fill = offsets.slice(0, n);
  const targets = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const u = src[i] as number;
    const at = fill[u] as number;
    targets[at] = dst[i] as number;
    fill[u] = at + 1;
  }
  return { nodeCount: n, offsets, targets };
}

/** Number of out-links of node u. */
export function outDegree(csr: Csr, u: number): number {
  return (csr.offsets[u + 1] as number) - (csr.offsets[u] as number);
}

/** In-degree of every node (each edge counts once, duplicates included). */
export function inDegrees(csr: Csr): Uint32Array {
  const deg = new Uint32Array(csr.nodeCount);
  const { targets } = csr;
  const m = csr.offsets[csr.nodeCount] as number;
  for (let i = 0; i < m; i++) {
    const v = targets[i] as number;
    deg[v] = (deg[v] as number) + 1;
  }
  return deg;
}

/** The reverse graph (every edge u → v becomes v → u), in-links of each node in source order. */
export function transpose(csr: Csr): Csr {
  const n = csr.nodeCount;
  const { offsets, targets } = csr;
  const deg = inDegrees(csr);
  const rOffsets = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) rOffsets[v + 1] = (rOffsets[v] as number) + (deg[v] as number);
  const fill = rOffsets.slice(0, n);
  const rTargets = new Uint32Array(offsets[n] as number);
  for (let u = 0; u < n; u++) {
    const end = offsets[u + 1] as number;
    for (let e = offsets[u] as number; e < end; e++) {
      const v = targets[e] as number;
      const at = fill[v] as number;
      rTargets[at] = u;
      fill[v] = at + 1;
    }
  }
  return { nodeCount: n, offsets: rOffsets, targets: rTargets };
}
