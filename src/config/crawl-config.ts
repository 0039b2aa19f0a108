/**
 * Configuration of one crawl (`shoal crawl`, `new Crawl(config)`): one zod schema, the single source
 * of truth for every option, its default, unit and meaning. `shoal config --defaults --command crawl`
 * prints it as a commented YAML file; environment variables are `SHOAL_CRAWL_` + the option path in
 * upper snake case (`politeness.minDelayMs` is `SHOAL_CRAWL_POLITENESS_MIN_DELAY_MS`).
 *
 * Each component gets only its section (CONVENTIONS §7); `build-node.ts` hands them out.
 */
import { z } from 'zod';
import { bytes, count, durationMs, int } from './units.js';
import { activityCapFields, politenessFields } from './politeness.js';
import { DEFAULT_POLITENESS } from '../frontier/frontier.js';
import { DEFAULT_DNS_WAIT_MS } from '../dns/resolver.js';
import { DEFAULT_MIN_BYTES_PER_SECOND, DEFAULT_MIN_RATE_WINDOW_MS } from '../fetch/transfer-rate.js';
import { HostsMap } from '../dns/hosts-map.js';
import { dnsServerProblem } from '../dns/server-lookup.js';
import { orderPolicySchema } from '../order/registry.js';
import { DEFAULT_BUFFER_ENTRIES, DEFAULT_CACHE_ENTRIES } from '../seen/disk-seen-set.js';
import { partitionStrategySchema } from '../partition/registry.js';
import { DEFAULT_COMBINATION, GEO_PART_IDS, GEO_STRATEGY_IDS } from '../geo/geo-strategies.js';
import { DEFAULT_BLOCKED_EXTENSIONS } from '../url/filter/extension-filter.js';
import { DEFAULT_MAX_URL_LENGTH } from '../url/filter/length-filter.js';
import { TRAP_DEFAULTS } from '../url/filter/trap-filter.js';
import { DEFAULT_MAX_NUMBERED_URLS } from '../url/numbered-spaces.js';
import { DEFAULT_TOPIC_LABELER_OPTIONS } from '../classify/topic-labeler.js';
import { metricsSchema } from './metrics-config.js';
import { normalizeSchema } from './normalize-config.js';
import { recrawlSchema } from './recrawl-config.js';
import { MAX_SIMHASH_TABLES, simhashTableCount } from '../dedup/simhash-index.js';
import { DEFAULT_NEAR_DUPLICATE_DISTANCE, NEAR_DUPLICATE_ACTIONS } from '../dedup/near-duplicate-action.js';

const MiB = 1024 * 1024;

/** Default user agent: the product token `shoalbot` is the name robots.txt groups match. */
export const DEFAULT_USER_AGENT = 'shoalbot/1.0 (+https://example.org/bot)';

/** A `--resolve` entry must read HOST=IP (HOST may be a wildcard); the hosts map says what is wrong. */
function checkResolveEntry(entry: string, ctx: z.RefinementCtx): void {
  const eq = entry.indexOf('=');
  const problem = eq <= 0 ? `expected HOST=IP, got ${JSON.stringify(entry)}` : new HostsMap().add(entry.slice(0, eq), entry.slice(eq + 1));
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
}

const seedsSchema = z
  .strictObject({
    urls: z.array(z.string()).default([]).describe('seed URLs (--seed, repeatable)'),
    file: z
      .string()
      .nullable()
      .default(null)
      .describe('file of seed URLs, one per line; blank lines and # comments are skipped (--seeds-file)'),
    sitemaps: z
      .array(z.string())
      .default([])
      .describe('sitemap URLs (sitemaps.org: XML, index, text, gzip) whose pages are seeds (--sitemap, repeatable)'),
    robotsSitemaps: z
      .boolean()
      .default(false)
      .describe('read the sitemaps that robots.txt files announce (Sitemap: lines) and take their pages as seeds'),
    maxSitemapDepth: count('levels').max(10).default(3).describe('sitemap index levels followed below a sitemap given or announced'),
    maxUrlsPerSitemap: count('urls', 1)
      .default(50_000)
      .describe('URLs read from one sitemap document at most (the protocol allows 50,000)'),
  })
  .prefault({});

