/**
 * A graph from a tab-separated edge list, for graphs from elsewhere (a research data set, another
 * crawler's output). UTF-8, one link per line, in the order each page links (document order):
 *
 *     # comment lines and blank lines are skipped
 *     src<TAB>dst                               a link
 *     src<TAB>dst<TAB>flags                     flags: `nofollow` (not followed by the crawl), or empty
 *     src<TAB>dst<TAB>srcHost<TAB>dstHost       with the host of each page
 *     src<TAB>dst<TAB>srcHost<TAB>dstHost<TAB>flags
 *
 * Pages are named either by non-negative integer ids or by http(s) URLs, one kind per file. Ids may
 * be sparse; they are renumbered 0 .. n − 1 in increasing order (so a dense file keeps its ids), and
 * outputs name pages by the ids of the file. URLs are normalized as a crawl normalizes them, so two
 * spellings of one URL are one page.
 *
 * Hosts (the politeness key): a host column wins; otherwise a URL's `host[:port]`; otherwise (ids)
 * every page is its own host, so politeness never holds one page back for another. A page given two
 * different hosts is an error. Seeds: the first page of the file, unless the caller names others.
 */
import { ShoalError } from '../../core/errors.js';
import { csrFromEdges } from '../../eval/csr.js';
import { urlParts } from '../../url/url-parts.js';
import { readLines } from '../../store/read-lines.js';
import { normalizeUrl } from '../../url/normalize.js';
import { edgeOrigins } from './edge-origin.js';
import { GrowableU32 } from './growable.js';
import { Numbering } from './numbering.js';
import { SimGraphFormat, syntheticUrlOf, type SimGraph, type SimHosts } from './sim-graph.js';

const ID = /^\d+$/;
const URL_START = /^https?:\/\//i;
const NO_HOST = -1;

/** The pages of a file being read: raw name → temporary id (order of first sight). */
interface PageTable {
  readonly kind: 'ids' | 'urls';
  /** Temporary id → name (the original id as a number, or the normalized URL). */
  readonly names: (number | string)[];
  /** Temporary id → host index, or NO_HOST while none was given. */
  readonly hostOf: number[];
}

/**
 * Reads the edge list in `path` (see the file comment).
 * @throws ShoalError `IO` naming the file and line of the first malformed line, or when the file
 *   cannot be read or names no link.
 */
