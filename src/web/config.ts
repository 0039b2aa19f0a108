/**
 * Configuration of the test web (`shoal web`): one zod schema, the single source of truth for
 * every knob, its default, unit and meaning. docs/test-web.md explains the model behind them.
 */
import { z } from 'zod';
import { bytes, durationMs, rate } from '../config/units.js';

/** The 16 top-level categories of the Open Directory, as used by the X4 crawler (SPEC §4.2). */
export const DEFAULT_CATEGORIES = [
  'ADULT',
  'ARTS',
  'BUSINESS',
  'COMPUTERS',
  'GAMES',
  'HEALTH',
  'HOME',
  'KIDS',
  'NEWS',
  'RECREATION',
  'REFERENCE',
  'SCIENCE',
  'SHOPPING',
  'SOCIETY',
  'SPORTS',
  'WORLD',
] as const;

const int = (min = 0) => z.number().int().min(min);

/**
 * The kinds of crawler trap a host may hold (`HostInfo.trap`, re-exported by hosts.ts as
 * `TrapKind`), in the order random trap hosts draw them from `traps.kinds`.
 */
export const TRAP_KINDS = ['calendar', 'session', 'repeat', 'query', 'pagination'] as const;

const serverSchema = z
  .strictObject({
    port: int().max(65535).default(0).describe('TCP port every host listens on (0 = pick a free port)'),
    addressBase: z.ipv4().default('127.0.1.1').describe('first loopback address of the pool hosts are spread over'),
    addressCount: int(1).max(65_000).default(64).describe('number of loopback addresses (several hosts share each, like shared hosting)'),
    proxyPort: int()
      .max(65535)
      .nullable()
      .default(null)
      .describe('also serve as an HTTP forward proxy (absolute-form requests) on 127.0.0.1:this port (0 = free port; null = off)'),
    proxyAddress: z.ipv4().default('127.0.0.1').describe('address the forward proxy binds'),
    requestLogLimit: int().default(200_000).describe('requests kept in the in-memory request log (oldest dropped)'),
    requestLogFile: z.string().nullable().default(null).describe('also append every request as one JSON line to this file'),
    renderCacheBytes: bytes()
      .default(64 * 1024 * 1024)
      .describe('memory for recently rendered bodies (0 = no cache)'),
  })
  .prefault({});

const topicSchema = z
  .strictObject({
    categories: z
      .array(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/))
      .min(2)
      .max(240)
      .default([...DEFAULT_CATEGORIES])
      .describe('true topic labels; English categories without a built-in vocabulary borrow one'),
    worldCategory: z.string().nullable().default('WORLD').describe('label of every non-English page (null = keep the host topic)'),
    hostPurity: rate().default(0.85).describe('probability that a page has its host’s topic'),
  })
  .prefault({});

