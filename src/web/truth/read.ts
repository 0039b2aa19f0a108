/**
 * Reads a ground-truth export (format.ts) back into columnar typed arrays, for `eval`, the
 * simulator and tests. Nothing is trusted: the manifest must name this format and version, every
 * file must have the size and SHA-256 the manifest records, and every row must parse; otherwise
 * a ShoalError `TRUTH_FORMAT` names the directory and the file.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ShoalError } from '../../core/errors.js';
import { StringColumnBuilder, type StringColumn } from '../../core/string-column.js';
import type { Csr } from '../../eval/csr.js';
import {
  DATA_FILES,
  ENTITIES_FILE,
  ENTITY_COLUMNS,
  HOSTS_FILE,
  HOST_COLUMNS,
  KINDS_FILE,
  MANIFEST_FILE,
  OFFSETS_FILE,
  PAGES_FILE,
  PAGE_COLUMNS,
  TARGETS_FILE,
  TRUTH_FORMAT_ID,
  TRUTH_VERSION,
  cityLabel,
  type TruthEntity,
  type TruthHost,
  type TruthManifest,
} from './format.js';

/** A truth export in memory: one typed array per pages.tsv column, indexed by page id. */
export interface Truth {
  readonly manifest: TruthManifest;
  readonly hosts: readonly TruthHost[];
  readonly pageCount: number;
  readonly pageHost: Uint32Array;
  /** Final HTTP status. */
  readonly status: Uint16Array;
  /** PageKind value (index into manifest.pageKinds). */
  readonly kind: Uint8Array;
  /** Index into manifest.categories. */
  readonly topic: Uint8Array;
  /** Index into manifest.languages. */
  readonly lang: Uint8Array;
  /** Community of the page's host, or -1. */
  readonly community: Int32Array;
  /** Index into manifest.cities, or -1. */
  readonly city: Int16Array;
  /** PageFlag bits. */
  readonly flags: Uint8Array;
  /** Page whose content this one repeats (mirror or near-duplicate), or -1. */
  readonly dupOf: Int32Array;
  /** Final redirect target, or -1. */
  readonly redirectTo: Int32Array;
  /** In-degree in the deduplicated graph. */
  readonly inDegree: Uint32Array;
  /** PageRank IR (sums to pageCount, to the exported precision). */
  readonly pagerank: Float64Array;
  /** Reach value (format.ts `Reach`). */
  readonly reach: Uint8Array;
  /** Canonical percent-encoded path of each page (`paths.at(page)`), stored compactly. */
  readonly paths: StringColumn;
  /** The deduplicated page graph. */
  readonly graph: Csr;
  /** Per edge of `graph`: LinkKind | NOFOLLOW_BIT. */
  readonly linkKinds: Uint8Array;
  /** The geographic entities (street addresses) of the pages, read from `entities.tsv` on the first call. */
  entities(): Promise<readonly TruthEntity[]>;
  /**
   * The page a URL names: matches the host (any case, Unicode or ASCII) and the exact canonical
   * path, ignoring scheme and port; a scheme-less `host/path` is accepted. -1 if none.
   */
  pageIdOf(url: string): number;
}

/**
 * Reads and verifies the truth export in `dir`.
 *
 * @throws ShoalError `TRUTH_FORMAT` when the export is incomplete, of another format or version,
 *   or a file does not match the manifest or does not parse.
 */