const scopeSchema = z
  .strictObject({
    hosts: z
      .array(z.string())
      .default([])
      .describe('hosts in scope, exactly (none of hosts, domains, suffixes, seedsOnly given: every host is)'),
    domains: z.array(z.string()).default([]).describe('registrable domains in scope with all their hosts (example.co.uk)'),
    suffixes: z.array(z.string()).default([]).describe('host suffixes in scope on a label boundary (.test, .edu)'),
    seedsOnly: z
      .enum(['off', 'host', 'domain'])
      .default('off')
      .describe('keep the crawl on the seeds’ hosts (host) or their registrable domains (domain); off: no such rule'),
    maxDepth: count('links').nullable().default(null).describe('most links followed from a seed (seeds are 0); null = no limit'),
    maxPathDepth: count('levels').nullable().default(null).describe('most path levels (/a/b/c.html is 3); null = no limit'),
    maxPagesPerHost: count('pages', 1)
      .nullable()
      .default(null)
      .describe('pages fetched per host at most (every response counts, kept across runs); the rest end as over-budget; null = no limit'),
  })
  .prefault({});

/** A trap-heuristic limit: null turns that rule off. */
const trapLimit = (unit: string, fallback: number, doc: string, min = 0) =>
  count(unit, min).nullable().default(fallback).describe(`${doc}; null = rule off`);

const filterSchema = z
  .strictObject({
    schemes: z
      .array(z.enum(['http', 'https']))
      .min(1)
      .default(['http', 'https'])
      .describe('URL schemes crawled'),
    blockedHosts: z.array(z.string()).default([]).describe('hosts never crawled (exact names)'),
    blockedDomains: z.array(z.string()).default([]).describe('domains never crawled, with every host below them'),
    blockedExtensions: z
      .array(z.string())
      .default([...DEFAULT_BLOCKED_EXTENSIONS])
      .describe(
        'file extensions of the last path segment that never name an HTML page (images, media, archives, binaries, fonts, documents)',
      ),
    maxUrlLength: count('characters', 1).default(DEFAULT_MAX_URL_LENGTH).describe('longest URL crawled'),
    include: z.array(z.string()).default([]).describe('regular expressions: when any is given, a URL must match one'),
    exclude: z.array(z.string()).default([]).describe('regular expressions: a URL matching any is not crawled'),
    isDynamicPathBlocked: z.boolean().default(false).describe('reject /cgi-bin/ and .cgi/.pl script paths'),
    traps: z
      .strictObject({
        maxQueryParams: trapLimit('parameters', TRAP_DEFAULTS.maxQueryParams, 'most query parameters (a query that grows with every link)'),
        maxPathDepth: trapLimit('segments', TRAP_DEFAULTS.maxPathDepth, 'most path segments'),
        maxSegmentRepeats: trapLimit('repeats', TRAP_DEFAULTS.maxSegmentRepeats, 'most times one segment may occur in a path (/a/a/a/)', 1),
        maxSequenceRepeats: trapLimit('repeats', TRAP_DEFAULTS.maxSequenceRepeats, 'most consecutive repeats of a run of segments', 1),
        calendarPastYears: trapLimit(
          'years',
          TRAP_DEFAULTS.calendarPastYears,
          'years before now a date-only URL (an endless calendar) may name',
        ),
        calendarFutureYears: trapLimit('years', TRAP_DEFAULTS.calendarFutureYears, 'years after now a date-only URL may name'),
        sessionMarkers: z
          .array(z.string())
          .default([...TRAP_DEFAULTS.sessionMarkers])
          .describe('path segments after which a token is a session id (/s/5c6422be/); [] = rule off'),
        maxNumberedUrls: trapLimit(
          'urls',
          DEFAULT_MAX_NUMBERED_URLS,
          'URLs of one host and form (the same URL but its numbers: /q?p=1, /q?p=2, ...) admitted from pages of that same form: an ' +
            'endless pagination, calendar or id space ends there, while the same URLs found on other pages (an index) still count nothing',
        ),
      })
      .prefault({}),
  })
  .prefault({});

const politenessSchema = z
  .strictObject({
    ...politenessFields('requests'),
    ...activityCapFields(),
    backoffBaseMs: durationMs()
      .default(DEFAULT_POLITENESS.backoffBaseMs)
      .describe('first back-off of a struggling server (429, 5xx, timeout, reset) that sent no Retry-After; doubles on each failure'),
    backoffMaxMs: durationMs().default(DEFAULT_POLITENESS.backoffMaxMs).describe('longest exponential back-off of a host'),
    maxRetryAfterMs: durationMs().default(600_000).describe('Retry-After values above this are read as this'),
  })
  .prefault({});

