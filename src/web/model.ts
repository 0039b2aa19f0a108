/**
 * The test web's model: hosts plus per-page attributes in typed arrays (a few bytes per page, so a
 * million pages cost a few MB), and the popularity pools link targets are drawn from. Everything
 * else about a page (path, links, text) is computed on demand from (seed, page id).
 */
import { ConfigError } from '../core/errors.js';
import { flatten } from '../core/strings.js';
import { webConfigSchema, type WebConfig, type WebConfigInput } from './config.js';
import { buildHosts, hostSizes, type HostInfo } from './hosts.js';
import { Purpose, Rng, cumulate, hash32, unitFromHash, zipfScale } from '../core/prng.js';
import { capitalize, citySlug, languageVocab, targetCities, topicWords } from './vocab.js';
import type { UsCity } from '../geo/data/us-cities.js';
import { toIssues } from '../config/load.js';

/** What a page URL answers (the page's "kind"); `ok` pages carry content and links. */
export const PageKind = {
  ok: 0,
  redirect: 1,
  redirectLoop: 2,
  notFound: 3,
  gone: 4,
  serverError: 5,
  unavailable: 6,
  reset: 7,
  hang: 8,
  oversized: 9,
  bomb: 10,
  nearDuplicate: 11,
  drip: 12,
} as const;
export type PageKind = (typeof PageKind)[keyof typeof PageKind];
export const PAGE_KIND_NAMES: readonly string[] = Object.keys(PageKind);

/** Per-page flags (bits). */
export const PageFlag = {
  noindex: 1,
  nofollow: 2,
  baseHref: 4,
  canonical: 8,
  short: 16,
  trapLink: 32,
  legacyCharset: 64,
} as const;

/**
 * Kinds whose URL eventually answers 200 with a body. A drip page does too, but only to a client
 * that waits `faults.dripMs` (two minutes by default): the truth's polite crawler does not.
 */
export function servesContent(kind: number): boolean {
  return (
    kind === PageKind.ok ||
    kind === PageKind.unavailable ||
    kind === PageKind.reset ||
    kind === PageKind.oversized ||
    kind === PageKind.nearDuplicate
  );
}

/**
 * The HTTP status page g finally answers (after transient faults recover); 0 when its host refuses
 * connections.
 */
export function finalStatus(model: WebModel, g: number): number {
  if (model.hostOf(g).isRefusing) return 0;
  switch (model.pageKind[g]) {
    case PageKind.redirect:
      return redirectInfo(model, g).status;
    case PageKind.redirectLoop:
      return 302;
    case PageKind.notFound:
      return 404;
    case PageKind.gone:
      return 410;
    case PageKind.serverError:
      return 500;
    default:
      return 200;
  }
}

/** Validates a (partial) test-web configuration, listing every bad field. */
export function parseWebConfig(input: WebConfigInput | unknown): WebConfig {
  const res = webConfigSchema.safeParse(input ?? {});
  if (!res.success) throw new ConfigError(toIssues(res.error));
  return res.data;
}

/** Sort key trick: pack a 28-bit key and a 24-bit index into one exact double, sort natively. */
function sortByKey(ids: Int32Array, keyOf: (id: number) => number): Int32Array {
  const packed = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    packed[i] = Math.floor(keyOf(id) * 268435456) * 16777216 + i;
  }
  packed.sort();
  const out = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = ids[(packed[i] as number) % 16777216] as number;
  return out;
}

