/**
 * The host table of the test web: names, addresses, language, topic, city and per-host
 * behaviours. Hosts are few (10,000 for a million pages), so each is a plain object; pages are not.
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { ConfigError } from '../core/errors.js';
import { flatten } from '../core/strings.js';
import type { TRAP_KINDS, WebConfig } from './config.js';
import { Purpose, Rng, pickWeighted } from '../core/prng.js';
import { citySlug, languageVocab, topicWords } from './vocab.js';
import type { UsCity } from '../geo/data/us-cities.js';

/** How a host answers /robots.txt. */
export const RobotsKind = {
  rules: 'rules',
  empty: 'empty',
  notFound: 'not-found',
  serverError: 'server-error',
  unavailable: 'unavailable',
  redirect: 'redirect',
  garbage: 'garbage',
} as const;
export type RobotsKind = (typeof RobotsKind)[keyof typeof RobotsKind];

/** The kinds of crawler trap a host may hold (docs/test-web.md §5.17). */
export const TrapKind = {
  calendar: 'calendar',
  session: 'session',
  repeat: 'repeat',
  query: 'query',
  pagination: 'pagination',
} as const satisfies { readonly [K in (typeof TRAP_KINDS)[number]]: K };
export type TrapKind = (typeof TrapKind)[keyof typeof TrapKind];

/** One synthetic host. */
export interface HostInfo {
  readonly index: number;
  /** ASCII (punycode) lowercase host name, as it appears in URLs and Host headers. */
  readonly name: string;
  /** Unicode form of the name (differs from `name` for internationalized names). */
  readonly unicodeName: string;
  /** Registrable domain (the host itself, or the parent of a subdomain host). */
  readonly domain: string;
  readonly ip: string;
  /** Index into the language list. */
  readonly lang: number;
  /** Index into the category list: the host's main topic. */
  readonly topic: number;
  /** Index into the target cities, or -1 when the host is not local to a city. */
  readonly city: number;
  readonly community: number;
  readonly firstPage: number;
  readonly pageCount: number;
  /** Host whose pages this host copies byte for byte, or -1. */
  readonly mirrorOf: number;
  readonly trap: TrapKind | null;
  /**
   * Whether nothing listens on `ip` (on the web's port): every connection to the host is refused.
   * Its name is in the hosts map and other hosts link to it all the same.
   */
  readonly isRefusing: boolean;
  readonly robots: RobotsKind;
  /** Whether robots.txt disallows the trap's path. */
  readonly robotsBlocksTrap: boolean;
  /** Local ids of index pages whose subtree robots.txt disallows. */
  readonly disallowed: readonly number[];
  /** Local ids of index pages re-allowed inside a disallowed subtree (longest match wins). */
  readonly allowed: readonly number[];
  readonly crawlDelaySeconds: number | null;
  readonly sitemap: 'none' | 'listed' | 'unlisted';
  readonly gzip: boolean;
  readonly brotli: boolean;
  readonly slow: boolean;
}

