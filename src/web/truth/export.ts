/**
 * Exports the test web's ground truth (SPEC §6) in the format of format.ts: the deduplicated page
 * graph, labels, true PageRank (SPEC §3, d = 0.9), reachability, communities, geo entities and the
 * city each server stands in (`ip-cities.csv`, src/web/ip-cities.ts).
 *
 * One pass over the pages streams the link files and entities.tsv while it builds the CSR in typed
 * arrays; PageRank, in-degrees and reachability are then computed on that CSR, and a second pass
 * streams pages.tsv. A million pages and twenty million links take a few hundred MB (no per-page
 * objects survive a page) and well under a minute.
 *
 * Reachability (`reach`): 1 for every page reachable from `model.seedPages()` over all edges of the
 * deduplicated graph; 2 for the pages a polite crawler fetches. That crawler starts at the seeds,
 * fetches a page only if robots.txt allows it (`!model.isDisallowed(g)`), follows links only out of
 * pages that serve content (`servesContent`) without a meta robots nofollow (PageFlag.nofollow),
 * skips links whose every occurrence is rel=nofollow, and follows the redirect edge of a redirect
 * page. A robots-disallowed page that is linked is therefore reach 1, never 2: it cannot be fetched
 * (so none of its out-links are discovered through it either). Pages answering errors (404, 500 ...)
 * count as fetched: the crawler reached the URL. Pages of a host that refuses connections are never
 * fetched (reach 1 at most). A drip page counts as fetched, but its links are not followed: it
 * does not serve content (`servesContent`) to a crawler that gives up on a response trickling for
 * minutes. Trap URLs are not pages and are not exported.
 */
import { createHash, type Hash } from 'node:crypto';
import { endianness } from 'node:os';
import { mkdir, open, readFile, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ShoalError } from '../../core/errors.js';
import { withRoomFor } from '../../core/typed-arrays.js';
import { inDegrees, type Csr } from '../../eval/csr.js';
import { pageRankDetailed } from '../../eval/pagerank.js';
import { geoEntities } from '../geo.js';
import { ipCitiesCsv } from '../ip-cities.js';
import { LinkKind, pageLinks } from '../links.js';
import { PAGE_KIND_NAMES, PageFlag, PageKind, finalStatus, redirectInfo, servesContent, type WebModel } from '../model.js';
import {
  COLUMN_DOCS,
  DATA_FILES,
  ENTITIES_FILE,
  ENTITY_COLUMNS,
  HOSTS_FILE,
  HOST_COLUMNS,
  IP_CITIES_FILE,
  KINDS_FILE,
  MANIFEST_FILE,
  NOFOLLOW_BIT,
  OFFSETS_FILE,
  PAGERANK_DIGITS,
  PAGES_FILE,
  PAGE_COLUMNS,
  PARTIAL_SUFFIX,
  Reach,
  TARGETS_FILE,
  TRUTH_DAMPING,
  TRUTH_FORMAT_ID,
  TRUTH_MAX_ITERATIONS,
  TRUTH_TOLERANCE,
  TRUTH_VERSION,
  cityLabel,
  type TruthFileInfo,
  type TruthManifest,
} from './format.js';

/** Options of {@link exportTruth}. */
export interface ExportTruthOptions {
  /** Port the Web is served on, recorded in the manifest (default null = unknown). */
  readonly port?: number | null;
  /**
   * Called after each block of pages. `total` is twice the page count: the link pass, then the
   * pages.tsv pass.
   */
  readonly onProgress?: (done: number, total: number) => void;
}

/** What an export wrote. */
export interface TruthSummary {
  readonly dir: string;
  readonly counts: TruthManifest['counts'];
  readonly pagerank: TruthManifest['pagerank'];
  readonly files: TruthManifest['files'];
}

/** Pages handled between two flushes of the streamed files. */
const BLOCK_PAGES = 8192;
/** Characters of text buffered before a write. */
const TEXT_CHUNK_CHARS = 1 << 20;
const FLAG_NAMES = Object.entries(PageFlag).sort((a, b) => a[1] - b[1]);

/**
 * Writes the ground truth of `model` into `dir` (created if needed). A non-empty `dir` is accepted
 * only if every entry is a file of a truth export; its old manifest is removed first, so an
 * interrupted re-export never looks complete. Same seed and configuration give byte-identical files.
 *
 * @throws ShoalError `IO` when `dir` holds anything else; file system errors as they come.
 */