/** The generated Web (without a server): query pages, hosts and pools. */
export class WebModel {
  readonly config: WebConfig;
  readonly categories: readonly string[];
  readonly worldTopic: number;
  readonly languages: readonly string[];
  readonly cities: readonly UsCity[];
  readonly hosts: readonly HostInfo[];
  readonly pageCount: number;
  /** Host index of each page. */
  readonly pageHost: Uint32Array;
  readonly pageTopic: Uint8Array;
  /** City index of a geographic page, or -1. */
  readonly pageCity: Int16Array;
  readonly pageKind: Uint8Array;
  readonly pageFlags: Uint8Array;
  /** Redirect target (redirect), original page (near-duplicate), else -1. */
  readonly pageRef: Int32Array;
  /** Zipf exponent that yields the configured in-degree exponent. */
  readonly zipfS: number;
  /** Pages of each topic, most popular first. */
  readonly topicPools: readonly Int32Array[];
  /** Geographic pages of each city, most popular first. */
  readonly cityPools: readonly Int32Array[];
  readonly topicShares: Float64Array;
  /** {@link zipfScale} of each topic pool, city pool and host (by index), for link draws. */
  readonly topicPoolScales: Float64Array;
  readonly cityPoolScales: Float64Array;
  readonly hostScales: Float64Array;
  private readonly hostIndexByName = new Map<string, number>();
  /**
   * Paths of index pages, per host by local id: index pages are a prefix of each host's local ids,
   * about 1/fanout of all pages, and every path below them starts with theirs.
   */
  private readonly indexPaths: (string | undefined)[][] = [];
  /** The last leaf path computed: a request resolves its page's path, then renders the page. */
  private lastLeaf = -1;
  private lastLeafPath = '';
  /** Index of English in `languages` (-1 when absent). */
  private readonly englishIndex: number;
  /** Content words by vocabulary key (see {@link vocabularyKey}); percent-encoded; capitalized. */
  readonly vocabularies: readonly (readonly string[])[];
  private readonly encodedVocabularies: readonly (readonly string[])[];
  readonly capitalizedVocabularies: readonly (readonly string[])[];
  /** Path form of each target city's name. */
  private readonly citySlugs: readonly string[];
  /** (kind, probability) of every non-ok page kind, from the fault and duplicate rates. */
  private readonly kindTable: readonly (readonly [number, number])[];

  constructor(input: WebConfigInput | WebConfig) {
    const config = parseWebConfig(input);
    this.config = config;
    this.categories = config.topics.categories;
    this.worldTopic = config.topics.worldCategory === null ? -1 : this.categories.indexOf(config.topics.worldCategory);
    this.languages = Object.keys(config.languages.weights);
    this.cities = targetCities(config.geo.cities);
    this.zipfS = 1 / (config.links.inDegreeExponent - 1);
    this.englishIndex = this.languages.indexOf('en');
    this.vocabularies = [...this.categories.map((c, i) => topicWords(c, i)), ...this.languages.map((l) => languageVocab(l).content)];
    this.encodedVocabularies = this.vocabularies.map((v) => v.map((w) => encodeURIComponent(w)));
    this.capitalizedVocabularies = this.vocabularies.map((v) => v.map((w) => flatten(capitalize(w))));
    this.citySlugs = this.cities.map((c) => citySlug(c.name));
    const f = config.faults;
    this.kindTable = [
      [PageKind.redirect, f.redirectRate],
      [PageKind.redirectLoop, f.redirectLoopRate],
      [PageKind.notFound, f.notFoundRate],
      [PageKind.gone, f.goneRate],
      [PageKind.serverError, f.serverErrorRate],
      [PageKind.unavailable, f.unavailableRate],
      [PageKind.reset, f.resetRate],
      [PageKind.hang, f.hangRate],
      [PageKind.oversized, f.oversizedRate],
      [PageKind.bomb, f.bombRate],
      [PageKind.nearDuplicate, config.duplicates.nearDuplicateRate],
      [PageKind.drip, f.dripRate],
    ];
    const isCommunity = config.links.model === 'community';
    let sizes: number[];
    let communities: number[] | null = null;
    if (isCommunity) {
      const { count, size, hostsPerCommunity } = config.community;
      sizes = [];
      communities = [];
      for (let t = 0; t < count; t++) {
        const split = hostSizes(size, Math.min(hostsPerCommunity, size), 0);
        for (const s of split) {
          sizes.push(s);
          communities.push(t);
        }
      }
    } else {
      sizes = hostSizes(config.pages, config.hosts, config.links.hostSizeExponent);
    }
    this.hosts = buildHosts({
      config,
      languages: this.languages,
      languageWeights: cumulate(this.languages.map((l) => config.languages.weights[l as 'en'] ?? 0)),
      categories: this.categories,
      worldTopic: this.worldTopic,
      cities: this.cities,
      sizes,
      communities,
    });
    this.hosts.forEach((h) => this.hostIndexByName.set(h.name, h.index));
    const n = this.hosts.reduce((a, h) => a + h.pageCount, 0);
    this.pageCount = n;
    this.pageHost = new Uint32Array(n);
    this.pageTopic = new Uint8Array(n);
    this.pageCity = new Int16Array(n).fill(-1);
    this.pageKind = new Uint8Array(n);
    this.pageFlags = new Uint8Array(n);
    this.pageRef = new Int32Array(n).fill(-1);
    const listedDrips = this.listedDripPages();
    for (const h of this.hosts) this.buildPages(h, listedDrips);
    this.topicPools = this.buildPools(this.categories.length, (g) => this.pageTopic[g] as number);
    this.cityPools = this.buildPools(this.cities.length, (g) => this.pageCity[g] as number);
    this.topicShares = new Float64Array(this.topicPools.map((p) => p.length / Math.max(1, n)));
    this.topicPoolScales = new Float64Array(this.topicPools.map((p) => zipfScale(p.length, this.zipfS)));
    this.cityPoolScales = new Float64Array(this.cityPools.map((p) => zipfScale(p.length, this.zipfS)));
    this.hostScales = new Float64Array(this.hosts.map((h) => zipfScale(h.pageCount, this.zipfS)));
    for (const h of this.hosts) if (h.mirrorOf < 0) this.assignRedirectTargets(h);
    for (const h of this.hosts) if (h.mirrorOf >= 0) this.copyRefs(h);
  }