/** Parses an IPv4 dotted quad into a 32-bit unsigned integer. */
export function ipToInt(ip: string): number {
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** Formats a 32-bit unsigned integer as an IPv4 dotted quad. */
export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The pool of loopback addresses hosts are spread over. */
export function addressPool(config: WebConfig): string[] {
  const base = ipToInt(config.server.addressBase);
  const last = base + config.server.addressCount - 1;
  if (base >>> 24 !== 127 || last >>> 24 !== 127 || ((last & 255) === 255 && last === 0x7fffffff)) {
    throw new ConfigError([
      {
        path: 'server.addressBase',
        message: `addresses ${config.server.addressBase} + ${config.server.addressCount} must stay inside 127.0.0.0/8`,
      },
    ]);
  }
  return Array.from({ length: config.server.addressCount }, (_, i) => intToIp(base + i));
}

/** The last address of 127.0.0.0/8 a host may have (127.255.255.255 is the broadcast address). */
const LAST_LOOPBACK = ipToInt('127.255.255.254');
const FIRST_LOOPBACK = ipToInt('127.0.0.1');

/**
 * Loopback addresses for hosts that refuse connections: as many as the pool has, taken from just
 * after the pool (or just before it, where the pool ends 127.0.0.0/8), never the forward proxy's
 * address. The server binds the pool and the proxy only, so nothing listens on these.
 */
export function refusingAddressPool(config: WebConfig): string[] {
  const base = ipToInt(config.server.addressBase);
  const count = config.server.addressCount;
  const proxy = ipToInt(config.server.proxyAddress);
  const out: string[] = [];
  for (let a = base + count; a <= LAST_LOOPBACK && out.length < count; a++) if (a !== proxy) out.push(intToIp(a));
  for (let a = base - 1; a >= FIRST_LOOPBACK && out.length < count; a--) if (a !== proxy) out.push(intToIp(a));
  return out;
}

/** Splits `total` pages over `count` hosts by a Zipf law of exponent `a` (each host >= 1 page). */
export function hostSizes(total: number, count: number, a: number): number[] {
  if (count === 0) return [];
  const weights = Array.from({ length: count }, (_, r) => Math.pow(r + 1, -a));
  const sum = weights.reduce((x, y) => x + y, 0);
  const spare = total - count;
  const sizes = weights.map((w) => 1 + Math.floor((w / sum) * spare));
  let left = total - sizes.reduce((x, y) => x + y, 0);
  for (let i = 0; left > 0; i = (i + 1) % count, left--) sizes[i] = (sizes[i] as number) + 1;
  return sizes;
}

/** Name words for hosts whose language has no ASCII-only words (e.g. Russian without IDN). */
const LATIN_NAME_WORDS = ['portal', 'info', 'online', 'club', 'forum', 'gorod', 'novosti', 'mir', 'dom', 'sport', 'kniga', 'muzyka'];

const SUBDOMAIN_LABELS = ['www', 'blog', 'shop', 'news', 'forum', 'docs', 'store', 'wiki', 'media', 'mail'];

/** Inputs of the host table that the model has already resolved. */
export interface HostTableInput {
  readonly config: WebConfig;
  readonly languages: readonly string[];
  readonly languageWeights: Float64Array;
  readonly categories: readonly string[];
  /** Category index of WORLD, or -1. */
  readonly worldTopic: number;
  readonly cities: readonly UsCity[];
  /** Page count of each host, and the community of each host (community model) or -1. */
  readonly sizes: readonly number[];
  readonly communities: readonly number[] | null;
}

/** Builds every host, deterministically from the seed. */
export function buildHosts(input: HostTableInput): HostInfo[] {
  const { config } = input;
  const seed = config.seed;
  const addresses = addressPool(config);
  const refusingAddresses = refusingAddressPool(config);
  const listedTraps = new Map(config.traps.hosts.map((t) => [t.host, t.kind]));
  const listedRefusing = new Set(config.faults.refusingHosts);
  const englishTopics = input.categories.map((_, i) => i).filter((i) => i !== input.worldTopic);
  const names = new Set<string>();
  const hosts: HostInfo[] = [];
  let firstPage = 0;
  input.sizes.forEach((pageCount, index) => {
    const rng = new Rng(seed, Purpose.hostAttrs, index);
    const community = input.communities?.[index] ?? -1;
    const isCommunityModel = input.communities !== null;
    const lang = isCommunityModel ? input.languages.indexOf('en') : pickWeighted(rng.next(), input.languageWeights);
    const langCode = input.languages[lang] ?? 'en';
    const topic = isCommunityModel
      ? (englishTopics[community % englishTopics.length] as number)
      : langCode !== 'en' && input.worldTopic >= 0
        ? input.worldTopic
        : rng.pick(englishTopics);
    const city = !isCommunityModel && rng.chance(config.geo.hostRate) ? rng.int(input.cities.length) : -1;
    const picked = index > 0 && !isCommunityModel && rng.chance(config.duplicates.mirrorHostRate) ? rng.int(index) : -1;
    // A mirror of a mirror copies the root original.
    const mirrorOf = picked >= 0 ? ((hosts[picked] as HostInfo).mirrorOf >= 0 ? (hosts[picked] as HostInfo).mirrorOf : picked) : -1;
    const source = mirrorOf >= 0 ? (hosts[mirrorOf] as HostInfo) : null;
    const { name, unicodeName, domain } = hostName(rng, input, index, langCode, topic, city, hosts, names);
    const robots = pickRobots(rng, config);
    const fanout = config.links.fanout;
    const sections = Array.from({ length: Math.min(fanout, pageCount - 1) }, (_, i) => i + 1);
    const disallowed =
      robots === RobotsKind.rules && sections.length > 0
        ? [...new Set([rng.pick(sections), ...(rng.chance(0.5) ? [rng.pick(sections)] : [])])]
        : [];
    const allowed = disallowed.flatMap((d) => {
      const child = d * fanout + 1 + rng.int(fanout);
      return child < pageCount && rng.chance(0.5) ? [child] : [];
    });
    const drawnTrap = !isCommunityModel && rng.chance(config.traps.hostRate) ? rng.pick(config.traps.kinds) : null;
    const listedTrap = listedTraps.get(index);
    if (listedTrap !== undefined && source !== null) {
      throw new ConfigError([
        { path: 'traps.hosts', message: `host ${index} mirrors host ${mirrorOf} and takes its trap: list host ${mirrorOf} instead` },
      ]);
    }
    const trap = listedTrap ?? drawnTrap;
    // Only a robots.txt with rules can announce a sitemap or block a trap.
    const hasRules = robots === RobotsKind.rules || robots === RobotsKind.unavailable || robots === RobotsKind.redirect;
    const sitemap = rng.chance(config.robots.sitemapRate)
      ? hasRules && rng.chance(config.robots.sitemapListedRate)
        ? 'listed'
        : 'unlisted'
      : 'none';
    // Drawn on their own stream: a web without refusing hosts or listed traps keeps every other draw.
    const faultRng = new Rng(seed, Purpose.hostFaults, index);
    const isRefusing = listedRefusing.has(index) || (!isCommunityModel && faultRng.chance(config.faults.refusingHostRate));
    const isDrawnTrapBlocked = source === null && drawnTrap !== null && hasRules && rng.chance(config.traps.robotsDisallowRate);
    const isTrapBlocked = listedTrap === undefined ? isDrawnTrapBlocked : hasRules && faultRng.chance(config.traps.robotsDisallowRate);
    const ipRng = new Rng(seed, Purpose.hostName, index, 7);
    hosts.push({
      index,
      name,
      unicodeName,
      domain,
      ip: isRefusing
        ? (refusingAddresses[Math.floor(faultRng.next() * refusingAddresses.length)] as string)
        : (addresses[Math.floor(ipRng.next() * addresses.length)] as string),
      lang: source?.lang ?? lang,
      topic: source?.topic ?? topic,
      city: source?.city ?? city,
      community,
      firstPage,
      pageCount: source?.pageCount ?? pageCount,
      mirrorOf,
      // A mirror serves its original's pages and robots.txt: it takes the original's values, null ones too.
      trap: source !== null ? source.trap : trap,
      isRefusing,
      robots: source?.robots ?? robots,
      robotsBlocksTrap: source?.robotsBlocksTrap ?? isTrapBlocked,
      disallowed: source?.disallowed ?? disallowed,
      allowed: source?.allowed ?? allowed,
      crawlDelaySeconds:
        source !== null
          ? source.crawlDelaySeconds
          : robots === RobotsKind.rules && rng.chance(config.robots.crawlDelayRate)
            ? config.robots.crawlDelaySeconds
            : null,
      sitemap: source?.sitemap ?? sitemap,
      gzip: rng.chance(config.encoding.gzipRate),
      brotli: rng.chance(config.encoding.brotliRate),
      slow: rng.chance(config.latency.slowHostRate),
    });
    firstPage += source?.pageCount ?? pageCount;
  });
  return hosts;
}

function pickRobots(rng: Rng, config: WebConfig): RobotsKind {
  const r = config.robots;
  const table: [RobotsKind, number][] = [
    [RobotsKind.serverError, r.serverErrorRate],
    [RobotsKind.unavailable, r.unavailableRate],
    [RobotsKind.redirect, r.redirectRate],
    [RobotsKind.garbage, r.garbageRate],
    [RobotsKind.notFound, r.notFoundRate],
    [RobotsKind.empty, r.emptyRate],
    [RobotsKind.rules, r.rulesRate],
  ];
  let u = rng.next();
  for (const [kind, p] of table) {
    if (u < p) return kind;
    u -= p;
  }
  return RobotsKind.empty;
}

function hostName(
  rng: Rng,
  input: HostTableInput,
  index: number,
  langCode: string,
  topic: number,
  city: number,
  hosts: readonly HostInfo[],
  taken: Set<string>,
): { name: string; unicodeName: string; domain: string } {
  const { config } = input;
  const nameRng = new Rng(config.seed, Purpose.hostName, index);
  const tld = config.tld;
  const words = langCode === 'en' ? topicWords(input.categories[topic] ?? 'ARTS', topic) : languageVocab(langCode).content;
  const asciiWords = words.filter((w) => /^[a-z]+$/.test(w));
  const isIdn = langCode !== 'en' && nameRng.chance(config.languages.idnRate) && words.length > asciiWords.length;
  const pool = isIdn ? words.filter((w) => !/^[a-z]+$/.test(w)) : asciiWords.length > 0 ? asciiWords : LATIN_NAME_WORDS;
  for (let attempt = 0; ; attempt++) {
    const parts: string[] = [];
    if (city >= 0 && nameRng.chance(config.geo.hostNameCityRate)) parts.push(citySlug(input.cities[city]?.name ?? ''));
    parts.push(nameRng.pick(pool));
    if (parts.length < 2 || nameRng.chance(0.5)) parts.push(nameRng.pick(pool));
    if (attempt > 3) parts.push(String(index));
    let label = parts.join('-');
    let domain = `${label}.${tld}`;
    let unicodeName = domain;
    if (index > 0 && nameRng.chance(config.subdomainRate)) {
      const parent = hosts[nameRng.int(index)] as HostInfo;
      label = nameRng.pick(SUBDOMAIN_LABELS);
      domain = parent.domain;
      unicodeName = `${label}.${domainToUnicode(parent.domain)}`;
    }
    const name = domainToASCII(unicodeName);
    const asciiDomain = domainToASCII(domain);
    if (name !== '' && !taken.has(name)) {
      taken.add(name);
      return { name, unicodeName: flatten(unicodeName), domain: asciiDomain };
    }
  }
}
