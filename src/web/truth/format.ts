/**
 * The test web's ground-truth format (SPEC §6: "exports its ground truth (graph, labels, true
 * PageRank, communities, geo entities) so metrics can be computed exactly"): file names, columns,
 * encodings and the manifest, shared by export.ts and read.ts.
 *
 * A truth export is a directory:
 *
 * - `hosts.tsv`, `pages.tsv`, `entities.tsv`: UTF-8, `\n` line ends, tab-separated, one header line.
 *   No field may hold a tab or a line break (the exporter fails rather than write one).
 * - `links.offsets.u32`, `links.targets.u32`: the deduplicated page graph in CSR form, little-endian
 *   uint32; `links.kinds.u8`: one byte per edge, LinkKind in bits 0–1, {@link NOFOLLOW_BIT} when
 *   every occurrence of the link is rel=nofollow.
 * - `ip-cities.csv`: where the server at each address stands, a range table of src/geo/ip-range-table.ts
 *   (CSV, `#` comment lines first, then the header `start_ip,end_ip,city,state`; src/web/ip-cities.ts
 *   says how it is drawn). `shoal web` writes the same file next to its hosts map.
 * - `manifest.json`, written last: its presence means the export is complete; it holds the
 *   configuration, the lookup tables the TSVs refer to by name, and the size and SHA-256 of every
 *   other file.
 *
 * Files are written under {@link PARTIAL_SUFFIX} names and renamed when complete.
 */
import type { WebConfig } from '../config.js';

/** `manifest.format` of every truth export. */
export const TRUTH_FORMAT_ID = 'shoal-web-truth';
/** `manifest.version` this code writes and reads. */
export const TRUTH_VERSION = 2;

/** The manifest file, written last. */
export const MANIFEST_FILE = 'manifest.json';
/** One row per host. */
export const HOSTS_FILE = 'hosts.tsv';
/** One row per page id, in id order. */
export const PAGES_FILE = 'pages.tsv';
/** CSR offsets of the page graph: pageCount + 1 little-endian uint32. */
export const OFFSETS_FILE = 'links.offsets.u32';
/** CSR targets of the page graph: one little-endian uint32 page id per edge. */
export const TARGETS_FILE = 'links.targets.u32';
/** One byte per edge: LinkKind | NOFOLLOW_BIT. */
export const KINDS_FILE = 'links.kinds.u8';
/** One row per geographic entity (street address) of every page that serves content. */
export const ENTITIES_FILE = 'entities.tsv';

/** One `/32` range per test-web address that has a place: the IP → city table of the `ip` geo strategy. */
export const IP_CITIES_FILE = 'ip-cities.csv';

/** Every file besides the manifest, in the order the manifest lists them. */
export const DATA_FILES = [HOSTS_FILE, PAGES_FILE, OFFSETS_FILE, TARGETS_FILE, KINDS_FILE, ENTITIES_FILE, IP_CITIES_FILE] as const;
/** Suffix of a file still being written. */
export const PARTIAL_SUFFIX = '.partial';

/** Bit of a `links.kinds.u8` byte set when the link is rel=nofollow (every occurrence of it). */
export const NOFOLLOW_BIT = 0x80;
/** Mask of the LinkKind in a `links.kinds.u8` byte. */
export const LINK_KIND_MASK = 0x03;

/** Values of the `reach` column. */
export const Reach = {
  /** Not reachable from the seeds at all. */
  unreachable: 0,
  /** Reachable by following every link (nofollow, robots and meta robots ignored). */
  linked: 1,
  /** Fetched by a polite crawler started at the seeds (see export.ts for its exact rules). */
  polite: 2,
} as const;
export type Reach = (typeof Reach)[keyof typeof Reach];

/** PageRank of the truth: damping d (SPEC §3). */
export const TRUTH_DAMPING = 0.9;
/** PageRank of the truth: stop when the L1 change per page falls below this. */
export const TRUTH_TOLERANCE = 1e-9;
/** PageRank of the truth: iteration cap (d = 0.9 contracts slowly; the manifest says if it was hit). */
export const TRUTH_MAX_ITERATIONS = 400;
/** Significant digits of the `pagerank` column (`Number.prototype.toPrecision`). */
export const PAGERANK_DIGITS = 8;

