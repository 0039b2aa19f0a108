/**
 * Page metadata (SPEC §2 item 11: "fingerprints, language, category, geo scope"): one JSON line per
 * fetched and parsed page in `<crawl dir>/pages.jsonl`, keyed by the page's id in the link graph.
 *
 * Kept apart from the crawl log, not merged into it, because the two answer different questions:
 * the crawl log has a line per fetch (failures, retries and re-crawls included) and is what
 * throughput and error counts are computed from; this file has a line per page and is what
 * locality, duplicates and classifier metrics join with the link graph (`urlId` = the row of
 * `urls.tsv`, the node of the CSR). Merging would give every failed fetch a dozen null fields and
 * make every reader of pages skip them. The `url` is repeated so that the file stands alone.
 *
 * `category` is the page's topic when the crawl classifies pages (SPEC §4.2); `geo` its city when a
 * geo crawl's strategy reads pages (content, classifier, ip; SPEC §4.3). Both are null otherwise.
 *
 * Same discipline as the crawl log (`AppendFile`), and ordered after the link graph's URL
 * dictionary: a line naming a URL id reaches the disk after that id's line in `urls.tsv`.
 */
import type { AppendFile, AppendRepairReport } from './append-file.js';
import {
  Checks,
  JsonLinesWriter,
  addedLater,
  nullable,
  object,
  oneOf,
  probabilityCheck,
  problemOf,
  readJsonLines,
  type JsonLinesFileOptions,
  type RecordShape,
} from './json-lines.js';
import type { LinkGraphWriter } from './link-graph.js';

/** Default file name of the page metadata in the crawl directory. */
export const PAGE_METADATA_FILE = 'pages.jsonl';

/** How many links a page has, by kind (links as the parser reports them: duplicates counted). */
export interface LinkCounts {
  /** Every link extracted. */
  readonly total: number;
  /** Distinct normalized target URLs. */
  readonly unique: number;
  /** Links with rel=nofollow (or ugc, sponsored). */
  readonly nofollow: number;
  /** Links to the page's own host. */
  readonly sameHost: number;
}

/** One line of `pages.jsonl`. Fields are written in this order. */
export interface PageMetadata {
  /** When the page was fetched: ISO 8601 UTC with milliseconds. */
  readonly ts: string;
  /** The page's id in the link graph (`links/urls.tsv`); null when the crawl keeps no link graph. */
  readonly urlId: number | null;
  /** The page's URL (normalized). */
  readonly url: string;
  /** WARC payload digest of the body as received (`sha1:` + 32 base32 characters): exact duplicates. */
  readonly payloadDigest: string | null;
  /** Digest of the normalized visible text (`sha256:` + 64 hex, `src/dedup/content-digest.ts`): same text, different bytes. */
  readonly textDigest: string | null;
  /** 64-bit SimHash of the visible text, 16 lowercase hex digits: near-duplicates. */
  readonly simhash: string | null;
  /** Language code as detected; null when unknown. */
  readonly lang: string | null;
  /** `<title>`, white space collapsed; null when the page has none. */
  readonly title: string | null;
  /** The page's topic (SPEC §4.2); null when it was not classified, or was unclassifiable with no default category. */
  readonly category: string | null;
  /** The classifier's probability for `category`; null when a rule (language, too few terms) decided or none ran. */
  readonly categoryProbability: number | null;
  /** Why the page has its category: `classifier`, `language` or `unclassifiable`; null when not classified. */
  readonly categoryReason: string | null;
  /** Geographic scope (`"Name, ST"` of the page's city as a geo crawl's page-reading strategy sees it); null otherwise, or when the page has none. */
  readonly geo: string | null;
  readonly linkCounts: LinkCounts;
  /** Whether meta robots (or X-Robots-Tag) says noindex. */
  readonly isNoindex: boolean;
  /** Whether meta robots says nofollow: the page's links were recorded but not followed. */
  readonly isNofollow: boolean;
  /** `<link rel=canonical>` resolved against the page; null when absent. */
  readonly canonical: string | null;
  /** URL of the earlier page this one is a near-duplicate of (SimHash within `dedup.near.maxDistance` bits); null otherwise. */
  readonly nearDuplicateOf: string | null;
  /** Hamming distance to `nearDuplicateOf`, bits; null when not a near-duplicate. */
  readonly nearDuplicateDistance: number | null;
}

/** What {@link PageMetadataLog.append} takes: `urlId` comes from the link graph; `category` and `geo` default to null. */
export type PageMetadataInput = Omit<
  PageMetadata,
  'urlId' | 'category' | 'categoryProbability' | 'categoryReason' | 'geo' | 'nearDuplicateOf' | 'nearDuplicateDistance'
> & {
  readonly nearDuplicateOf?: string | null;
  readonly nearDuplicateDistance?: number | null;
  readonly category?: string | null;
  readonly categoryProbability?: number | null;
  readonly categoryReason?: string | null;
  readonly geo?: string | null;
};