export async function exportTruth(model: WebModel, dir: string, options: ExportTruthOptions = {}): Promise<TruthSummary> {
  await prepareDir(dir);
  const sinks: FileSink[] = [];
  try {
    const total = 2 * model.pageCount;
    const files: Record<string, TruthFileInfo> = {};
    const linkPass = await writeLinks(model, dir, sinks, (done) => options.onProgress?.(done, total));
    Object.assign(files, linkPass.files);
    const graph: Csr = { nodeCount: model.pageCount, offsets: linkPass.offsets, targets: linkPass.targets };
    const inDegree = inDegrees(graph);
    const pr = pageRankDetailed(graph, { damping: TRUTH_DAMPING, tolerance: TRUTH_TOLERANCE, maxIterations: TRUTH_MAX_ITERATIONS });
    const reach = reachability(model, graph, linkPass.kinds);
    files[PAGES_FILE] = await writePages(model, dir, sinks, { graph, inDegree, ranks: pr.ranks, reach }, (done) =>
      options.onProgress?.(model.pageCount + done, total),
    );
    files[HOSTS_FILE] = await writeHosts(model, dir, sinks);
    files[IP_CITIES_FILE] = await writeIpCities(model, dir, sinks);
    const ordered: Record<string, TruthFileInfo> = {};
    for (const f of DATA_FILES) ordered[f] = files[f] as TruthFileInfo;
    const manifest: TruthManifest = {
      format: TRUTH_FORMAT_ID,
      version: TRUTH_VERSION,
      seed: model.config.seed,
      config: model.config,
      port: options.port ?? null,
      counts: { hosts: model.hosts.length, pages: model.pageCount, links: linkPass.targets.length, entities: linkPass.entityCount },
      categories: model.categories,
      languages: model.languages,
      cities: model.cities.map((c) => ({ name: c.name, state: c.state, population: c.population })),
      pageKinds: PAGE_KIND_NAMES,
      pageFlags: PageFlag,
      linkKinds: LinkKind,
      seeds: model.seedPages(),
      files: ordered,
      pagerank: {
        damping: TRUTH_DAMPING,
        iterations: pr.iterations,
        residual: pr.residual,
        tolerance: TRUTH_TOLERANCE,
        converged: pr.converged,
      },
      columns: COLUMN_DOCS,
    };
    const sink = await FileSink.open(dir, MANIFEST_FILE, sinks);
    await sink.write(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'));
    await sink.finish();
    return { dir, counts: manifest.counts, pagerank: manifest.pagerank, files: ordered };
  } catch (err) {
    await Promise.allSettled(sinks.map((s) => s.abort()));
    throw err;
  }
}

async function prepareDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  const known = new Set([MANIFEST_FILE, ...DATA_FILES].flatMap((f) => [f, `${f}${PARTIAL_SUFFIX}`]));
  const stranger = entries.find((e) => !known.has(e));
  if (stranger !== undefined) {
    throw new ShoalError(
      'IO',
      `refusing to export the truth into ${dir}: it holds "${stranger}", so it is neither empty nor a truth export`,
    );
  }
  if (!entries.includes(MANIFEST_FILE)) return;
  const path = join(dir, MANIFEST_FILE);
  let format: unknown;
  try {
    format = (JSON.parse(await readFile(path, 'utf8')) as { format?: unknown }).format;
  } catch (err) {
    throw new ShoalError('IO', `refusing to export the truth into ${dir}: ${MANIFEST_FILE} is not a truth manifest`, { cause: err });
  }
  if (format !== TRUTH_FORMAT_ID) {
    throw new ShoalError('IO', `refusing to export the truth into ${dir}: ${MANIFEST_FILE} has format ${JSON.stringify(format)}`);
  }
  await unlink(path);
}

interface LinkPass {
  readonly offsets: Uint32Array;
  readonly targets: Uint32Array;
  readonly kinds: Uint8Array;
  readonly entityCount: number;
  readonly files: Record<string, TruthFileInfo>;
}