const robotsSchema = z
  .strictObject({
    maxAgeMs: durationMs()
      .default(24 * 60 * 60 * 1000)
      .describe('how long a fetched (or 4xx) robots.txt is used before it is fetched again (RFC 9309 §2.4)'),
    retryMs: durationMs()
      .default(15 * 60 * 1000)
      .describe(
        'wait before fetching again a robots.txt that failed (5xx, unreachable) without a Retry-After; the host is disallowed meanwhile',
      ),
    maxAttempts: count('attempts', 1)
      .max(100)
      .default(3)
      .describe('consecutive failed robots.txt fetches after which the host’s queued URLs are given up (robots-unavailable)'),
    maxBytes: bytes().default(512_000).describe('bytes of a robots.txt that are read (RFC 9309 §2.5 asks for at least 500 KiB)'),
    maxRedirects: count('redirects').max(20).default(5).describe('redirects followed when fetching robots.txt (RFC 9309 §2.3.1.2)'),
    cacheEntries: count('hosts', 1)
      .default(100_000)
      .describe('hosts whose robots.txt rules are kept in memory (least recently used dropped)'),
    cacheBytes: bytes()
      .default(64 * 1024 ** 2)
      .describe(
        'memory the kept robots.txt rules may take, about 300 bytes a rule (least recently used hosts dropped: each fetches its robots.txt again)',
      ),
  })
  .prefault({});

const fetchSchema = z
  .strictObject({
    userAgent: z
      .string()
      .min(1)
      .regex(/^[^\r\n]+$/, 'one line')
      .default(DEFAULT_USER_AGENT)
      .describe('User-Agent header, with a contact URL; its product token is the name robots.txt groups match (--user-agent)'),
    connectTimeoutMs: durationMs().default(10_000).describe('limit on TCP (and TLS) connection set-up'),
    firstByteTimeoutMs: durationMs().default(30_000).describe('limit from sending the request to the complete response head'),
    bodyTimeoutMs: durationMs()
      .default(30_000)
      .describe(
        'limit on the silence between two chunks of a body (with minBytesPerSecond on, a silence of minRateWindowMs ends as too-slow first)',
      ),
    totalTimeoutMs: durationMs().default(120_000).describe('limit on one whole fetch'),
    minBytesPerSecond: count('bytes/s')
      .default(DEFAULT_MIN_BYTES_PER_SECOND)
      .describe(
        'lowest transfer rate of a body (curl’s low-speed limit): one that receives fewer than ' +
          'minBytesPerSecond × minRateWindowMs / 1000 bytes in a window (windows back to back from ' +
          'the response head) is cut and ends as too-slow, not retried; 1,000 B/s still brings a ' +
          '30 KB page in 30 s and is about a hundredth of what a working connection moves; 0 = off',
      ),
    minRateWindowMs: durationMs()
      .default(DEFAULT_MIN_RATE_WINDOW_MS)
      .describe(
        'the window of minBytesPerSecond: 10 s outlasts TCP’s recovery of a lost segment (1 + 2 + 4 s) and a server that flushes in bursts, and ' +
          'costs a dripping body one window instead of totalTimeoutMs; a body that pauses longer than this before sending a window’s worth is cut too',
      ),
    keepAliveMs: durationMs().default(4_000).describe('how long an idle connection to a host is kept open'),
    maxBodyBytes: bytes()
      .default(10 * MiB)
      .describe('largest body as received (compressed); larger ones end as too-large'),
    maxDecodedBytes: bytes()
      .default(20 * MiB)
      .describe('largest body after content decoding (stops gzip bombs)'),
    proxyUrl: z
      .string()
      .regex(/^https?:\/\/[^/]+\/?$/, 'expected http://host:port')
      .nullable()
      .default(null)
      .describe('HTTP forward proxy, http://host:port (null = connect directly)'),
    caFile: z
      .string()
      .nullable()
      .default(null)
      .describe('PEM file of extra certificate authorities trusted for https (added to the system ones)'),
    maxAttempts: count('attempts', 1)
      .max(20)
      .default(3)
      .describe('attempts per URL when a fetch fails in a way that may pass (5xx, 429, timeout, reset, connection failure)'),
  })
  .prefault({});

