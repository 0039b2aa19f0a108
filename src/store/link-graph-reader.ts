/**
 * Reads a crawl's link graph (`link-graph.ts`) back as a CSR over URL ids, for the simulator, `eval`
 * and reports, with each edge's flags and, on demand, its anchor text.
 *
 * Like the truth reader (`src/web/truth/read.ts`), nothing is trusted: the header must name this
 * format and version, the dictionary's ids must run 0, 1, 2, ... and every link record must pass its
 * check and name URLs and anchor bytes that exist; otherwise a `ShoalError` (`IO`) names the file and
 * the record. A graph that is still being written, or that a `kill -9` left, reads fine: the link
 * file's length is taken first, and only records complete by then are read, each of which had its
 * URLs and anchor text written before it.
 *
 * Memory: 18 bytes per link while building (source and target ids and flags as read, then the CSR,
 * the record index and flags per edge), 9 per link after, plus the URL strings.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalError } from '../core/errors.js';
import { csrFromEdges, type Csr } from '../eval/csr.js';
import {
  ANCHORS_FILE,
  LINKS_FILE,
  LINKS_HEADER_BYTES,
  LINK_RECORD_BYTES,
  URLS_FILE,
  URLS_HEADER,
  decodeLinkRecord,
  linkRecordProblem,
  linksHeader,
} from './link-graph.js';
import { readLines } from './read-lines.js';

/** A link graph in memory. Edge e of the CSR is the e-th link in (source, write order) order. */
export interface LinkGraph {
  /** URL of each id (`urls.tsv`). */
  readonly urls: readonly string[];
  /** The links as written: duplicates and self-links kept, each source's links in the order they were added. */
  readonly csr: Csr;
  /** Per CSR edge: its `LinkFlag` bits (unknown bits of later versions passed through). */
  readonly flags: Uint8Array;
  /** Per CSR edge: the index of its record in `links.bin`, which is the order links were added. */
  readonly edgeRecord: Uint32Array;
  /** Anchor text of CSR edge `edge`, read from disk ('' when it had none). */
  anchorOf(edge: number): string;
  /** Releases the files `anchorOf` reads; idempotent. */
  close(): void;
}

const CHUNK_RECORDS = 52_428; // about 1 MiB

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * Reads the link graph in `dir` (usually `<crawl dir>/links`).
 *
 * @throws ShoalError `IO` when a file is missing, of another format or version, or damaged.
 */
export async function readLinkGraph(dir: string): Promise<LinkGraph> {
  const fail = (file: string, message: string, cause?: unknown): never => {
    throw new ShoalError('IO', `link graph ${dir}: ${file}: ${message}`, cause === undefined ? undefined : { cause });
  };
  const linksPath = join(dir, LINKS_FILE);
  const anchorsPath = join(dir, ANCHORS_FILE);
  // The link file first: every record complete now had its URLs and anchor text written before it.
  const linksSize = statSync(linksPath, { throwIfNoEntry: false })?.size ?? fail(LINKS_FILE, 'missing');
  const linkCount = Math.max(0, Math.floor((linksSize - LINKS_HEADER_BYTES) / LINK_RECORD_BYTES));
  const urls = await readUrls(join(dir, URLS_FILE), fail);
  const anchorsBytes = statSync(anchorsPath, { throwIfNoEntry: false })?.size ?? fail(ANCHORS_FILE, 'missing');

  const n = urls.length;
  const src = new Uint32Array(linkCount);
  const dst = new Uint32Array(linkCount);
  const rawFlags = new Uint8Array(linkCount);
  const fd = openSync(linksPath, 'r');
  try {
    const header = readAt(fd, 0, LINKS_HEADER_BYTES);
    if (!header.equals(linksHeader()))
      fail(LINKS_FILE, 'header is not "SHOALLNK" with version 1 and 20-byte records: another format or version');
    for (let first = 0; first < linkCount; first += CHUNK_RECORDS) {
      const count = Math.min(CHUNK_RECORDS, linkCount - first);
      const buf = readAt(fd, LINKS_HEADER_BYTES + first * LINK_RECORD_BYTES, count * LINK_RECORD_BYTES);
      if (buf.length < count * LINK_RECORD_BYTES) fail(LINKS_FILE, 'shrank while being read');
      for (let i = 0; i < count; i++) {
        const at = i * LINK_RECORD_BYTES;
        const problem = linkRecordProblem(buf, at, n, anchorsBytes);
        if (problem !== null) fail(LINKS_FILE, `record ${first + i}: ${problem}`);
        src[first + i] = buf.readUInt32LE(at);
        dst[first + i] = buf.readUInt32LE(at + 4);
        rawFlags[first + i] = buf[at + 16] as number;
      }
    }
  } finally {
    closeSync(fd);
  }

  const csr = csrFromEdges(n, src, dst);
  // csrFromEdges is a stable counting sort on the source; the same pass gives each edge's record.
  const fill = csr.offsets.slice(0, n);
  const edgeRecord = new Uint32Array(linkCount);
  const flags = new Uint8Array(linkCount);
  for (let i = 0; i < linkCount; i++) {
    const u = src[i] as number;
    const e = fill[u] as number;
    fill[u] = e + 1;
    edgeRecord[e] = i;
    flags[e] = rawFlags[i] as number;
  }
  return { urls, csr, flags, edgeRecord, ...anchorReader(linksPath, anchorsPath, edgeRecord) };
}

async function readUrls(path: string, fail: (file: string, message: string, cause?: unknown) => never): Promise<string[]> {
  const urls: string[] = [];
  try {
    for await (const line of readLines(path)) {
      if (line.lineNumber === 1) {
        if (line.text !== URLS_HEADER) fail(URLS_FILE, `header is ${JSON.stringify(line.text)}, expected ${JSON.stringify(URLS_HEADER)}`);
        continue;
      }
      const tab = line.text.indexOf('\t');
      const id = line.text.slice(0, tab);
      if (tab < 0 || id !== String(urls.length) || tab === line.text.length - 1) {
        fail(URLS_FILE, `line ${line.lineNumber}: expected "${urls.length}<TAB><url>"`);
      }
      urls.push(line.text.slice(tab + 1));
    }
  } catch (err) {
    if (err instanceof ShoalError) throw err;
    return fail(URLS_FILE, 'cannot be read', err);
  }
  return urls;
}

/** `anchorOf` and `close` over lazily opened file descriptors. */
function anchorReader(linksPath: string, anchorsPath: string, edgeRecord: Uint32Array): Pick<LinkGraph, 'anchorOf' | 'close'> {
  let fds: { links: number; anchors: number } | null = null;
  let isClosed = false;
  return {
    anchorOf(edge: number): string {
      if (isClosed) throw new Error('LinkGraph.anchorOf(): the graph is closed');
      const record = edgeRecord[edge];
      if (!Number.isInteger(edge) || record === undefined) throw new RangeError(`no edge ${edge} (the graph has ${edgeRecord.length})`);
      fds ??= { links: openSync(linksPath, 'r'), anchors: openSync(anchorsPath, 'r') };
      const r = decodeLinkRecord(readAt(fds.links, LINKS_HEADER_BYTES + record * LINK_RECORD_BYTES, LINK_RECORD_BYTES));
      if (r === null) throw new ShoalError('IO', `${linksPath}: record ${record} changed since the graph was read`);
      return r.anchorBytes === 0 ? '' : readAt(fds.anchors, r.anchorOffset, r.anchorBytes).toString('utf8');
    },
    close(): void {
      if (fds !== null) {
        closeSync(fds.links);
        closeSync(fds.anchors);
      }
      fds = null;
      isClosed = true;
    },
  };
}