/** Streams links.* and entities.tsv, keeping the CSR in memory. */
async function writeLinks(model: WebModel, dir: string, sinks: FileSink[], progress: (done: number) => void): Promise<LinkPass> {
  const n = model.pageCount;
  const c = model.config;
  // About 3 navigation links per page (home, parent, one child on average) plus the content links.
  const perPage = c.links.model === 'community' ? c.community.k + c.community.o : c.links.meanOutDegree + 3;
  const edges = new EdgeBuffer(Math.max(1024, Math.ceil(n * perPage * 1.1)));
  const offsets = new Uint32Array(n + 1);
  // Dedup within a page: stamp[t] = last page that linked t, slot[t] = that edge's index.
  const stamp = new Int32Array(n).fill(-1);
  const slot = new Uint32Array(n);
  const offSink = await FileSink.open(dir, OFFSETS_FILE, sinks);
  const tgtSink = await FileSink.open(dir, TARGETS_FILE, sinks);
  const kindSink = await FileSink.open(dir, KINDS_FILE, sinks);
  const entities = new TextSink(await FileSink.open(dir, ENTITIES_FILE, sinks), ENTITY_COLUMNS);
  let offsetsWritten = 0;
  let edgesWritten = 0;
  let entityCount = 0;
  for (let g = 0; g < n; g++) {
    for (const link of pageLinks(model, g)) {
      const t = link.target;
      if (!Number.isInteger(t) || t < 0 || t >= n) throw new Error(`page ${g} links to page id ${t}, outside 0..${n - 1}`);
      if (t === g) continue;
      if (stamp[t] === g) {
        const at = slot[t] as number;
        // Followed after a nofollow occurrence: the edge moves to here, where a crawler queues it.
        if (!link.isNofollow && ((edges.kinds[at] as number) & NOFOLLOW_BIT) !== 0)
          moveToEnd(edges, slot, at, (edges.kinds[at] as number) & ~NOFOLLOW_BIT);
        continue;
      }
      stamp[t] = g;
      slot[t] = edges.length;
      edges.push(t, link.kind | (link.isNofollow ? NOFOLLOW_BIT : 0));
    }
    offsets[g + 1] = edges.length;
    if (servesContent(model.pageKind[g] as number)) {
      for (const e of geoEntities(model, g)) {
        entities.row([String(g), String(e.number), e.street, e.city, e.state, e.zip]);
        entityCount++;
      }
    }
    if ((g + 1) % BLOCK_PAGES === 0 || g === n - 1) {
      await offSink.write(le32(offsets.subarray(offsetsWritten, g + 2)));
      offsetsWritten = g + 2;
      await tgtSink.write(le32(edges.targets.subarray(edgesWritten, edges.length)));
      await kindSink.write(edges.kinds.subarray(edgesWritten, edges.length));
      edgesWritten = edges.length;
      await entities.flush();
      progress(g + 1);
    }
  }
  if (n === 0) await offSink.write(le32(offsets));
  const files: Record<string, TruthFileInfo> = {};
  files[OFFSETS_FILE] = await offSink.finish();
  files[TARGETS_FILE] = await tgtSink.finish();
  files[KINDS_FILE] = await kindSink.finish();
  files[ENTITIES_FILE] = await entities.finish();
  return {
    offsets,
    targets: edges.targets.subarray(0, edges.length),
    kinds: edges.kinds.subarray(0, edges.length),
    entityCount,
    files,
  };
}

/** Reach of every page (see the file comment for the polite crawler's rules). */
function reachability(model: WebModel, graph: Csr, kinds: Uint8Array): Uint8Array {
  const n = graph.nodeCount;
  const { offsets, targets } = graph;
  const reach = new Uint8Array(n);
  const queue = new Uint32Array(n);
  const seeds = model.seedPages();
  let head = 0;
  let tail = 0;
  for (const s of seeds) {
    if (reach[s] !== Reach.unreachable) continue;
    reach[s] = Reach.linked;
    queue[tail++] = s;
  }
  while (head < tail) {
    const u = queue[head++] as number;
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      const v = targets[e] as number;
      if (reach[v] !== Reach.unreachable) continue;
      reach[v] = Reach.linked;
      queue[tail++] = v;
    }
  }
  // The polite crawl: `seen` = URL discovered; a discovered, allowed URL is fetched (reach 2).
  const seen = new Uint8Array(n);
  head = 0;
  tail = 0;
  const discover = (v: number): void => {
    if (seen[v] === 1) return;
    seen[v] = 1;
    if (model.isDisallowed(v) || model.hostOf(v).isRefusing) return;
    reach[v] = Reach.polite;
    queue[tail++] = v;
  };
  for (const s of seeds) discover(s);
  while (head < tail) {
    const u = queue[head++] as number;
    const kind = model.pageKind[u] as number;
    const isRedirect = kind === PageKind.redirect;
    if (!isRedirect && (!servesContent(kind) || ((model.pageFlags[u] as number) & PageFlag.nofollow) !== 0)) continue;
    for (let e = offsets[u] as number; e < (offsets[u + 1] as number); e++) {
      if (!isRedirect && ((kinds[e] as number) & NOFOLLOW_BIT) !== 0) continue;
      discover(targets[e] as number);
    }
  }
  return reach;
}

