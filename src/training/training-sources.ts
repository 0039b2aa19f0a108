/**
 * Where `shoal train` and `shoal classify --evaluate` find labelled documents:
 *
 * - **a JSONL file**: one object per line, `{"label": "SCIENCE", "text": "..."}` or with `"html"`
 *   instead of `"text"` (parsed as a crawl parses a page), and an optional `"title"`;
 * - **a folder per label**: `DIR/<LABEL>/**` holds that label's documents, `.html`/`.htm` files
 *   parsed as pages, any other file read as UTF-8 text (hidden files skipped);
 * - **a crawl directory with a labels file**: the pages the crawl archived (its WARC files, through
 *   its CDXJ index, of one node or of every node of a collaborative crawl), labelled by a file of
 *   `URL<TAB>LABEL` lines (or JSONL `{"url", "label"}`); pages without a label are skipped;
 * - **a test web's ground-truth export** (`shoal web export`): every page that serves content,
 *   rendered from the export's configuration and parsed, labelled with its true topic (or, with
 *   `truthLabel: 'city'`, its city `"Name, ST"` or `none`: the classes of the geo classifier).
 *
 * A malformed line or an unreadable file is an error naming the file and line: a model trained on
 * part of what was asked for, silently, would be worse than none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { ConfigError, ShoalError } from '../core/errors.js';
import type { LabelledDocument } from '../classify/naive-bayes-trainer.js';
import { parseHtml } from '../parse/html-page.js';
import { normalizeUrl } from '../url/normalize.js';
import { CLUSTER_MANIFEST, nodeDirsOf } from '../store/crawl-dir.js';
import { INDEX_FILE } from '../store/warc/warc-writer.js';
import { readLines } from '../store/read-lines.js';
import { parseCdxjLine } from '../store/warc/cdxj.js';
import { crawlContent, warcDirsOf } from '../sim/graph/crawl-content.js';
import { truthContent } from '../sim/graph/truth-content.js';
import { cityLabel, MANIFEST_FILE } from '../web/truth/format.js';
import { readTruth } from '../web/truth/read.js';
import { servesContent } from '../web/model.js';

/** A labelled document with where it came from (a file, a line, a URL). */
export interface SourcedDocument extends LabelledDocument {
  readonly origin: string;
}

/** What kind of source a path is. */
export type SourceKind = 'jsonl' | 'folders' | 'crawl' | 'truth';

/** What a truth export's pages are labelled with: their topic, or their city (`none` for a page of no city). */
export type TruthLabel = 'topic' | 'city';

/** The class of the pages of no city in a city model. */
export const NO_CITY_LABEL = 'none';

/** Options of {@link readTrainingSource}. */
export interface SourceOptions {
  /** URL → label file, for a crawl directory. */
  readonly labels?: string;
  /** For a truth export: label pages by topic (default) or by city. */
  readonly truthLabel?: TruthLabel;
}

function fail(message: string, cause?: unknown): never {
  throw new ShoalError('IO', message, cause === undefined ? undefined : { cause });
}

/** The kind of source at `path` (see the file comment). */
export function sourceKindOf(path: string, options: SourceOptions = {}): SourceKind {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    return fail(`cannot read the training source ${path}: ${(err as Error).message}`, err);
  }
  if (st.isFile()) return 'jsonl';
  if (existsSync(join(path, MANIFEST_FILE)) && existsSync(join(path, 'pages.tsv'))) return 'truth';
  if (options.labels !== undefined) return 'crawl';
  // Read as a folder per label, a crawl directory would train on "warc", "state" and "logs" from
  // its WARC and state files as text.
  if (isCrawlDirectory(path)) {
    throw new ConfigError(
      [{ path: '--labels', message: `${path} is a crawl directory: training on its pages needs a labels file (URL<TAB>LABEL lines)` }],
      { code: 'USAGE' },
    );
  }
  return 'folders';
}