export async function readTruth(dir: string): Promise<Truth> {
  const fail = (file: string, message: string, cause?: unknown): never => {
    throw new ShoalError('TRUTH_FORMAT', `truth export ${dir}: ${file}: ${message}`, cause === undefined ? undefined : { cause });
  };
  const manifest = await readManifest(dir, fail);
  const binaries = new Map<string, Buffer>();
  await Promise.all(
    DATA_FILES.map(async (file) => {
      const expected = manifest.files[file];
      if (expected === undefined) return fail(MANIFEST_FILE, `lists no ${file}`);
      const path = join(dir, file);
      const size = await stat(path).then(
        (s) => s.size,
        (err: unknown) => fail(file, 'missing', err),
      );
      if (size !== expected.bytes) fail(file, `is ${size} bytes, the manifest says ${expected.bytes}`);
      let digest: string;
      if (file.endsWith('.tsv')) {
        digest = await hashFile(path);
      } else {
        const buf = await readFile(path);
        binaries.set(file, buf);
        digest = createHash('sha256').update(buf).digest('hex');
      }
      if (digest !== expected.sha256)
        fail(file, `SHA-256 ${digest} does not match the manifest (${expected.sha256}): the file was changed or truncated`);
    }),
  );

  const n = manifest.counts.pages;
  const hosts = await readHosts(dir, manifest, fail);
  const { columns, outDegree } = await readPages(dir, manifest, hosts.length, fail);
  const graph = readGraph(manifest, binaries, fail);
  for (let g = 0; g < n; g++) {
    if ((graph.csr.offsets[g + 1] as number) - (graph.csr.offsets[g] as number) !== outDegree[g]) {
      fail(PAGES_FILE, `out_degree of page ${g} disagrees with ${OFFSETS_FILE}`);
    }
  }
  // The entities are parsed on demand (their file's checksum is checked above): most readers, the
  // simulator among them, never need them, and a row each is an object each.
  let entities: Promise<readonly TruthEntity[]> | null = null;
  const readAll = async (): Promise<readonly TruthEntity[]> => {
    const rows = await readEntities(dir, n, fail);
    if (rows.length !== manifest.counts.entities)
      fail(ENTITIES_FILE, `has ${rows.length} rows, the manifest says ${manifest.counts.entities}`);
    return rows;
  };
  return {
    manifest,
    hosts,
    pageCount: n,
    ...columns,
    graph: graph.csr,
    linkKinds: graph.kinds,
    entities: () => (entities ??= readAll()),
    pageIdOf: urlLookup(hosts, columns.paths),
  };
}

type Fail = (file: string, message: string, cause?: unknown) => never;

async function readManifest(dir: string, fail: Fail): Promise<TruthManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch (err) {
    return fail(MANIFEST_FILE, 'missing: not a truth export, or an export that did not finish', err);
  }
  let m: Partial<TruthManifest>;
  try {
    m = JSON.parse(text) as Partial<TruthManifest>;
  } catch (err) {
    return fail(MANIFEST_FILE, 'is not valid JSON', err);
  }
  if (m.format !== TRUTH_FORMAT_ID) fail(MANIFEST_FILE, `format is ${JSON.stringify(m.format)}, expected "${TRUTH_FORMAT_ID}"`);
  if (m.version !== TRUTH_VERSION)
    fail(MANIFEST_FILE, `version ${JSON.stringify(m.version)} is not supported (this reader knows ${TRUTH_VERSION})`);
  const c = m.counts;
  if (c === undefined || ![c.hosts, c.pages, c.links, c.entities].every((x) => Number.isInteger(x) && x >= 0)) {
    fail(MANIFEST_FILE, 'counts are missing or not non-negative integers');
  }
  for (const key of ['categories', 'languages', 'cities', 'pageKinds', 'seeds'] as const) {
    if (!Array.isArray(m[key])) fail(MANIFEST_FILE, `${key} is not a list`);
  }
  if (typeof m.files !== 'object' || m.files === null || typeof m.pageFlags !== 'object' || m.pageFlags === null) {
    fail(MANIFEST_FILE, 'files or pageFlags is missing');
  }
  return m as TruthManifest;
}

function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/** Calls onRow for each data row of a TSV after checking its header and field count. */
async function forEachRow(
  dir: string,
  file: string,
  columns: readonly string[],
  fail: Fail,
  onRow: (fields: string[], row: number) => void,
): Promise<number> {
  const lines = createInterface({ input: createReadStream(join(dir, file), { encoding: 'utf8' }), crlfDelay: Infinity });
  let row = -1;
  for await (const line of lines) {
    if (row === -1) {
      if (line !== columns.join('\t')) fail(file, `header is "${line}", expected "${columns.join('\t')}"`);
    } else {
      const fields = line.split('\t');
      if (fields.length !== columns.length) fail(file, `line ${row + 2} has ${fields.length} fields, expected ${columns.length}`);
      onRow(fields, row);
    }
    row++;
  }
  if (row === -1) fail(file, 'is empty (no header)');
  return row;
}

/** Parses an integer field, failing with the file, line and column. */
function intField(fail: Fail, file: string, row: number, column: string, text: string): number {
  const v = Number(text);
  if (text === '' || !Number.isInteger(v)) fail(file, `line ${row + 2}: ${column} "${text}" is not an integer`);
  return v;
}

/** Index of `name` in a lookup, failing when it is unknown. */
function lookup(fail: Fail, file: string, row: number, column: string, table: ReadonlyMap<string, number>, name: string): number {
  const i = table.get(name);
  if (i === undefined) return fail(file, `line ${row + 2}: unknown ${column} "${name}"`);
  return i;
}