interface PageColumns {
  readonly graph: Csr;
  readonly inDegree: Uint32Array;
  readonly ranks: Float64Array;
  readonly reach: Uint8Array;
}

async function writePages(
  model: WebModel,
  dir: string,
  sinks: FileSink[],
  cols: PageColumns,
  progress: (done: number) => void,
): Promise<TruthFileInfo> {
  const out = new TextSink(await FileSink.open(dir, PAGES_FILE, sinks), PAGE_COLUMNS);
  const cityLabels = model.cities.map(cityLabel);
  const { offsets } = cols.graph;
  for (let g = 0; g < model.pageCount; g++) {
    const h = model.hostOf(g);
    const kind = model.pageKind[g] as number;
    const flags = model.pageFlags[g] as number;
    const city = model.pageCity[g] as number;
    const content = model.contentId(g);
    const dupOf = content !== g ? content : kind === PageKind.nearDuplicate ? (model.pageRef[g] as number) : -1;
    const redirectTo = kind === PageKind.redirect ? redirectInfo(model, g).target : -1;
    out.row([
      String(g),
      String(h.index),
      model.path(g),
      String(finalStatus(model, g)),
      PAGE_KIND_NAMES[kind] ?? String(kind),
      model.categories[model.pageTopic[g] as number] ?? '',
      model.langOf(g),
      String(h.community),
      city >= 0 ? (cityLabels[city] as string) : '',
      FLAG_NAMES.filter(([, bit]) => (flags & bit) !== 0)
        .map(([name]) => name)
        .join(','),
      String(dupOf),
      String(redirectTo),
      String(cols.inDegree[g]),
      String((offsets[g + 1] as number) - (offsets[g] as number)),
      (cols.ranks[g] as number).toPrecision(PAGERANK_DIGITS),
      String(cols.reach[g]),
    ]);
    if ((g + 1) % BLOCK_PAGES === 0) {
      await out.flush();
      progress(g + 1);
    }
  }
  const info = await out.finish();
  progress(model.pageCount);
  return info;
}

async function writeHosts(model: WebModel, dir: string, sinks: FileSink[]): Promise<TruthFileInfo> {
  const out = new TextSink(await FileSink.open(dir, HOSTS_FILE, sinks), HOST_COLUMNS);
  for (const h of model.hosts) {
    const city = model.cities[h.city];
    out.row([
      String(h.index),
      h.name,
      h.unicodeName,
      h.domain,
      h.ip,
      model.languages[h.lang] ?? '',
      model.categories[h.topic] ?? '',
      h.city >= 0 && city !== undefined ? cityLabel(city) : '',
      String(h.community),
      String(h.firstPage),
      String(h.pageCount),
      String(h.mirrorOf),
      h.trap ?? '',
      h.trap !== null && h.robotsBlocksTrap ? '1' : '0',
      h.isRefusing ? '1' : '0',
      h.robots,
      h.crawlDelaySeconds === null ? '' : String(h.crawlDelaySeconds),
      h.sitemap,
    ]);
  }
  return out.finish();
}

/** Writes ip-cities.csv: small (one line per located address), so in one write. */
async function writeIpCities(model: WebModel, dir: string, sinks: FileSink[]): Promise<TruthFileInfo> {
  const sink = await FileSink.open(dir, IP_CITIES_FILE, sinks);
  await sink.write(Buffer.from(ipCitiesCsv(model), 'utf8'));
  return sink.finish();
}

/**
 * Moves edge `at` of the page being built to the end of the buffer with kind byte `kind`, shifting
 * the edges after it back by one (`slot` follows each edge's new index). Rare: a link written
 * rel=nofollow and then again without it.
 */
function moveToEnd(edges: EdgeBuffer, slot: Uint32Array, at: number, kind: number): void {
  const target = edges.targets[at] as number;
  for (let i = at + 1; i < edges.length; i++) {
    const t = edges.targets[i] as number;
    edges.targets[i - 1] = t;
    edges.kinds[i - 1] = edges.kinds[i] as number;
    slot[t] = i - 1;
  }
  edges.targets[edges.length - 1] = target;
  edges.kinds[edges.length - 1] = kind;
  slot[target] = edges.length - 1;
}