const languageSchema = z
  .strictObject({
    weights: z
      .partialRecord(z.enum(['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'pl', 'ru']), z.number().min(0))
      .default({ en: 0.8, de: 0.04, fr: 0.04, es: 0.04, it: 0.02, pt: 0.02, nl: 0.01, sv: 0.01, pl: 0.01, ru: 0.01 })
      .describe('share of hosts per language (a host writes in one language)'),
    legacyCharsetRate: rate().default(0.5).describe('share of non-English pages encoded in a legacy charset (windows-1252, koi8-r, ...)'),
    englishLegacyRate: rate().default(0.05).describe('share of English pages declared as windows-1252'),
    headerDeclarationRate: rate().default(0.5).describe('share of pages declaring their charset in the HTTP header (else in <meta>)'),
    undeclaredRate: rate().default(0.03).describe('share of UTF-8 pages that declare no charset at all'),
    bomRate: rate().default(0.02).describe('share of UTF-8 pages starting with a byte-order mark'),
    idnRate: rate().default(0.2).describe('share of non-English hosts with an internationalized (non-ASCII) name'),
  })
  .prefault({});

const linkSchema = z
  .strictObject({
    model: z
      .enum(['web', 'community'])
      .default('web')
      .describe('web: site trees + power-law inter-host links; community: the ring-community graph of SPEC §4.4'),
    meanOutDegree: z.number().min(0).max(500).default(10).describe('mean number of content links per page (besides navigation)'),
    maxOutDegree: int(1).max(2000).default(80).describe('cap on content links per page'),
    intraHostShare: rate().default(0.5).describe('share of content links that stay on the page’s host'),
    inDegreeExponent: z
      .number()
      .min(1.5)
      .max(4)
      .default(2.1)
      .describe('target tail exponent γ of the in-degree distribution of inter-host links (site-internal links add a steeper part)'),
    topicLocality: rate().default(0.65).describe('probability that an inter-host content link lands on a page of the same topic'),
    geoLocality: rate()
      .default(0.5)
      .describe('probability that an inter-host content link from a geographic page lands on a page of the same city'),
    fanout: int(2).max(100).default(8).describe('children per index page in each host’s site tree'),
    nofollowRate: rate().default(0.02).describe('share of links carrying rel=nofollow'),
    relativeRate: rate().default(0.3).describe('share of same-host links written as dot-relative paths (../x.html)'),
    urlNoiseRate: rate().default(0.05).describe('share of links written in a non-normalized form (case, fragment, escapes, dot segments)'),
    hostSizeExponent: z.number().min(0).max(3).default(0.8).describe('Zipf exponent of host sizes by rank'),
  })
  .prefault({});

const communitySchema = z
  .strictObject({
    count: int(2).default(17).describe('number of communities (community model)'),
    size: int(3).default(100).describe('n_t: pages per community'),
    k: int(2).default(32).describe('k: links to the k nearest ring neighbours, z in [-k/2, k/2], z ≠ 0'),
    o: int(0).default(2).describe('o: links from each page to random pages of other communities'),
    hostsPerCommunity: int(1).default(1).describe('hosts each community is spread over'),
  })
  .prefault({});

const geoSchema = z
  .strictObject({
    cities: int(1).max(100).default(100).describe('target cities: the N most populous US cities'),
    hostRate: rate().default(0.2).describe('share of hosts that are local to one city'),
    localPageRate: rate().default(0.7).describe('share of a local host’s pages that are geographic (mention its city with addresses)'),
    strayPageRate: rate().default(0.03).describe('share of other pages that are geographic for a random city'),
    maxAddresses: int(1).max(20).default(3).describe('street addresses per geographic page (1..N)'),
    mentionNoiseRate: rate().default(0.05).describe('share of non-geographic pages that mention a city in passing (with no address)'),
    ambiguousRate: rate().default(0.1).describe('share of such mentions naming a same-name city of another state'),
    hostNameCityRate: rate().default(0.6).describe('share of local hosts whose name carries the city'),
    urlCityRate: rate().default(0.3).describe('share of geographic pages whose path carries the city'),
    anchorCityRate: rate().default(0.3).describe('share of links to geographic pages whose anchor names the city'),
    ipCityRate: rate()
      .default(0.5)
      .describe(
        'share of the servers (loopback addresses) holding city-local hosts that stand in the city of one of those hosts; the others stand in another target city (ip-cities.csv)',
      ),
  })
  .prefault({});

const contentSchema = z
  .strictObject({
    minWords: int(1).default(120).describe('fewest words in a page body'),
    maxWords: int(1).default(900).describe('most words in a page body'),
    shortPageRate: rate().default(0.03).describe('share of pages with fewer than 50 words (unclassifiable)'),
    topicWordShare: rate().default(0.3).describe('share of body words drawn from the topic vocabulary'),
    anchorTitleRate: rate().default(0.6).describe('share of anchors made of the target’s title words (else generic or topic words)'),
    anchorGenericRate: rate().default(0.2).describe('share of anchors that say nothing (click here, more, ...)'),
  })
  .prefault({});

const robotsSchema = z
  .strictObject({
    rulesRate: rate().default(0.5).describe('share of hosts whose robots.txt disallows some sections'),
    emptyRate: rate().default(0.15).describe('share of hosts with an empty robots.txt (allow all)'),
    notFoundRate: rate().default(0.2).describe('share of hosts answering 404 for robots.txt'),
    serverErrorRate: rate().default(0.01).describe('share of hosts answering 500 for robots.txt, always (crawl nothing)'),
    unavailableRate: rate().default(0.02).describe('share of hosts answering 503 for robots.txt on the first attempts, then the rules'),
    unavailableAttempts: int(1).default(2).describe('failed robots.txt attempts before a 503 host recovers'),
    redirectRate: rate().default(0.03).describe('share of hosts redirecting robots.txt (301) to another path'),
    garbageRate: rate().default(0.01).describe('share of hosts serving an HTML page as robots.txt'),
    crawlDelayRate: rate().default(0.05).describe('share of rule sets with a Crawl-delay line'),
    crawlDelaySeconds: z.number().min(0).max(3600).default(1).describe('the Crawl-delay value written'),
    sitemapRate: rate().default(0.3).describe('share of hosts with /sitemap.xml'),
    sitemapListedRate: rate().default(0.7).describe('share of sitemaps announced by a Sitemap line in robots.txt'),
    sitemapMaxUrls: int(1).max(50_000).default(10_000).describe('URLs per sitemap file before a sitemap index is used'),
  })
  .prefault({});

const faultSchema = z
  .strictObject({
    redirectRate: rate().default(0.02).describe('share of pages that redirect (301/302) to another page'),
    maxRedirectChain: int(1).max(20).default(3).describe('longest redirect chain'),
    permanentRedirectShare: rate().default(0.5).describe('share of redirects that are 301 (else 302)'),
    redirectLoopRate: rate().default(0.002).describe('share of pages whose redirect chain loops forever'),
    notFoundRate: rate().default(0.01).describe('share of pages answering 404 (broken links)'),
    goneRate: rate().default(0.003).describe('share of pages answering 410'),
    serverErrorRate: rate().default(0.003).describe('share of pages answering 500, always'),
    unavailableRate: rate().default(0.005).describe('share of pages answering 503 + Retry-After on the first attempts'),
    unavailableAttempts: int(1).default(2).describe('attempts answered 503 before the page recovers'),
    retryAfterSeconds: int(0).default(1).describe('the Retry-After value sent with 503'),
    resetRate: rate().default(0.003).describe('share of pages whose connection is reset on the first attempts'),
    resetAttempts: int(1).default(1).describe('attempts reset before the page recovers'),
    hangRate: rate().default(0).describe('share of pages that send headers and then stall'),
    hangMs: durationMs().default(30_000).describe('how long a stalled response stays open before the server closes it'),
    oversizedRate: rate().default(0.002).describe('share of pages padded to oversizedBytes'),
    oversizedBytes: bytes()
      .default(5 * 1024 * 1024)
      .describe('size of an oversized page'),
    bombRate: rate().default(0.001).describe('share of pages sent as a gzip bomb (tiny compressed, huge decoded)'),
    bombBytes: bytes()
      .default(64 * 1024 * 1024)
      .describe('decoded size of a gzip bomb'),
    dripRate: rate()
      .default(0)
      .describe('share of pages that send their head at once, then their body at dripBytesPerSecond for dripMs (slow drip)'),
    dripPages: z
      .array(
        z.strictObject({
          host: int().describe('host index'),
          page: int(1).describe('local page id on that host (1 = the first page after the home page)'),
        }),
      )
      .default([])
      .describe(
        'pages that drip besides those dripRate draws, as {host, page}: host index and local page id (1 = the page after the home page); no mirror host',
      ),
    dripBytesPerSecond: z
      .number()
      .min(0.001)
      .max(1e9)
      .default(1)
      .describe('how fast a drip page sends its body, in bytes per second (at least one byte in 1,000 s)'),
    dripMs: durationMs().default(120_000).describe('how long a drip page trickles before it sends the rest of its body at once'),
    refusingHostRate: rate()
      .default(0)
      .describe('share of hosts whose name maps to a loopback address nothing listens on (connections refused)'),
    refusingHosts: z.array(int()).default([]).describe('host indexes that refuse connections besides those refusingHostRate draws'),
  })
  .prefault({});

const latencySchema = z
  .strictObject({
    baseMs: durationMs().default(0).describe('latency added to every response'),
    slowHostRate: rate().default(0.05).describe('share of hosts that are slow'),
    slowMedianMs: durationMs().default(150).describe('median latency of a slow host (log-normal per request)'),
    slowSigma: z.number().min(0).max(3).default(0.6).describe('shape of the slow hosts’ log-normal latency'),
  })
  .prefault({});

const encodingSchema = z
  .strictObject({
    gzipRate: rate().default(0.5).describe('share of hosts that gzip responses when the client accepts it'),
    brotliRate: rate().default(0.2).describe('share of hosts that prefer br when the client accepts it'),
  })
  .prefault({});

const duplicateSchema = z
  .strictObject({
    mirrorHostRate: rate().default(0.02).describe('share of hosts that are exact mirrors of another host'),
    nearDuplicateRate: rate().default(0.02).describe('share of pages that copy another page of their host with a few words changed'),
    nearDuplicateEdits: int(1).default(5).describe('words changed in a near-duplicate'),
    canonicalRate: rate().default(0.5).describe('share of near-duplicates pointing rel=canonical at their original'),
  })
  .prefault({});

const trapSchema = z
  .strictObject({
    hostRate: rate()
      .default(0.03)
      .describe('share of hosts with a crawler trap (calendar, session ids, repeated segments, growing query, endless pagination)'),
    kinds: z
      .array(z.enum(TRAP_KINDS))
      .min(1)
      .default([...TRAP_KINDS])
      .describe('trap kinds hostRate draws from, uniformly'),
    hosts: z
      .array(
        z.strictObject({
          host: int().describe('host index'),
          kind: z.enum(TRAP_KINDS).describe('trap kind'),
        }),
      )
      .default([])
      .describe('hosts given a trap besides those hostRate draws, as {host, kind}: host index and trap kind; no mirror host'),
    robotsDisallowRate: rate().default(0.5).describe('share of trap hosts whose robots.txt disallows the trap'),
  })
  .prefault({});

const metaSchema = z
  .strictObject({
    noindexRate: rate().default(0.01).describe('share of pages with <meta name=robots content=noindex>'),
    nofollowRate: rate().default(0.01).describe('share of pages with <meta name=robots content=nofollow>'),
    baseHrefRate: rate().default(0.02).describe('share of pages with a <base href> that their relative links depend on'),
  })
  .prefault({});

const replaySchema = z.strictObject({
  host: z.string().regex(/^[a-z0-9.-]+$/, 'a lowercase host name'),
  root: z.string().min(1).describe('folder served as the host’s document root'),
});

const webConfigObject = z.strictObject({
  seed: int()
    .max(2 ** 31)
    .default(1)
    .describe('seed of every random choice: same seed + config = byte-identical Web'),
  hosts: int().max(1_000_000).default(200).describe('synthetic hosts (web model)'),
  pages: int()
    .max(16_000_000)
    .default(20_000)
    .describe('synthetic pages in all (web model), spread over the hosts; exact mirror hosts add copies on top'),
  tld: z
    .string()
    .regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/)
    .default('test')
    .describe('top-level domain of every synthetic host'),
  subdomainRate: rate().default(0.2).describe('share of hosts that are a subdomain of another host’s domain'),
  seeds: int(1).default(10).describe('home pages printed as crawl seeds'),
  server: serverSchema,
  topics: topicSchema,
  languages: languageSchema,
  links: linkSchema,
  community: communitySchema,
  geo: geoSchema,
  content: contentSchema,
  robots: robotsSchema,
  faults: faultSchema,
  latency: latencySchema,
  encoding: encodingSchema,
  duplicates: duplicateSchema,
  traps: trapSchema,
  meta: metaSchema,
  replay: z.array(replaySchema).default([]).describe('folders of real files served as extra virtual hosts'),
  warc: z
    .array(z.string().min(1))
    .default([])
    .describe('WARC files (gzip per record or uncompressed) whose hosts are served as extra virtual hosts, each response as recorded'),
  outDir: z
    .string()
    .nullable()
    .default(null)
    .describe('where the hosts map, seed list, sitemap list and IP-city table (ip-cities.csv) are written (null = a temporary folder)'),
});

/** The whole test-web configuration. */
export const webConfigSchema = webConfigObject.superRefine((c, ctx) => {
  if (c.content.maxWords < c.content.minWords) {
    ctx.addIssue({ code: 'custom', path: ['content', 'maxWords'], message: 'must be >= content.minWords' });
  }
  if (c.links.model === 'web' && c.pages < c.hosts) {
    ctx.addIssue({ code: 'custom', path: ['pages'], message: `must be >= hosts (${c.hosts}): every host has a home page` });
  }
  if (c.links.model === 'web' && c.hosts === 0 && c.replay.length === 0 && c.warc.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['hosts'], message: 'a test web needs synthetic hosts, replay folders or WARC files' });
  }
  if (c.links.model === 'community' && c.community.k >= c.community.size) {
    ctx.addIssue({ code: 'custom', path: ['community', 'k'], message: 'must be smaller than community.size' });
  }
  const world = c.topics.worldCategory;
  if (world !== null && !c.topics.categories.includes(world)) {
    ctx.addIssue({ code: 'custom', path: ['topics', 'worldCategory'], message: `must be one of topics.categories or null` });
  }
  const weightSum = Object.values(c.languages.weights).reduce<number>((a, b) => a + (b ?? 0), 0);
  if (weightSum <= 0) ctx.addIssue({ code: 'custom', path: ['languages', 'weights'], message: 'at least one weight must be > 0' });
  if (c.geo.cities > 100) ctx.addIssue({ code: 'custom', path: ['geo', 'cities'], message: 'at most 100' });
  checkHostLists(c, ctx);
});