/** Columns of hosts.tsv, in order. */
export const HOST_COLUMNS = [
  'host',
  'name',
  'unicode_name',
  'domain',
  'ip',
  'lang',
  'topic',
  'city',
  'community',
  'first_page',
  'page_count',
  'mirror_of',
  'trap',
  'trap_blocked',
  'refuses',
  'robots',
  'crawl_delay',
  'sitemap',
] as const;
/** Columns of pages.tsv, in order. */
export const PAGE_COLUMNS = [
  'page',
  'host',
  'path',
  'status',
  'kind',
  'topic',
  'lang',
  'community',
  'city',
  'flags',
  'dup_of',
  'redirect_to',
  'in_degree',
  'out_degree',
  'pagerank',
  'reach',
] as const;
/** Columns of entities.tsv, in order. */
export const ENTITY_COLUMNS = ['page', 'number', 'street', 'city', 'state', 'zip'] as const;

/** What each column means; copied into `manifest.columns` so an export documents itself. */
export const COLUMN_DOCS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  [HOSTS_FILE]: {
    host: 'host index (0-based, = row number)',
    name: 'ASCII (punycode) lowercase host name as in URLs',
    unicode_name: 'Unicode form of the name',
    domain: 'registrable domain (ASCII)',
    ip: 'loopback IPv4 address the host resolves to',
    lang: 'language code (one of manifest.languages)',
    topic: 'main topic (one of manifest.categories)',
    city: '"Name, ST" of the city the host is local to (manifest.cities), or empty',
    community: 'community index (community model), or -1',
    first_page: 'page id of the home page; the host owns page ids first_page .. first_page + page_count - 1',
    page_count: 'number of pages',
    mirror_of: 'host index this host mirrors byte for byte, or -1',
    trap: 'crawler trap kind (calendar, session, repeat, query, pagination), or empty',
    trap_blocked: '1 when robots.txt disallows the trap, else 0',
    refuses: "1 when nothing listens on the host's address: every connection is refused (its pages have status 0), else 0",
    robots: 'how /robots.txt answers: rules, empty, not-found, server-error, unavailable, redirect, garbage',
    crawl_delay: 'Crawl-delay seconds written in robots.txt, or empty',
    sitemap: 'none, listed (announced in robots.txt) or unlisted',
  },
  [PAGES_FILE]: {
    page: 'page id (0-based, = row number); ids of one host are contiguous',
    host: 'host index',
    path: 'canonical percent-encoded path (the URL is http://<host name>[:port]<path>)',
    status:
      'HTTP status the URL finally answers (after transient faults recover); 301/302 for redirects; 0 when the host refuses connections',
    kind: 'page kind (one of manifest.pageKinds)',
    topic: 'true topic label (one of manifest.categories)',
    lang: 'language code (one of manifest.languages)',
    community: 'community of the page’s host (community model), or -1',
    city: '"Name, ST" of a geographic page’s city (manifest.cities), or empty',
    flags: 'comma-separated page flags (keys of manifest.pageFlags), or empty',
    dup_of: 'page whose content this page repeats: the original of a mirror-host page (exact) or the source of a near-duplicate, else -1',
    redirect_to: 'final target page of a redirect, else -1 (also -1 for a redirect loop)',
    in_degree: 'in-degree in the deduplicated graph (links.*)',
    out_degree: 'out-degree in the deduplicated graph (links.*)',
    pagerank: 'IR(P) of SPEC §3 on the deduplicated graph (d = manifest.pagerank.damping; sums to the page count)',
    reach: '0 = unreachable from the seeds, 1 = reachable over all links, 2 = fetched by a polite crawler',
  },
  [OFFSETS_FILE]: {
    offsets:
      'pages + 1 little-endian uint32: out-links of page p are targets[offsets[p] .. offsets[p+1]-1]; self-links and repeated targets removed',
  },
  [TARGETS_FILE]: {
    targets:
      'little-endian uint32 target page id of each edge, in the order the page first links to it (first without rel=nofollow, when an earlier link carries it)',
  },
  [KINDS_FILE]: {
    kinds:
      'one byte per edge: bits 0-1 = link kind of the first occurrence (manifest.linkKinds), bit 7 (0x80) = every occurrence is rel=nofollow',
  },
  [ENTITIES_FILE]: {
    page: 'page id (only pages that serve content)',
    number: 'house number',
    street: 'street name with its type word as written (e.g. "Oak Street", "Oak St")',
    city: 'city name',
    state: 'USPS state code',
    zip: 'five-digit ZIP, or empty when the page writes none',
  },
  [IP_CITIES_FILE]: {
    start_ip: 'first address of the range: one loopback IPv4 address of hosts.tsv `ip` (every range is a single address)',
    end_ip: 'last address of the range (inclusive): the same address',
    city: 'name of the target city (manifest.cities) the server at that address stands in',
    state: 'USPS state code of that city',
  },
};