function indexMap(names: readonly string[]): Map<string, number> {
  return new Map(names.map((name, i) => [name, i]));
}

async function readHosts(dir: string, m: TruthManifest, fail: Fail): Promise<TruthHost[]> {
  const cities = indexMap(m.cities.map(cityLabel));
  const hosts: TruthHost[] = [];
  const count = await forEachRow(dir, HOSTS_FILE, HOST_COLUMNS, fail, (f, row) => {
    const num = (i: number): number => intField(fail, HOSTS_FILE, row, HOST_COLUMNS[i] as string, f[i] as string);
    const bit = (i: number): boolean => {
      if (f[i] !== '0' && f[i] !== '1') fail(HOSTS_FILE, `line ${row + 2}: ${HOST_COLUMNS[i]} "${f[i]}" is not 0 or 1`);
      return f[i] === '1';
    };
    if (num(0) !== row) fail(HOSTS_FILE, `line ${row + 2}: host ${f[0]} out of order`);
    const city = f[7] as string;
    hosts.push({
      index: row,
      name: f[1] as string,
      unicodeName: f[2] as string,
      domain: f[3] as string,
      ip: f[4] as string,
      lang: f[5] as string,
      topic: f[6] as string,
      city,
      cityIndex: city === '' ? -1 : lookup(fail, HOSTS_FILE, row, 'city', cities, city),
      community: num(8),
      firstPage: num(9),
      pageCount: num(10),
      mirrorOf: num(11),
      trap: f[12] === '' ? null : (f[12] as string),
      isTrapBlocked: bit(13),
      isRefusing: bit(14),
      robots: f[15] as string,
      crawlDelaySeconds: f[16] === '' ? null : Number(f[16]),
      sitemap: f[17] as string,
    });
  });
  if (count !== m.counts.hosts) fail(HOSTS_FILE, `has ${count} rows, the manifest says ${m.counts.hosts}`);
  return hosts;
}

async function readPages(dir: string, m: TruthManifest, hostCount: number, fail: Fail) {
  const n = m.counts.pages;
  const cols = {
    pageHost: new Uint32Array(n),
    status: new Uint16Array(n),
    kind: new Uint8Array(n),
    topic: new Uint8Array(n),
    lang: new Uint8Array(n),
    community: new Int32Array(n),
    city: new Int16Array(n),
    flags: new Uint8Array(n),
    dupOf: new Int32Array(n),
    redirectTo: new Int32Array(n),
    inDegree: new Uint32Array(n),
    pagerank: new Float64Array(n),
    reach: new Uint8Array(n),
  };
  const paths = new StringColumnBuilder(n);
  const kinds = indexMap(m.pageKinds);
  const topics = indexMap(m.categories);
  const langs = indexMap(m.languages);
  const cities = indexMap(m.cities.map(cityLabel));
  const flagBits = new Map(Object.entries(m.pageFlags));
  const outDegree = new Uint32Array(n);
  const count = await forEachRow(dir, PAGES_FILE, PAGE_COLUMNS, fail, (f, row) => {
    if (row >= n) fail(PAGES_FILE, `has more than the ${n} pages the manifest counts`);
    const num = (i: number): number => intField(fail, PAGES_FILE, row, PAGE_COLUMNS[i] as string, f[i] as string);
    if (num(0) !== row) fail(PAGES_FILE, `line ${row + 2}: page ${f[0]} out of order`);
    const host = num(1);
    if (host < 0 || host >= hostCount) fail(PAGES_FILE, `line ${row + 2}: host ${host} does not exist`);
    cols.pageHost[row] = host;
    paths.push(f[2] as string);
    cols.status[row] = num(3);
    cols.kind[row] = lookup(fail, PAGES_FILE, row, 'kind', kinds, f[4] as string);
    cols.topic[row] = lookup(fail, PAGES_FILE, row, 'topic', topics, f[5] as string);
    cols.lang[row] = lookup(fail, PAGES_FILE, row, 'lang', langs, f[6] as string);
    cols.community[row] = num(7);
    cols.city[row] = f[8] === '' ? -1 : lookup(fail, PAGES_FILE, row, 'city', cities, f[8] as string);
    let bits = 0;
    if (f[9] !== '') for (const name of (f[9] as string).split(',')) bits |= lookup(fail, PAGES_FILE, row, 'flag', flagBits, name);
    cols.flags[row] = bits;
    cols.dupOf[row] = num(10);
    cols.redirectTo[row] = num(11);
    cols.inDegree[row] = num(12);
    outDegree[row] = num(13);
    const pr = Number(f[14]);
    if (f[14] === '' || !Number.isFinite(pr)) fail(PAGES_FILE, `line ${row + 2}: pagerank "${f[14]}" is not a number`);
    cols.pagerank[row] = pr;
    cols.reach[row] = num(15);
  });
  if (count !== n) fail(PAGES_FILE, `has ${count} rows, the manifest says ${n}`);
  return { columns: { ...cols, paths: paths.build() }, outDegree };
}