/**
 * Host indexes named by the lists of hostile hosts and pages must exist; those behaviours belong to
 * the web model (like page faults and traps), so the community model takes none.
 */
function checkHostLists(c: z.output<typeof webConfigObject>, ctx: z.RefinementCtx): void {
  const lists = [
    ['faults', 'dripPages', c.faults.dripPages.map((d) => d.host)],
    ['faults', 'refusingHosts', c.faults.refusingHosts],
    ['traps', 'hosts', c.traps.hosts.map((t) => t.host)],
  ] as const;
  for (const [section, key, hosts] of lists) {
    hosts.forEach((host, i) => {
      const path = key === 'refusingHosts' ? [section, key, i] : [section, key, i, 'host'];
      if (c.links.model === 'community') {
        ctx.addIssue({ code: 'custom', path, message: 'the community model has no hostile hosts: leave the list empty' });
      } else if (host >= c.hosts) {
        ctx.addIssue({ code: 'custom', path, message: `host ${host} does not exist (hosts: ${c.hosts})` });
      }
    });
  }
  const trapHosts = new Set<number>();
  c.traps.hosts.forEach((t, i) => {
    if (trapHosts.has(t.host))
      ctx.addIssue({ code: 'custom', path: ['traps', 'hosts', i, 'host'], message: `host ${t.host} is listed twice` });
    trapHosts.add(t.host);
  });
}

/** A validated test-web configuration (every default filled in). */
export type WebConfig = z.output<typeof webConfigSchema>;
/** What a user may write: any subset of the options. */
export type WebConfigInput = z.input<typeof webConfigSchema>;