/** Whether `dir` is a crawl directory: a collaborative crawl's, or a node's with a WARC index. */
export function isCrawlDirectory(dir: string): boolean {
  return existsSync(join(dir, CLUSTER_MANIFEST)) || existsSync(join(dir, 'warc', INDEX_FILE));
}

/** Title and visible text of an HTML document. */
function htmlDocument(html: string, url: string): { title: string; text: string } {
  const page = parseHtml(html, url);
  return { title: page.title, text: page.visibleText };
}

/** The documents of a JSONL file. */
export function readJsonlDocuments(path: string): SourcedDocument[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return fail(`cannot read ${path}: ${(err as Error).message}`, err);
  }
  const docs: SourcedDocument[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const where = `${path}:${i + 1}`;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch (err) {
      return fail(`${where}: not JSON (${(err as Error).message})`, err);
    }
    if (o === null || typeof o !== 'object' || typeof o.label !== 'string' || o.label === '')
      fail(`${where}: needs a non-empty string "label"`);
    const label = o.label as string;
    if (typeof o.html === 'string') {
      docs.push({ label, origin: where, ...htmlDocument(o.html, typeof o.url === 'string' ? o.url : 'http://document.invalid/') });
    } else if (typeof o.text === 'string') {
      docs.push({ label, origin: where, title: typeof o.title === 'string' ? o.title : '', text: o.text });
    } else {
      fail(`${where}: needs a string "text" or "html"`);
    }
  }
  return docs;
}

/** Every file under `dir`, sorted, hidden ones skipped. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The documents of a folder per label. */
export function readFolderDocuments(dir: string): SourcedDocument[] {
  const docs: SourcedDocument[] = [];
  let labels;
  try {
    labels = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    return fail(`cannot read ${dir}: ${(err as Error).message}`, err);
  }
  if (labels.length === 0)
    fail(`${dir} holds no label folders (DIR/<LABEL>/files), and is not a truth export; a crawl directory needs --labels`);
  for (const label of labels) {
    for (const file of filesUnder(join(dir, label))) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        return fail(`cannot read ${file}: ${(err as Error).message}`, err);
      }
      const ext = extname(file).toLowerCase();
      docs.push(
        ext === '.html' || ext === '.htm'
          ? { label, origin: file, ...htmlDocument(text, `file://${file}`) }
          : { label, origin: file, title: '', text },
      );
    }
  }
  return docs;
}

/** URL → label from a file of `URL<TAB>LABEL` lines or JSONL `{url, label}` lines. */
export function readLabelsFile(path: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return fail(`cannot read the labels file ${path}: ${(err as Error).message}`, err);
  }
  const labels = new Map<string, string>();
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    let url: unknown;
    let label: unknown;
    if (line.startsWith('{')) {
      try {
        ({ url, label } = JSON.parse(line) as { url?: unknown; label?: unknown });
      } catch (err) {
        return fail(`${path}:${i + 1}: not JSON (${(err as Error).message})`, err);
      }
    } else {
      [url, label] = line.split('\t');
    }
    if (typeof url !== 'string' || url === '' || typeof label !== 'string' || label.trim() === '') {
      fail(`${path}:${i + 1}: expected URL<TAB>LABEL or {"url": ..., "label": ...}`);
    }
    // Matched against the crawl's URLs, which are normalized; a path of a file is kept as written.
    const normalized = /^https?:\/\//i.test(url as string) ? normalizeUrl((url as string).trim()) : null;
    labels.set(normalized?.kind === 'ok' ? normalized.url : (url as string).trim(), (label as string).trim());
  }
  return labels;
}

/** The archived pages of a crawl directory that `labelsPath` labels. */
export async function readCrawlDocuments(dir: string, labelsPath: string): Promise<SourcedDocument[]> {
  const labels = readLabelsFile(labelsPath);
  const pages = await readArchivedPages(dir, [...labels.keys()]);
  return pages
    .filter((p) => p.title !== '' || p.text !== '')
    .map((p) => ({ label: labels.get(p.url) as string, origin: p.url, title: p.title, text: p.text }));
}