const networkSchema = z
  .strictObject({
    resolve: z
      .array(z.string().superRefine(checkResolveEntry))
      .default([])
      .describe('fixed answers HOST=IP that bypass DNS; HOST may be a wildcard like *.test (--resolve, repeatable)'),
    hostsFile: z
      .string()
      .nullable()
      .default(null)
      .describe('file of fixed answers in /etc/hosts format (IP name...), e.g. the test web’s hosts map'),
    dnsServers: z
      .array(
        z.string().superRefine((entry, ctx) => {
          const problem = dnsServerProblem(entry);
          if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .default([])
      .describe(
        'name servers asked instead of the system resolver, in order: IP, IP:PORT or [IPv6]:PORT; their NXDOMAIN is final (no /etc/hosts ' +
          'fallback); resolve and hostsFile still answer first; [] = the system resolver',
      ),
    isSystemDnsAllowed: z
      .boolean()
      .default(true)
      .describe(
        'whether names not in resolve/hostsFile are looked up in DNS (dnsServers or the system’s; false: they fail with ENOHOSTSMAP)',
      ),
    dnsWaitMs: durationMs()
      .default(DEFAULT_DNS_WAIT_MS)
      .describe(
        'how long a slow name server is waited for: by queueing, for a new host of a page’s links (later, they are queued without its address, and ' +
          'the host counts alone against the per-IP limit until it is known); by a fetch slot, before it puts the URL back for 1 s (the lookup goes on)',
      ),
    maxConnectFailures: count('failures', 1)
      .max(1000)
      .default(3)
      .describe(
        'requests in a row to one host that fail before any answer (connection refused or unreachable, connect timeout, name ' +
          'server silent) after which the host is given up for the run: its queued URLs end with that failure, without a request',
      ),
    allowLoopback: z.boolean().default(false).describe('allow fetching from loopback addresses 127.0.0.0/8 and ::1 (--allow-loopback)'),
    allowPrivate: z
      .boolean()
      .default(false)
      .describe('allow fetching from private networks 10/8, 172.16/12, 192.168/16, fc00::/7 (--allow-private)'),
  })
  .prefault({});

const limitsSchema = z
  .strictObject({
    maxBytes: bytes()
      .nullable()
      .default(null)
      .describe('body bytes downloaded at most (as received, kept across runs): the crawl stops once they are reached; null = no limit'),
    maxPages: count('pages')
      .nullable()
      .default(null)
      .describe(
        'page fetches started at most (robots.txt and retries of a started page not counted); null = until the frontier is empty (--max-pages)',
      ),
    concurrency: count('fetches', 1).max(4096).default(32).describe('fetch slots: fetches in flight at most (--concurrency)'),
  })
  .prefault({});

const storeSchema = z
  .strictObject({
    outDir: z.string().min(1).nullable().default(null).describe('the crawl directory: WARC files, CDXJ index, state (required; --out)'),
    warcMaxFileBytes: bytes()
      .default(1024 ** 3)
      .describe('a WARC file is rotated once it has passed this size'),
    warcCompressionLevel: count('level')
      .max(9)
      .default(2)
      .describe('gzip level of WARC records, 0 (store) to 9; 2 costs half of 6 for files about 14 % larger (docs/benchmarks.md)'),
    hasCrawlLog: z
      .boolean()
      .default(true)
      .describe('write crawl-log.jsonl: one JSON line per URL (status, outcome, size, duration, discovering URL, WARC record)'),
    hasPageMetadata: z
      .boolean()
      .default(true)
      .describe('write pages.jsonl: one JSON line per page (digests, SimHash, language, title, link counts)'),
    hasLinkGraph: z.boolean().default(true).describe('write the link graph with anchor texts in links/ (the simulator and eval read it)'),
  })
  .prefault({});

const parseSchema = z
  .strictObject({
    anchorContextTokens: count('words')
      .max(1000)
      .default(10)
      .describe(
        'words kept on each side of a link as its extended anchor text, for the ordering policies and partitioners that read it (others: not computed)',
      ),
    maxLinks: count('links').default(10_000).describe('links read from one page at most'),
    maxTextChars: count('characters').default(1_000_000).describe('visible text kept from one page at most (UTF-16 units)'),
    workers: count('threads')
      .max(64)
      .nullable()
      .default(null)
      .describe(
        'worker threads that parse pages (charset, HTML, language, SimHash, links); 0 = in the crawl thread; null = one less than the CPU count (0 on one core)',
      ),
    maxBytesInWorkers: bytes()
      .default(32 * 1024 ** 2)
      .describe(
        "bytes of page bodies and WARC records in the parse workers' hands at most; further pages wait in line without a copy (one always goes: 0 = one at a time)",
      ),
    maxWorkerHeapBytes: bytes()
      .default(512 * 1024 ** 2)
      .describe(
        'heap limit of each parse worker: a page that needs more costs that worker (replaced, the page kept unparsed), not the crawl',
      ),
  })
  .prefault({});

const CATEGORY = z.string().regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'a category name: a letter, then letters, digits, _ or -');
const LANGUAGE = z.string().regex(/^[a-z]{2}$/, 'an ISO 639-1 code, two lowercase letters');

const topicSchema = z
  .strictObject({
    classify: z
      .boolean()
      .default(true)
      .describe(
        'give every HTML page a topic with the model of cluster.model (category, probability, reason in pages.jsonl and the crawl log); --partition topic needs it',
      ),
    minTerms: count('terms')
      .default(DEFAULT_TOPIC_LABELER_OPTIONS.minTerms)
      .describe('a page with fewer body terms is unclassifiable (X4: 50) and gets unclassifiableCategory'),
    unclassifiableCategory: CATEGORY.nullable()
      .default(DEFAULT_TOPIC_LABELER_OPTIONS.unclassifiableCategory)
      .describe('category of unclassifiable pages; null = none (a topic partition keeps them on the node that fetched them)'),
    languages: z
      .array(LANGUAGE)
      .min(1)
      .default([...DEFAULT_TOPIC_LABELER_OPTIONS.classifierLanguages])
      .describe('languages the model classifies (its training language); pages in others get their language category'),
    otherLanguageCategory: CATEGORY.nullable()
      .default(DEFAULT_TOPIC_LABELER_OPTIONS.otherLanguageCategory)
      .describe('category of pages in any other language (X4: WORLD); null = classify them too'),
    languageCategories: z
      .record(LANGUAGE, CATEGORY)
      .default({})
      .describe('language -> category for pages in that language, before otherLanguageCategory ({"de": "GERMAN"})'),
  })
  .prefault({})
  .describe('the topic of each page (SPEC §4.2): under minTerms terms unclassifiable, other languages by language, else the classifier');

/** Near-duplicates by SimHash (SPEC §2.10; docs/near-duplicates.md). */
const nearDuplicatesSchema = z
  .strictObject({
    action: z
      .enum(NEAR_DUPLICATE_ACTIONS)
      .default('archive')
      .describe(
        'what happens to an HTML page within maxDistance bits of an earlier one (marked with its URL and distance in pages.jsonl and the crawl log): ' +
          'archive = archived and followed; archive-nofollow = archived, links not followed; ' +
          'skip = not archived, links not followed (crawl log and pages.jsonl only); off = not looked up',
      ),
    maxDistance: count('bits')
      .max(32)
      .default(DEFAULT_NEAR_DUPLICATE_DISTANCE)
      .describe('largest Hamming distance between two 64-bit SimHash fingerprints that makes the later page a near-duplicate'),
    blocks: count('blocks', 1)
      .max(64)
      .nullable()
      .default(null)
      .describe(
        'blocks the fingerprint is split into for the index (more than maxDistance; C(blocks, maxDistance) tables of 12 bytes a page each, at most 64); null = maxDistance + 1',
      ),
    maxFingerprints: count('fingerprints', 1)
      .default(1_000_000)
      .describe(
        'fingerprints of distinct pages the node remembers, its own and those other nodes share (oldest forgotten first); ' +
          'about 16 + 12 x tables bytes each plus the URL (132 MiB for 1M pages at the default)',
      ),
    isShared: z
      .boolean()
      .default(true)
      .describe(
        'in a collaborative crawl, each node sends the fingerprint and URL of every page it keeps (not a near-duplicate) to every other node, ' +
          'so pages are compared with every node’s (8 bytes + the URL per page and other node, deflated); ' +
          'false = each node compares with its own pages only; no effect on a crawl of one node',
      ),
  })
  .superRefine((v, ctx) => {
    const blocks = v.blocks ?? v.maxDistance + 1;
    if (blocks <= v.maxDistance)
      ctx.addIssue({ code: 'custom', path: ['blocks'], message: `must be more than maxDistance (${v.maxDistance})` });
    else if (simhashTableCount(v.maxDistance, blocks) > MAX_SIMHASH_TABLES) {
      ctx.addIssue({
        code: 'custom',
        path: ['blocks'],
        message: `${blocks} blocks at maxDistance ${v.maxDistance} need ${simhashTableCount(v.maxDistance, blocks)} tables, more than ${MAX_SIMHASH_TABLES}`,
      });
    }
  })
  .prefault({});

const dedupSchema = z
  .strictObject({
    maxDigests: count('digests')
      .default(250_000)
      .describe(
        'content digests remembered for exact-duplicate detection (least recently seen dropped; about 250 bytes of memory each plus the URL; 0 = off)',
      ),
    near: nearDuplicatesSchema,
  })
  .prefault({});

const frontierSchema = z
  .strictObject({
    kind: z
      .enum(['persistent', 'memory'])
      .default('persistent')
      .describe(
        'persistent: on disk in the crawl directory, survives kill -9 and grows past memory, a rerun resumes; memory: lost when the process ends',
      ),
    memoryUrlsPerHost: count('urls', 1)
      .nullable()
      .default(null)
      .describe(
        "persistent frontier: a host's URLs held in memory with their scheduling keys; its further URLs wait on disk (8 bytes each in memory) in priority bands " +
          '(4 per doubling of the priority, first come first served within a band) and come back best band first; null = 16 (or twice politeness.maxConnectionsPerHost if more)',
      ),
    segmentBytes: bytes()
      .default(64 * MiB)
      .describe(
        'persistent frontier: its log starts a new segment file at a checkpoint once the current one holds this much; old segments are compacted and deleted',
      ),
    checkpointIntervalMs: durationMs()
      .default(2000)
      .describe(
        'persistent frontier: how often stores and frontier are made durable together; after a crash, pages fetched since are fetched again',
      ),
  })
  .prefault({});

const seenSchema = z
  .strictObject({
    cacheEntries: count('fingerprints', 1024)
      .default(DEFAULT_CACHE_ENTRIES)
      .describe('fingerprints of popular URLs cached in memory in front of the on-disk URL-seen set'),
    bufferEntries: count('fingerprints', 1024)
      .default(DEFAULT_BUFFER_ENTRIES)
      .describe(
        'fingerprints of new URLs held in memory (and journaled) before they are merged into the sorted file of the on-disk URL-seen set',
      ),
  })
  .prefault({});

const natsSchema = z
  .strictObject({
    servers: z
      .array(z.string())
      .default([])
      .describe('NATS servers of a distributed crawl (shoal node --nats, repeatable), e.g. nats://10.0.0.5:4222; JetStream must be on'),
    crawlId: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ or -')
      .nullable()
      .default(null)
      .describe('the distributed crawl this node joins (shoal node --crawl): names its stream, subjects and buckets'),
    partitions: z
      .array(int())
      .nullable()
      .default(null)
      .describe(
        'partitions this node owns (shoal node --partitions 0,3); null = those it owned before in this directory, else the first free one',
      ),
    user: z.string().nullable().default(null).describe('NATS user name (with pass)'),
    pass: z.string().nullable().default(null).describe('NATS password (prefer the environment variable to the command line)'),
    token: z.string().nullable().default(null).describe('NATS server token'),
    credsFile: z.string().nullable().default(null).describe('NATS .creds file (JWT and NKey seed)'),
    tls: z.boolean().default(false).describe('require TLS towards the servers (implied by caFile, certFile or keyFile)'),
    caFile: z.string().nullable().default(null).describe('CA bundle (PEM) that signed the servers’ certificates'),
    certFile: z.string().nullable().default(null).describe('client certificate (PEM) for mutual TLS'),
    keyFile: z.string().nullable().default(null).describe('client key (PEM) for mutual TLS'),
    ackWaitMs: durationMs()
      .default(60_000)
      .describe(
        'how long the broker waits for a node to acknowledge a delivery before delivering it again (keep above frontier.checkpointIntervalMs)',
      ),
    memberTtlMs: durationMs().default(15_000).describe('a node that stops heartbeating leaves the crawl’s membership after this long'),
  })
  .prefault({});

const geoSchema = z
  .strictObject({
    strategy: z
      .enum(GEO_STRATEGY_IDS)
      .default('url')
      .describe(
        'how a link finds its city (--partition geo): the city in its URL (url), in its anchor text and the words around it (anchor), ' +
          'in the text of its page (content), a city classifier on its page (classifier), where its page’s server is (ip), or several in turn (combined)',
      ),
    policy: z
      .enum(['A', 'B'])
      .default('A')
      .describe('A: a link goes to the node of its most likely city; B: to the node of every city it may be about'),
    targets: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('target cities file: "Name, ST" lines or a JSON list (docs/geo-crawling.md); null = the 100 most populous US cities'),
    groups: z
      .array(z.array(z.string().min(1)).min(1))
      .nullable()
      .default(null)
      .describe(
        'cities of each geo-sensitive node, as time zones or "Name, ST" labels (group i = partition i; the partitions after the last are general); ' +
          'null = Eastern, Central, Mountain, Pacific, Alaska+Hawaii',
      ),
    alpha: z
      .number()
      .min(0)
      .max(1)
      .meta({ unit: 'weight' })
      .default(0.7)
      .describe('content: weight of "City, ST" mentions against bare city mentions'),
    beta: z
      .number()
      .min(0)
      .max(1)
      .meta({ unit: 'weight' })
      .default(0.5)
      .describe('content: weight of population against state mentions in resolving a bare city name'),
    combine: z
      .array(z.enum(GEO_PART_IDS))
      .min(1)
      .default([...DEFAULT_COMBINATION])
      .describe('combined: the strategies asked in turn (a link’s own before its page’s)'),
    model: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('classifier: the city model (shoal train --label city: categories "Name, ST" and none)'),
    minProbability: z
      .number()
      .gt(0)
      .max(1)
      .meta({ unit: 'probability' })
      .default(0.1)
      .describe('classifier with policy B: a city counts when its posterior is at least this'),
    ipDatabase: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'ip: the IP → city database, a MaxMind DB (.mmdb) or a CSV range table (start,end,city,state; shoal web writes one for the test web)',
      ),
  })
  .prefault({})
  .describe('geographically focused crawling (SPEC §4.3): read when cluster.partition.strategy is geo');

const clusterSchema = z
  .strictObject({
    nodes: count('nodes', 1)
      .max(1024)
      .default(1)
      .describe(
        'partitions of a collaborative crawl (--nodes): in one process, that many nodes, node i owning ' +
          'partition i; distributed (shoal node), the partitions the nodes share; 1 = a crawl of one node',
      ),
    workers: count('threads')
      .max(64)
      .default(0)
      .describe(
        'worker threads the nodes of an embedded crawl are spread over, so that several cores crawl (--workers); 0 = every node on the crawl thread',
      ),
    partition: partitionStrategySchema.prefault({ strategy: 'host-hash' }),
    forward: z
      .enum(['urls', 'pages', 'both'])
      .nullable()
      .default(null)
      .describe(
        'what goes to other nodes: URLs before fetch (urls), boundary pages after fetch (pages), ' +
          'or both; null = the strategy’s own (hash: urls, content-hash: both, truth-topic: pages)',
      ),
    batchUrls: count('urls', 1)
      .default(500)
      .describe('URLs per message to another node (a batch is sent when full, or every batchDelayMs)'),
    batchDelayMs: durationMs().default(250).describe('how often partly filled URL batches are sent'),
    sentCacheEntries: count('urls')
      .default(1 << 18)
      .describe('URLs sent lately that are not sent again (popular URLs stay longest; 0 = off): most of the saving in communication'),
    model: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'topic model file (shoal train; plain or .gz) every node classifies pages with; null = the model shipped with shoal (models/README.md)',
      ),
    truthDir: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'a test web’s ground-truth export (shoal web export), for strategies that read true labels (truth-topic), live community scores and the end-of-crawl figures; null = none',
      ),
    geo: geoSchema,
    linkSummaryIntervalMs: durationMs()
      .nullable()
      .default(null)
      .describe(
        'how often in-link counts for other nodes’ URLs are sent to them, for backlink/PageRank estimates (0 = never; null = 1 s for community partitioning, 10 s for others)',
      ),
    nats: natsSchema,
  })
  .prefault({});