const IS_LITTLE_ENDIAN = endianness() === 'LE';

/**
 * A little-endian uint32 file as a Uint32Array: a view when the buffer owns its whole, aligned
 * memory on a little-endian host (readFile of a large file), a copy otherwise.
 */
function u32(buf: Buffer): Uint32Array {
  const count = buf.byteLength / 4;
  if (IS_LITTLE_ENDIAN && buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength) return new Uint32Array(buf.buffer, 0, count);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = buf.readUInt32LE(i * 4);
  return out;
}

function readGraph(m: TruthManifest, binaries: ReadonlyMap<string, Buffer>, fail: Fail): { csr: Csr; kinds: Uint8Array } {
  const n = m.counts.pages;
  const links = m.counts.links;
  const offBuf = binaries.get(OFFSETS_FILE) as Buffer;
  const tgtBuf = binaries.get(TARGETS_FILE) as Buffer;
  const kindBuf = binaries.get(KINDS_FILE) as Buffer;
  if (offBuf.byteLength !== 4 * (n + 1)) fail(OFFSETS_FILE, `is ${offBuf.byteLength} bytes, expected ${4 * (n + 1)} for ${n} pages`);
  if (tgtBuf.byteLength !== 4 * links) fail(TARGETS_FILE, `is ${tgtBuf.byteLength} bytes, expected ${4 * links} for ${links} links`);
  if (kindBuf.byteLength !== links) fail(KINDS_FILE, `is ${kindBuf.byteLength} bytes, expected ${links}`);
  const offsets = u32(offBuf);
  const targets = u32(tgtBuf);
  if (offsets[0] !== 0 || offsets[n] !== links) fail(OFFSETS_FILE, `must start at 0 and end at ${links}`);
  for (let g = 0; g < n; g++) {
    if ((offsets[g + 1] as number) < (offsets[g] as number)) fail(OFFSETS_FILE, `decreases at page ${g}`);
  }
  for (let e = 0; e < links; e++) {
    if ((targets[e] as number) >= n) fail(TARGETS_FILE, `edge ${e} targets page ${targets[e]}, beyond ${n - 1}`);
  }
  const kinds = new Uint8Array(kindBuf);
  return { csr: { nodeCount: n, offsets, targets }, kinds };
}

async function readEntities(dir: string, n: number, fail: Fail): Promise<TruthEntity[]> {
  const out: TruthEntity[] = [];
  await forEachRow(dir, ENTITIES_FILE, ENTITY_COLUMNS, fail, (f, row) => {
    const page = intField(fail, ENTITIES_FILE, row, 'page', f[0] as string);
    if (page < 0 || page >= n) fail(ENTITIES_FILE, `line ${row + 2}: page ${page} does not exist`);
    out.push({
      page,
      number: intField(fail, ENTITIES_FILE, row, 'number', f[1] as string),
      street: f[2] as string,
      city: f[3] as string,
      state: f[4] as string,
      zip: f[5] as string,
    });
  });
  return out;
}

/** Builds pageIdOf: host name -> host, then a per-host path map made on first use. */
function urlLookup(hosts: readonly TruthHost[], paths: StringColumn): (url: string) => number {
  const byName = new Map(hosts.map((h) => [h.name, h]));
  const pathMaps = new Map<number, Map<string, number>>();
  return (url: string): number => {
    const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : url.startsWith('//') ? `http:${url}` : `http://${url}`;
    let parsed: URL;
    try {
      parsed = new URL(absolute);
    } catch {
      return -1; // not a URL at all: it names no page
    }
    const host = byName.get(parsed.hostname);
    if (host === undefined) return -1;
    let map = pathMaps.get(host.index);
    if (map === undefined) {
      map = new Map();
      for (let g = host.firstPage; g < host.firstPage + host.pageCount; g++) map.set(paths.at(g), g);
      pathMaps.set(host.index, map);
    }
    return map.get(parsed.pathname + parsed.search) ?? -1;
  };
}