export async function loadTsvGraph(path: string): Promise<SimGraph> {
  const fail = (line: number, message: string): never => {
    throw new ShoalError('GRAPH_FORMAT', `graph file ${path}:${line}: ${message}`);
  };
  let table: PageTable | null = null;
  const byRaw = new Map<string, number>();
  const byNormalized = new Map<string, number>();
  const byId = new Map<number, number>();
  const hosts = new Numbering();
  const src = new GrowableU32();
  const dst = new GrowableU32();
  const flags = new GrowableU32();
  let isAnyNofollow = false;

  const pageOf = (t: PageTable, raw: string, line: number, column: string): number => {
    const known = byRaw.get(raw);
    if (known !== undefined) return known;
    let id: number;
    if (t.kind === 'ids') {
      if (!ID.test(raw))
        fail(line, `${column} ${JSON.stringify(raw)} is not an id: this file names pages by ids (a non-negative integer each)`);
      const value = Number(raw);
      if (!Number.isSafeInteger(value)) fail(line, `${column} ${raw} is too large for an id`);
      id = byId.get(value) ?? -1;
      if (id < 0) {
        id = t.names.length;
        byId.set(value, id);
        t.names.push(value);
        t.hostOf.push(NO_HOST);
      }
    } else {
      if (!URL_START.test(raw)) fail(line, `${column} ${JSON.stringify(raw)} is not an http(s) URL: this file names pages by URLs`);
      const normalized = normalizeUrl(raw);
      if (normalized.kind !== 'ok') return fail(line, `${column} ${JSON.stringify(raw)} is not a valid URL (${normalized.kind})`);
      id = byNormalized.get(normalized.url) ?? -1;
      if (id < 0) {
        id = t.names.length;
        byNormalized.set(normalized.url, id);
        t.names.push(normalized.url);
        t.hostOf.push(NO_HOST);
      }
    }
    if (byRaw.size < 1 << 22) byRaw.set(raw, id);
    return id;
  };
  const setHost = (t: PageTable, page: number, host: string, line: number): void => {
    if (host === '') return;
    if (/\s/.test(host)) fail(line, `host ${JSON.stringify(host)} holds white space`);
    const h = hosts.idOf(host.toLowerCase());
    const before = t.hostOf[page] as number;
    if (before !== NO_HOST && before !== h) {
      fail(line, `page ${String(t.names[page])} is on host ${host} here but on ${hosts.nameOf(before)} on an earlier line`);
    }
    t.hostOf[page] = h;
  };

  try {
    for await (const { text, lineNumber } of readLines(path)) {
      const line = text.endsWith('\r') ? text.slice(0, -1) : text;
      if (line.trim() === '' || line.startsWith('#')) continue;
      const fields = line.split('\t');
      if (fields.length < 2 || fields.length > 5) {
        fail(
          lineNumber,
          `expected src<TAB>dst with optional host columns and flags (2 to 5 fields), got ${fields.length} field${fields.length === 1 ? '' : 's'}`,
        );
      }
      const [a, b] = fields as [string, string];
      if (a === '' || b === '') fail(lineNumber, 'src and dst must not be empty');
      table ??= { kind: ID.test(a) ? 'ids' : 'urls', names: [], hostOf: [] };
      const u = pageOf(table, a, lineNumber, 'src');
      const v = pageOf(table, b, lineNumber, 'dst');
      if (fields.length >= 4) {
        setHost(table, u, fields[2] as string, lineNumber);
        setHost(table, v, fields[3] as string, lineNumber);
      }
      let flag = 0;
      if (fields.length === 3 || fields.length === 5) {
        const word = (fields[fields.length - 1] as string).trim().toLowerCase();
        if (word === 'nofollow') flag = 1;
        else if (word !== '') fail(lineNumber, `unknown flag ${JSON.stringify(word)} (the one flag is nofollow)`);
      }
      src.push(u);
      dst.push(v);
      flags.push(flag);
      if (flag === 1) isAnyNofollow = true;
    }
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    throw new ShoalError('GRAPH_FORMAT', `graph file ${path} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  if (table === null || src.length === 0) throw new ShoalError('GRAPH_FORMAT', `graph file ${path} names no link (lines of src<TAB>dst)`);
  return assemble(path, table, src, dst, flags, isAnyNofollow, hosts);
}

function assemble(
  path: string,
  table: PageTable,
  src: GrowableU32,
  dst: GrowableU32,
  flags: GrowableU32,
  isAnyNofollow: boolean,
  hostNumbering: Numbering,
): SimGraph {
  const n = table.names.length;
  // Final ids: by increasing original id for id files, by first sight for URL files.
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  if (table.kind === 'ids') order.sort((x, y) => (table.names[x] as number) - (table.names[y] as number));
  const finalOf = new Uint32Array(n);
  for (let f = 0; f < n; f++) finalOf[order[f] as number] = f;
  const m = src.length;
  const s = new Uint32Array(m);
  const d = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    s[i] = finalOf[src.data[i] as number] as number;
    d[i] = finalOf[dst.data[i] as number] as number;
  }
  const csr = csrFromEdges(n, s, d);
  const edgeNofollow = isAnyNofollow ? Uint8Array.from(edgeOrigins(csr, s), (i) => flags.data[i] as number) : null;

  const names = Array.from(order, (t) => table.names[t] as number | string);
  const pageHost = new Uint32Array(n);
  const ownHostOf = new Int32Array(n).fill(NO_HOST);
  let ownHosts = 0;
  for (let p = 0; p < n; p++) {
    const given = table.hostOf[order[p] as number] as number;
    if (given !== NO_HOST) {
      pageHost[p] = given;
    } else if (table.kind === 'urls') {
      pageHost[p] = hostNumbering.idOf(urlParts(names[p] as string).hostKey);
    } else {
      // Hosts of their own come after every named one, numbered in page order.
      ownHostOf[p] = ownHosts++;
    }
  }
  const namedHosts = hostNumbering.size;
  const hostCount = namedHosts + ownHosts;
  const ownHostPage = new Uint32Array(ownHosts);
  for (let p = 0; p < n; p++) {
    const own = ownHostOf[p] as number;
    if (own !== NO_HOST) {
      pageHost[p] = namedHosts + own;
      ownHostPage[own] = p;
    }
  }
  const nameOf = (p: number): string => String(names[p]);
  const hosts: SimHosts = {
    count: hostCount,
    // Own hosts get a made-up name per page; `.sim` keeps them out of every real domain.
    nameOf: (h) => (h < namedHosts ? hostNumbering.nameOf(h) : `page-${nameOf(ownHostPage[h - namedHosts] as number)}.sim`),
    ips: null,
    crawlDelayMs: null,
    measuredLatencyMs: null,
  };
  const isUrls = table.kind === 'urls';
  const byName = new Map<string, number>();
  const pageIdOf = (name: string): number => {
    if (isUrls) {
      if (byName.size === 0) names.forEach((u, p) => byName.set(u as string, p));
      const normalized = normalizeUrl(name);
      return normalized.kind === 'ok' ? (byName.get(normalized.url) ?? -1) : -1;
    }
    if (!ID.test(name)) return -1;
    const want = Number(name);
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = names[mid] as number;
      if (at === want) return mid;
      if (at < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  return {
    format: SimGraphFormat.tsv,
    source: path,
    pageCount: n,
    linkCount: m,
    csr,
    pageHost,
    hosts,
    edgeNofollow,
    pageKinds: null,
    seeds: Uint32Array.of(finalOf[src.data[0] as number] as number),
    hasUrls: isUrls,
    urlOf: isUrls ? nameOf : syntheticUrlOf(hosts, pageHost, nameOf),
    nameOf,
    pageIdOf,
    anchorOf: null,
    contentOf: null,
    pageBytes: null,
    labels: null,
    close: () => {},
  };
}