/** A page a crawl archived, as its analysis reads it (title and text empty when it has none). */
export interface ArchivedPage {
  readonly url: string;
  readonly title: string;
  readonly text: string;
}

/** The URLs of every 2xx HTML capture in the crawl's CDXJ indexes, each once. */
async function archivedHtmlUrls(warcDirs: readonly string[]): Promise<string[]> {
  const urls = new Set<string>();
  for (const dir of warcDirs) {
    for await (const line of readLines(join(dir, INDEX_FILE))) {
      const e = parseCdxjLine(line.text);
      if (e !== null && e.status !== null && e.status.startsWith('2') && e.mime.includes('html')) urls.add(e.url);
    }
  }
  return [...urls];
}

/**
 * Title and text of the pages `urls` names in the crawl directory `dir` (one node or a collaborative
 * crawl), or of every archived HTML page when `urls` is null.
 * @throws ShoalError `IO` when `dir` holds no WARC index.
 */
export async function readArchivedPages(dir: string, urls: readonly string[] | null): Promise<ArchivedPage[]> {
  const warcDirs = warcDirsOf(nodeDirsOf(dir).nodes.map(([, d]) => d));
  if (warcDirs.length === 0) fail(`${dir} is not a crawl directory (no warc/${INDEX_FILE})`);
  const wanted = urls ?? (await archivedHtmlUrls(warcDirs));
  const index = new Map(wanted.map((u, i) => [u, i]));
  const content = await crawlContent(warcDirs, wanted.length, (url) => index.get(url) ?? -1);
  try {
    return wanted.map((url, i) => {
      const c = content.contentOf(i);
      return { url, title: c.title ?? '', text: c.text ?? '' };
    });
  } finally {
    content.close();
  }
}

/**
 * Every content page of a truth export, labelled with its true topic, or with `truthLabel` `city`
 * with the `"Name, ST"` of its city (a geographic page) or `none` (the geo classifier's classes).
 */
export async function readTruthDocuments(
  dir: string,
  maxDocuments = Infinity,
  truthLabel: TruthLabel = 'topic',
): Promise<SourcedDocument[]> {
  const truth = await readTruth(dir);
  const content = truthContent(truth);
  const categories = truth.manifest.categories;
  const cities = truth.manifest.cities.map(cityLabel);
  const labelOf = (p: number): string => {
    if (truthLabel === 'topic') return categories[truth.topic[p] as number] as string;
    const city = truth.city[p] as number;
    return city < 0 ? NO_CITY_LABEL : (cities[city] as string);
  };
  const docs: SourcedDocument[] = [];
  const port = truth.manifest.port;
  for (let p = 0; p < truth.pageCount && docs.length < maxDocuments; p++) {
    if (!servesContent(truth.kind[p] as number)) continue;
    const c = content.contentOf(p);
    const text = c.text ?? '';
    if (text === '') continue;
    const host = truth.hosts[truth.pageHost[p] as number]?.name ?? '';
    docs.push({
      label: labelOf(p),
      origin: `http://${host}${port === null || port === 80 ? '' : `:${port}`}${truth.paths.at(p)}`,
      title: c.title ?? '',
      text,
    });
  }
  return docs;
}

/** The labelled documents at `path`, of whatever kind it is. */
export async function readTrainingSource(
  path: string,
  options: SourceOptions = {},
): Promise<{ kind: SourceKind; documents: SourcedDocument[] }> {
  const kind = sourceKindOf(path, options);
  switch (kind) {
    case 'jsonl':
      return { kind, documents: readJsonlDocuments(path) };
    case 'folders':
      return { kind, documents: readFolderDocuments(path) };
    case 'crawl':
      return { kind, documents: await readCrawlDocuments(path, options.labels as string) };
    case 'truth':
      return { kind, documents: await readTruthDocuments(path, Infinity, options.truthLabel ?? 'topic') };
  }
}