  /** Page ids of `faults.dripPages`, checked against the host table. */
  private listedDripPages(): ReadonlySet<number> {
    const issues: { path: string; message: string }[] = [];
    const out = new Set<number>();
    this.config.faults.dripPages.forEach(({ host, page }, i) => {
      const h = this.hosts[host] as HostInfo;
      if (h.mirrorOf >= 0) {
        issues.push({
          path: `faults.dripPages.${i}.host`,
          message: `host ${host} mirrors host ${h.mirrorOf} and copies its pages: list host ${h.mirrorOf} instead`,
        });
      } else if (page >= h.pageCount) {
        issues.push({ path: `faults.dripPages.${i}.page`, message: `host ${host} has pages 0 to ${h.pageCount - 1}` });
      } else {
        out.add(h.firstPage + page);
      }
    });
    if (issues.length > 0) throw new ConfigError(issues);
    return out;
  }

  private buildPages(h: HostInfo, listedDrips: ReadonlySet<number>): void {
    const c = this.config;
    const englishTopics = this.categories.map((_, i) => i).filter((i) => i !== this.worldTopic);
    for (let local = 0; local < h.pageCount; local++) {
      const g = h.firstPage + local;
      this.pageHost[g] = h.index;
      if (h.mirrorOf >= 0) {
        const src = (this.hosts[h.mirrorOf] as HostInfo).firstPage + local;
        this.pageTopic[g] = this.pageTopic[src] as number;
        this.pageCity[g] = this.pageCity[src] as number;
        this.pageKind[g] = this.pageKind[src] as number;
        this.pageFlags[g] = this.pageFlags[src] as number;
        continue;
      }
      const rng = new Rng(c.seed, Purpose.pageAttrs, g);
      const isEnglish = this.languages[h.lang] === 'en';
      this.pageTopic[g] =
        !isEnglish && this.worldTopic >= 0
          ? this.worldTopic
          : c.links.model === 'community' || rng.chance(c.topics.hostPurity)
            ? h.topic
            : rng.pick(englishTopics);
      if (c.links.model === 'web') {
        if (h.city >= 0 && rng.chance(c.geo.localPageRate)) this.pageCity[g] = h.city;
        else if (rng.chance(c.geo.strayPageRate)) this.pageCity[g] = rng.int(this.cities.length);
      }
      let flags = 0;
      if (rng.chance(c.meta.noindexRate)) flags |= PageFlag.noindex;
      if (rng.chance(c.meta.nofollowRate)) flags |= PageFlag.nofollow;
      if (rng.chance(c.meta.baseHrefRate)) flags |= PageFlag.baseHref;
      if (rng.chance(c.content.shortPageRate)) flags |= PageFlag.short;
      if (h.trap !== null && (local === 0 || rng.chance(0.05))) flags |= PageFlag.trapLink;
      const legacy = isEnglish ? c.languages.englishLegacyRate : c.languages.legacyCharsetRate;
      if (rng.chance(legacy)) flags |= PageFlag.legacyCharset;
      let kind: number = PageKind.ok;
      // Faults and near-duplicates belong to the web model; the community graph stays exact.
      if (listedDrips.has(g)) {
        kind = PageKind.drip;
      } else if (local > 0 && c.links.model === 'web') {
        kind = this.pickKind(rng);
        if (kind === PageKind.nearDuplicate) {
          const src = h.firstPage + rng.int(local);
          if (this.pageKind[src] === PageKind.ok) {
            this.pageRef[g] = src;
            this.pageTopic[g] = this.pageTopic[src] as number;
            this.pageCity[g] = this.pageCity[src] as number;
            flags = (this.pageFlags[src] as number) & ~PageFlag.canonical;
            if (rng.chance(c.duplicates.canonicalRate)) flags |= PageFlag.canonical;
          } else {
            kind = PageKind.ok;
          }
        }
      }
      this.pageKind[g] = kind;
      this.pageFlags[g] = flags;
    }
  }