/** The checks of every field, in the order they are written. */
export const PAGE_METADATA_SHAPE: RecordShape<PageMetadata> = {
  ts: Checks.isoTime,
  urlId: nullable(Checks.count),
  url: Checks.nonEmptyString,
  payloadDigest: nullable(Checks.nonEmptyString),
  textDigest: nullable(Checks.nonEmptyString),
  simhash: nullable(Checks.hex16),
  lang: nullable(Checks.nonEmptyString),
  title: nullable(Checks.string),
  category: nullable(Checks.nonEmptyString),
  categoryProbability: nullable(probabilityCheck),
  categoryReason: nullable(oneOf(['classifier', 'language', 'unclassifiable'])),
  geo: nullable(Checks.nonEmptyString),
  linkCounts: object<LinkCounts>({ total: Checks.count, unique: Checks.count, nofollow: Checks.count, sameHost: Checks.count }),
  isNoindex: Checks.boolean,
  isNofollow: Checks.boolean,
  canonical: nullable(Checks.nonEmptyString),
  nearDuplicateOf: addedLater(nullable(Checks.nonEmptyString)),
  nearDuplicateDistance: addedLater(nullable(Checks.count)),
};

/** Options of {@link PageMetadataLog}. */
export interface PageMetadataLogOptions extends Omit<JsonLinesFileOptions, 'dependsOn'> {
  /** The file, usually `<crawl dir>/pages.jsonl` ({@link PAGE_METADATA_FILE}). */
  readonly path: string;
  /**
   * The crawl's link graph: `urlId` is the page's id there, and its URL dictionary is written
   * before the lines that name it. Start it before this log. Default none (`urlId` null).
   */
  readonly linkGraph?: LinkGraphWriter;
}

/**
 * The page metadata writer. Lifecycle: construct, `await start()` (creates or repairs), `append`
 * one line per parsed page, `flush()` at checkpoints (fsync), `close()` (idempotent).
 */
export class PageMetadataLog {
  private readonly writer: JsonLinesWriter<PageMetadata>;
  private readonly linkGraph: LinkGraphWriter | null;

  constructor(options: PageMetadataLogOptions) {
    const { path, linkGraph, ...fileOptions } = options;
    this.linkGraph = linkGraph ?? null;
    const dependsOn = this.linkGraph === null ? [] : [this.linkGraph.urlDictionaryFile];
    this.writer = new JsonLinesWriter(path, 'page metadata', PAGE_METADATA_SHAPE, { ...fileOptions, dependsOn });
  }

  /** Creates the file, or repairs the one a crashed run left. */
  start(): Promise<AppendRepairReport> {
    return this.writer.start();
  }

  /** The underlying file (for `dependsOn` of another store). */
  get appendFile(): AppendFile {
    return this.writer.appendFile;
  }

  /**
   * Appends one page (buffered; durable after {@link flush}) and returns its `urlId`.
   *
   * @throws RangeError when a field is invalid (see {@link PAGE_METADATA_SHAPE}); nothing is written.
   */
  append(page: PageMetadataInput): number | null {
    const record: PageMetadata = {
      ts: page.ts,
      urlId: null,
      url: page.url,
      payloadDigest: page.payloadDigest,
      textDigest: page.textDigest,
      simhash: page.simhash,
      lang: page.lang,
      title: page.title,
      category: page.category ?? null,
      categoryProbability: page.categoryProbability ?? null,
      categoryReason: page.categoryReason ?? null,
      geo: page.geo ?? null,
      linkCounts: page.linkCounts,
      isNoindex: page.isNoindex,
      isNofollow: page.isNofollow,
      canonical: page.canonical,
      nearDuplicateOf: page.nearDuplicateOf ?? null,
      nearDuplicateDistance: page.nearDuplicateDistance ?? null,
    };
    // Checked before the URL gets an id, so that a rejected page leaves no trace in the dictionary.
    const problem = problemOf(record, PAGE_METADATA_SHAPE);
    if (problem !== null) throw new RangeError(`invalid page metadata: ${problem}`);
    const urlId = this.linkGraph?.urlId(page.url) ?? null;
    this.writer.append({ ...record, urlId });
    return urlId;
  }

  /** Makes every line appended so far durable (fsync), after the link graph's dictionary. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /** Flushes and closes; idempotent. Close it before the link graph. */
  close(): Promise<void> {
    return this.writer.close();
  }
}

/**
 * The lines of a page metadata file, in order, each validated; a trailing line without `\n` is
 * skipped.
 *
 * @throws ShoalError `IO` naming the file and line of the first invalid one.
 */
export function readPageMetadata(path: string): AsyncIterable<PageMetadata> {
  return readJsonLines(path, 'page metadata', PAGE_METADATA_SHAPE);
}