/** Growable parallel arrays of edge targets and kind bytes. */
class EdgeBuffer {
  targets: Uint32Array;
  kinds: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.targets = new Uint32Array(capacity);
    this.kinds = new Uint8Array(capacity);
  }

  push(target: number, kind: number): void {
    if (this.length === this.targets.length) {
      this.targets = withRoomFor(this.targets, this.length + 1);
      this.kinds = withRoomFor(this.kinds, this.length + 1);
    }
    this.targets[this.length] = target;
    this.kinds[this.length] = kind;
    this.length++;
  }
}

const IS_LITTLE_ENDIAN = endianness() === 'LE';

/** The bytes of `values` as little-endian uint32 (a view on little-endian hosts, a copy otherwise). */
function le32(values: Uint32Array): Buffer {
  const view = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  return IS_LITTLE_ENDIAN ? view : Buffer.from(view).swap32();
}

/** A file written under a temporary name, hashed as it goes, renamed into place by finish(). */
class FileSink {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;
  private isOpen = true;

  private constructor(
    private readonly fh: FileHandle,
    private readonly tmpPath: string,
    private readonly path: string,
  ) {}

  /** Opens `<dir>/<name>.partial` and registers the sink in `sinks` (for cleanup on failure). */
  static async open(dir: string, name: string, sinks: FileSink[]): Promise<FileSink> {
    const path = join(dir, name);
    const tmpPath = `${path}${PARTIAL_SUFFIX}`;
    const sink = new FileSink(await open(tmpPath, 'w'), tmpPath, path);
    sinks.push(sink);
    return sink;
  }

  async write(data: Uint8Array): Promise<void> {
    this.hash.update(data);
    this.bytes += data.byteLength;
    let done = 0;
    while (done < data.byteLength) {
      const { bytesWritten } = await this.fh.write(data, done, data.byteLength - done);
      done += bytesWritten;
    }
  }

  async finish(): Promise<TruthFileInfo> {
    this.isOpen = false;
    await this.fh.close();
    await rename(this.tmpPath, this.path);
    return { bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  /** Closes the handle after a failure; the partial file stays (it never looks complete). */
  async abort(): Promise<void> {
    if (!this.isOpen) return;
    this.isOpen = false;
    await this.fh.close();
  }
}

const LINE_BREAK = /[\n\r]/;

function countTabs(line: string): number {
  let count = 0;
  for (let at = line.indexOf('\t'); at >= 0; at = line.indexOf('\t', at + 1)) count++;
  return count;
}

/** Tab-separated rows over a FileSink, header first, buffered in ~1 MB writes. */
class TextSink {
  private parts: string[] = [];
  private chars = 0;

  constructor(
    private readonly sink: FileSink,
    private readonly columns: readonly string[],
  ) {
    this.push(columns.join('\t'));
  }

  /** Adds one row; throws if a field holds a tab or a line break (the format cannot carry it). */
  row(fields: readonly string[]): void {
    if (fields.length !== this.columns.length) throw new Error(`truth row has ${fields.length} fields, expected ${this.columns.length}`);
    const line = fields.join('\t');
    // One scan of the joined line; the per-field search runs only to name the culprit.
    if (LINE_BREAK.test(line) || countTabs(line) !== fields.length - 1) {
      const i = fields.findIndex((f) => LINE_BREAK.test(f) || f.includes('\t'));
      throw new ShoalError(
        'TRUTH_FORMAT',
        `cannot write column ${this.columns[i]} = ${JSON.stringify(fields[i])}: tabs and line breaks are not allowed in truth fields`,
      );
    }
    this.push(line);
  }

  private push(line: string): void {
    this.parts.push(line, '\n');
    this.chars += line.length + 1;
  }

  /** Writes what is buffered if it is large (every row is written by finish() at the latest). */
  async flush(force = false): Promise<void> {
    if (this.chars === 0 || (!force && this.chars < TEXT_CHUNK_CHARS)) return;
    const text = this.parts.join('');
    this.parts = [];
    this.chars = 0;
    await this.sink.write(Buffer.from(text, 'utf8'));
  }

  async finish(): Promise<TruthFileInfo> {
    await this.flush(true);
    return this.sink.finish();
  }
}