  private pickKind(rng: Rng): number {
    let u = rng.next();
    for (const [kind, p] of this.kindTable) {
      if (u < p) return kind;
      u -= p;
    }
    return PageKind.ok;
  }

  private buildPools(count: number, keyOf: (g: number) => number): Int32Array[] {
    const sizes = new Int32Array(count);
    for (let g = 0; g < this.pageCount; g++) {
      const k = keyOf(g);
      if (k >= 0) sizes[k] = (sizes[k] as number) + 1;
    }
    const pools = Array.from(sizes, (s) => new Int32Array(s));
    const fill = new Int32Array(count);
    for (let g = 0; g < this.pageCount; g++) {
      const k = keyOf(g);
      if (k < 0) continue;
      (pools[k] as Int32Array)[fill[k] as number] = g;
      fill[k] = (fill[k] as number) + 1;
    }
    const seed = this.config.seed;
    // Home pages tend to be popular; otherwise popularity is independent of everything else.
    return pools.map((pool) =>
      sortByKey(pool, (g) => {
        const u = unitFromHash(hash32(seed, Purpose.popularity, g));
        return this.localId(g) === 0 ? u * 0.05 : u;
      }),
    );
  }

  private assignRedirectTargets(h: HostInfo): void {
    for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
      if (this.pageKind[g] !== PageKind.redirect) continue;
      const rng = new Rng(this.config.seed, Purpose.pageLinks, g, 99);
      const pool = this.topicPools[this.pageTopic[g] as number] as Int32Array;
      let target = pool[Math.min(pool.length - 1, Math.floor(rng.next() * pool.length))] as number;
      if (target === g || this.pageKind[target] !== PageKind.ok) target = h.firstPage;
      this.pageRef[g] = target;
    }
  }

  private copyRefs(h: HostInfo): void {
    const src = this.hosts[h.mirrorOf] as HostInfo;
    for (let local = 0; local < h.pageCount; local++) {
      const ref = this.pageRef[src.firstPage + local] as number;
      const inSource = ref >= src.firstPage && ref < src.firstPage + src.pageCount;
      this.pageRef[h.firstPage + local] = inSource ? ref - src.firstPage + h.firstPage : ref;
    }
  }

  /** The host of page g. */
  hostOf(g: number): HostInfo {
    return this.hosts[this.pageHost[g] as number] as HostInfo;
  }

  /** Page id within its host (0 = home page). */
  localId(g: number): number {
    return g - this.hostOf(g).firstPage;
  }

  /** The host with this (lowercase ASCII) name, if any. */
  hostByName(name: string): HostInfo | undefined {
    const i = this.hostIndexByName.get(name);
    return i === undefined ? undefined : this.hosts[i];
  }

  /** The page whose randomness writes g's content (mirrors copy their original host). */
  contentId(g: number): number {
    const h = this.hostOf(g);
    if (h.mirrorOf < 0) return g;
    return (this.hosts[h.mirrorOf] as HostInfo).firstPage + (g - h.firstPage);
  }

  /** Language code of page g. */
  langOf(g: number): string {
    return this.languages[this.hostOf(g).lang] ?? 'en';
  }

  /** Whether local page `local` of a host has children in the site tree (an index page). */
  isIndexPage(h: HostInfo, local: number): boolean {
    return local === 0 || local * this.config.links.fanout + 1 < h.pageCount;
  }

  /** Parent local id in the site tree (home has none: -1). */
  parentLocal(local: number): number {
    return local === 0 ? -1 : Math.floor((local - 1) / this.config.links.fanout);
  }

  /**
   * Which vocabulary page g writes its titles, slugs, anchors and topic words with: its topic's
   * (English pages, 0 .. categories - 1) or its language's content words (categories + language).
   */
  vocabularyKey(g: number): number {
    const lang = this.hostOf(g).lang;
    return lang === this.englishIndex ? (this.pageTopic[g] as number) : this.categories.length + lang;
  }

  /** The content words of page g (see {@link vocabularyKey}). */
  contentWords(g: number): readonly string[] {
    return this.vocabularies[this.vocabularyKey(g)] as readonly string[];
  }

  /** Slug words of a page's last path segment (before `-<local id>`), percent-encoded. */
  slug(g: number): string {
    const cid = this.contentId(g);
    const rng = new Rng(this.config.seed, Purpose.pageSlug, cid);
    const encoded = this.encodedVocabularies[this.vocabularyKey(cid)] as readonly string[];
    let out = encoded[rng.int(encoded.length)] as string;
    if (rng.chance(0.6)) out += '-' + (encoded[rng.int(encoded.length)] as string);
    const city = this.pageCity[cid] as number;
    if (city >= 0 && rng.chance(this.config.geo.urlCityRate)) out = `${this.citySlugs[city] ?? ''}-${out}`;
    return out;
  }

  /** The canonical (normalized, percent-encoded) path of page g. */
  path(g: number): string {
    const h = this.hostOf(g);
    const local = g - h.firstPage;
    if (local === 0) return '/';
    const isIndex = this.isIndexPage(h, local);
    let cache: (string | undefined)[] | undefined;
    if (isIndex) {
      cache = this.indexPaths[h.index];
      if (cache === undefined) {
        cache = Array.from({ length: Math.ceil((h.pageCount - 1) / this.config.links.fanout) });
        this.indexPaths[h.index] = cache;
      }
      const cached = cache[local];
      if (cached !== undefined) return cached;
    } else if (g === this.lastLeaf) {
      return this.lastLeafPath;
    }
    const parent = this.parentLocal(local);
    const path = this.path(h.firstPage + parent) + this.slug(g) + '-' + String(local) + (isIndex ? '/' : '.html');
    if (cache !== undefined) {
      cache[local] = flatten(path);
    } else {
      this.lastLeaf = g;
      this.lastLeafPath = path;
    }
    return path;
  }

  /**
   * The page a decoded request path names on host h, or -1. `slashless` is set when the path names
   * an index page without its trailing slash (servers answer that with a redirect).
   */
  pageAtPath(h: HostInfo, path: string): { page: number; slashless: boolean } {
    const m = /-(\d{1,9})(\.html|\/)?$/.exec(path);
    if (path === '/') return { page: h.firstPage, slashless: false };
    if (m === null) return { page: -1, slashless: false };
    const local = Number(m[1]);
    if (local <= 0 || local >= h.pageCount) return { page: -1, slashless: false };
    const g = h.firstPage + local;
    const encoded = this.path(g);
    const canonical = encoded.includes('%') ? decodeURIComponent(encoded) : encoded;
    if (canonical === path) return { page: g, slashless: false };
    if (m[2] === undefined && canonical === `${path}/`) return { page: g, slashless: true };
    return { page: -1, slashless: false };
  }

  /** The absolute URL of page g, served on `port` (omitted when 80). */
  url(g: number, port: number): string {
    const h = this.hostOf(g);
    return `http://${h.name}${port === 80 ? '' : `:${port}`}${this.path(g)}`;
  }

  /** Whether robots.txt (the `*` group) disallows page g's path. */
  isDisallowed(g: number): boolean {
    const h = this.hostOf(g);
    if (h.robots === 'server-error') return true;
    if (h.robots !== 'rules' && h.robots !== 'unavailable' && h.robots !== 'redirect') return false;
    let local = g - h.firstPage;
    // Walk up the site tree: the deepest rule on the path wins (Allow rules sit below Disallow).
    while (local > 0) {
      if (h.allowed.includes(local)) return false;
      if (h.disallowed.includes(local)) return true;
      local = this.parentLocal(local);
    }
    return false;
  }

  /** Home pages used as crawl seeds: the largest ordinary hosts first. */
  seedPages(): number[] {
    const order = [...this.hosts]
      .filter(
        (h) =>
          h.mirrorOf < 0 && h.trap === null && !h.isRefusing && (h.robots === 'empty' || h.robots === 'not-found' || h.robots === 'rules'),
      )
      .sort((a, b) => b.pageCount - a.pageCount || a.index - b.index);
    return order.slice(0, this.config.seeds).map((h) => h.firstPage);
  }
}

/** How a redirecting page answers: status, number of hops before the target, the final target. */
export interface RedirectInfo {
  readonly status: 301 | 302;
  /** Intermediate hop URLs before the target (0 = Location is the target itself). */
  readonly hops: number;
  /** Final page id, or -1 for a loop. */
  readonly target: number;
}

/** Redirect details of a redirect or redirect-loop page. */
export function redirectInfo(model: WebModel, g: number): RedirectInfo {
  const cid = model.contentId(g);
  const rng = new Rng(model.config.seed, Purpose.pageAttrs, cid, 1);
  const status = rng.chance(model.config.faults.permanentRedirectShare) ? 301 : 302;
  const hops = rng.int(model.config.faults.maxRedirectChain);
  const isLoop = model.pageKind[g] === PageKind.redirectLoop;
  return { status, hops: isLoop ? 2 : hops, target: isLoop ? -1 : (model.pageRef[g] as number) };
}
