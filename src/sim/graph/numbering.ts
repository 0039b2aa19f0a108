/**
 * Dense ids for names in order of first sight (0, 1, 2, ...): how the graph loaders number pages
 * by URL and hosts by `host[:port]`. One map entry and one array slot per name.
 */

/** Names ↔ dense ids; see the file comment. */
export class Numbering {
  private readonly ids = new Map<string, number>();
  /** Id → name, in order of first sight. */
  readonly names: string[] = [];

  /** Number of names. */
  get size(): number {
    return this.names.length;
  }

  /** The id of `name`: the next free one on first sight. */
  idOf(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** The id of `name`, or −1 when it has none (nothing is added). */
  find(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  /** The name of `id`. */
  nameOf(id: number): string {
    return this.names[id] as string;
  }
}

/** The host of each page, numbered in page order by `hostKeyOf(page)`, with the host names. */
export function numberHosts(
  pageCount: number,
  hostKeyOf: (page: number) => string,
): { readonly pageHost: Uint32Array; readonly hosts: Numbering } {
  const hosts = new Numbering();
  const pageHost = new Uint32Array(pageCount);
  for (let p = 0; p < pageCount; p++) pageHost[p] = hosts.idOf(hostKeyOf(p));
  return { pageHost, hosts };
}