/** Size and digest of one exported file. */
export interface TruthFileInfo {
  readonly bytes: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  readonly sha256: string;
}

/** A target city as listed in the manifest; rows refer to it as `"<name>, <state>"`. */
export interface TruthCity {
  readonly name: string;
  readonly state: string;
  readonly population: number;
}

/** manifest.json. */
export interface TruthManifest {
  readonly format: typeof TRUTH_FORMAT_ID;
  readonly version: typeof TRUTH_VERSION;
  readonly seed: number;
  /** The full validated configuration the Web was generated from. */
  readonly config: WebConfig;
  /** Port the URLs were served on when the export was made, or null if unknown. */
  readonly port: number | null;
  readonly counts: { readonly hosts: number; readonly pages: number; readonly links: number; readonly entities: number };
  readonly categories: readonly string[];
  readonly languages: readonly string[];
  readonly cities: readonly TruthCity[];
  /** PageKind names by value. */
  readonly pageKinds: readonly string[];
  /** PageFlag bit of each flag name. */
  readonly pageFlags: Readonly<Record<string, number>>;
  /** LinkKind value of each link kind name. */
  readonly linkKinds: Readonly<Record<string, number>>;
  /** Seed page ids, in the order a crawl is seeded. */
  readonly seeds: readonly number[];
  readonly files: Readonly<Record<string, TruthFileInfo>>;
  readonly pagerank: {
    readonly damping: number;
    readonly iterations: number;
    /** L1 change per page of the last iteration. */
    readonly residual: number;
    readonly tolerance: number;
    readonly converged: boolean;
  };
  readonly columns: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** One row of hosts.tsv. */
export interface TruthHost {
  readonly index: number;
  readonly name: string;
  readonly unicodeName: string;
  readonly domain: string;
  readonly ip: string;
  /** Language code. */
  readonly lang: string;
  /** Topic (category name). */
  readonly topic: string;
  /** `"Name, ST"`, or '' when the host is not local to a city. */
  readonly city: string;
  /** Index of `city` in manifest.cities, or -1. */
  readonly cityIndex: number;
  readonly community: number;
  readonly firstPage: number;
  readonly pageCount: number;
  readonly mirrorOf: number;
  readonly trap: string | null;
  /** Whether robots.txt disallows the trap (false without a trap). */
  readonly isTrapBlocked: boolean;
  /** Whether every connection to the host is refused (nothing listens on `ip`). */
  readonly isRefusing: boolean;
  readonly robots: string;
  readonly crawlDelaySeconds: number | null;
  readonly sitemap: string;
}

/** One row of entities.tsv: a street address written on a page. */
export interface TruthEntity {
  readonly page: number;
  readonly number: number;
  readonly street: string;
  readonly city: string;
  readonly state: string;
  /** Five-digit ZIP, or ''. */
  readonly zip: string;
}

/** How rows name a city: `"Name, ST"`. */
export function cityLabel(city: { readonly name: string; readonly state: string }): string {
  return `${city.name}, ${city.state}`;
}
