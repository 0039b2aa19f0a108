/**
 * Who hands URLs to whom, as far as the fetch records tell: a page fetched by node j that was found
 * on a page node i fetched (`fromUrl`), i ≠ j, is a URL node i passed to node j (or a page it
 * forwarded) that got crawled. Counting these gives a node × node matrix of exchanged URLs that bore
 * fruit; the URLs sent and received in all (duplicates and ones never crawled included) are in each
 * node's progress.
 *
 * The node of each fetched URL is remembered in a window of the `maxUrls` most recent ones, so memory
 * stays bounded; a URL found on a page older than the window is not counted.
 */
import type { CrawlLogRecord } from '../../store/records.js';

/** See the file comment. */
export class DiscoveryMatrix {
  /** URL → index of the node that fetched it, oldest first. */
  private readonly fetchedBy = new Map<string, number>();
  private readonly indexOf = new Map<string, number>();
  private readonly nodes: string[] = [];
  /** counts[i][j]: pages j fetched that were found on i's pages. */
  private readonly counts: number[][] = [];

  constructor(private readonly maxUrls = 50_000) {}

  /** Counts one record; only downloads (a response arrived) count. */
  add(r: Pick<CrawlLogRecord, 'node' | 'url' | 'fromUrl' | 'status'>): void {
    if (r.status === null) return;
    const to = this.index(r.node);
    const from = r.fromUrl === null ? undefined : this.fetchedBy.get(r.fromUrl);
    const row = from === undefined || from === to ? undefined : this.counts[from];
    if (row !== undefined) row[to] = (row[to] ?? 0) + 1;
    if (this.fetchedBy.has(r.url)) return;
    this.fetchedBy.set(r.url, to);
    if (this.fetchedBy.size > this.maxUrls) {
      const oldest = this.fetchedBy.keys().next();
      if (oldest.done !== true) this.fetchedBy.delete(oldest.value);
    }
  }

  /** The matrix over the nodes seen, in `order` where given (others after it), or null before two nodes. */
  view(order: readonly string[] = []): { nodes: string[]; counts: number[][] } | null {
    const names = [...order.filter((n) => this.indexOf.has(n)), ...this.nodes.filter((n) => !order.includes(n))];
    if (names.length < 2) return null;
    const idx = names.map((n) => this.indexOf.get(n) as number);
    return { nodes: names, counts: idx.map((i) => idx.map((j) => this.counts[i]?.[j] ?? 0)) };
  }

  private index(node: string): number {
    let i = this.indexOf.get(node);
    if (i !== undefined) return i;
    i = this.nodes.length;
    this.nodes.push(node);
    this.indexOf.set(node, i);
    for (const row of this.counts) row.push(0);
    this.counts.push(new Array<number>(i + 1).fill(0));
    return i;
  }
}