const orderTablesSchema = z
  .strictObject({
    idfFile: z
      .string()
      .nullable()
      .default(null)
      .describe(
        'reference idf table for order.policy similarity with idfSource reference: a text file of `term<TAB>idf` lines; null = none',
      ),
  })
  .prefault({})
  .describe('data files the ordering policy reads');

/**
 * The live dashboard (`shoal crawl --dashboard`, `shoal dashboard`; docs/dashboard.md). It only
 * reads: no endpoint changes the crawl. Any bind address but loopback needs a token.
 */
const dashboardSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('serve the live dashboard while the crawl runs (--dashboard)'),
    host: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('address the dashboard binds (--dashboard-host); any but loopback requires a token, generated and printed when not given'),
    port: int()
      .max(65_535)
      .meta({ unit: 'port' })
      .default(0)
      .describe('TCP port of the dashboard (--dashboard-port); 0 = a free port, printed at start'),
    token: z
      .string()
      .min(16, 'at least 16 characters')
      .nullable()
      .default(null)
      .describe(
        'secret every dashboard request must carry (?token= or Authorization: Bearer; --dashboard-token, or better the environment ' +
          'variable); null = none on loopback, generated otherwise',
      ),
  })
  .prefault({});

/** The whole crawl configuration. */
export const crawlConfigSchema = z
  .strictObject({
    nodeId: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, ., _ or -')
      .default('shoal')
      .describe('name of this node: prefix of its WARC files, label of its events and log lines'),
    seeds: seedsSchema,
    scope: scopeSchema,
    normalize: normalizeSchema,
    filter: filterSchema,
    politeness: politenessSchema,
    robots: robotsSchema,
    fetch: fetchSchema,
    network: networkSchema,
    limits: limitsSchema,
    store: storeSchema,
    parse: parseSchema,
    topic: topicSchema,
    dedup: dedupSchema,
    frontier: frontierSchema,
    recrawl: recrawlSchema,
    seen: seenSchema,
    cluster: clusterSchema,
    order: orderPolicySchema.prefault({ policy: 'bfs' }),
    orderTables: orderTablesSchema,
    dashboard: dashboardSchema,
    progressIntervalMs: durationMs()
      .default(1000)
      .describe('how often a progress event is published on shoal:crawl:progress (0 = only at the end)'),
    metrics: metricsSchema,
  })
  .superRefine((c, ctx) => {
    if (usesReferenceIdf(c.order) && c.orderTables.idfFile === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['orderTables', 'idfFile'],
        message: 'order uses idfSource: reference, which needs an idf table file',
      });
    }
    const isTopicPartitioned = c.cluster.partition.strategy === 'topic' || c.cluster.partition.strategy === 'truth-topic';
    if (!isTopicPartitioned && topicOrdersWithoutCategories(c.order)) {
      ctx.addIssue({
        code: 'custom',
        path: ['order', 'categories'],
        message: "order topic needs the categories to favour outside a topic-partitioned crawl (e.g. --set 'order.categories=[SPORTS]')",
      });
    }
    if (c.politeness.backoffMaxMs < c.politeness.backoffBaseMs) {
      ctx.addIssue({ code: 'custom', path: ['politeness', 'backoffMaxMs'], message: 'must be >= politeness.backoffBaseMs' });
    }
    if (c.fetch.minBytesPerSecond > 0 && c.fetch.minRateWindowMs === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['fetch', 'minRateWindowMs'],
        message: 'must be > 0 while fetch.minBytesPerSecond is on (0 turns that off)',
      });
    }
  });

/** Whether an order section (or a component of a weighted one) reads a reference idf table. */
function usesReferenceIdf(order: z.output<typeof orderPolicySchema>): boolean {
  if (order.policy === 'similarity') return order.idfSource === 'reference';
  if (order.policy === 'weighted') return order.components.some((c) => usesReferenceIdf(c.policy as z.output<typeof orderPolicySchema>));
  return false;
}

/** Whether an order section (or a component of a weighted one) is `topic` without its own categories. */
function topicOrdersWithoutCategories(order: z.output<typeof orderPolicySchema>): boolean {
  if (order.policy === 'topic') return order.categories.length === 0;
  if (order.policy === 'weighted')
    return order.components.some((c) => topicOrdersWithoutCategories(c.policy as z.output<typeof orderPolicySchema>));
  return false;
}

/** A validated crawl configuration (every default filled in). */
export type CrawlConfig = z.output<typeof crawlConfigSchema>;
/** What may be passed in: any subset of the options; durations and sizes may carry units (`10s`, `2MiB`). */
export type CrawlConfigInput = z.input<typeof crawlConfigSchema>;

/** The prefix of the crawl's environment variables. */
export const CRAWL_ENV_PREFIX = 'SHOAL_CRAWL_';
