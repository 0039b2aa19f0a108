/**
 * The URL filters against the test web (docs/test-web.md §4.3 and §5.17), both ways round:
 *
 * 1. No ordinary URL is lost: every page URL of two models (the default web, and one with many
 *    trap hosts), and every redirect hop URL the server answers, passes the whole default chain.
 * 2. Every trap is cut: starting from the trap links in the footers of the trap hosts' pages, the
 *    test crawls each trap space breadth-first, asking the server's own responder (src/web/respond.ts)
 *    for each accepted page and following its links, deduplicated as a URL-seen test would. Each
 *    space must run dry within 50 hops, and past the cut every further URL along the trap's
 *    growing direction must stay rejected (followed for 50 hops without the filter).
 *
 * No sockets: pages and trap pages are produced in memory by the same code the server runs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamicPathFilter } from '../../../src/url/filter/dynamic-path-filter.js';
import { ExtensionFilter } from '../../../src/url/filter/extension-filter.js';
import { HostFilter } from '../../../src/url/filter/host-filter.js';
import { LengthFilter } from '../../../src/url/filter/length-filter.js';
import { RegexFilter } from '../../../src/url/filter/regex-filter.js';
import { SchemeFilter } from '../../../src/url/filter/scheme-filter.js';
import { TRAP_DEFAULTS, TrapFilter } from '../../../src/url/filter/trap-filter.js';
import { composeFilters, type FilterVerdict, type UrlFilter } from '../../../src/url/filter/url-filter.js';
import { normalizeUrl } from '../../../src/url/normalize.js';
import { scopeFilter } from '../../../src/url/scope.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import type { HostInfo } from '../../../src/web/hosts.js';
import { PageKind, redirectInfo, WebModel } from '../../../src/web/model.js';
import { renderPage } from '../../../src/web/render.js';
import { FaultState, respond, type RespondContext } from '../../../src/web/respond.js';
import { TRAP_PREFIX } from '../../../src/web/robots.js';

const PORT = 8080;
/** The year the filters are told it is; fixed so the test means the same thing every year. */
const CURRENT_YEAR = 2025;
const MAX_HOPS = 50;

/** Half the hosts hold a trap, so every kind appears on many hosts. */
const TRAP_CONFIG = { seed: 11, hosts: 120, pages: 12_000, traps: { hostRate: 0.5 } } satisfies WebConfigInput;

/** Every built-in filter with its defaults; the dynamic-path filter (off by default) too, to show it is safe here. */
function defaultChain(): UrlFilter {
  return composeFilters([
    new SchemeFilter(),
    new LengthFilter(),
    new HostFilter(),
    new ExtensionFilter(),
    scopeFilter({ suffixes: ['.test'] }),
    new TrapFilter({ currentYear: CURRENT_YEAR }),
    new DynamicPathFilter(),
    new RegexFilter(),
  ]);
}

function checkUrl(chain: UrlFilter, raw: string, depth = 1): { url: string; host: string; verdict: FilterVerdict } {
  const r = normalizeUrl(raw);
  assert.equal(r.kind, 'ok', raw);
  if (r.kind !== 'ok') throw new Error('unreachable');
  return { url: r.url, host: r.host, verdict: chain.check({ url: r.url, host: r.host, depth }) };
}

describe('no ordinary test-web URL is rejected', () => {
  for (const [name, config] of [
    ['default web', {}],
    ['trap-heavy web', TRAP_CONFIG],
  ] as const) {
    test(name, () => {
      const model = new WebModel(config);
      const chain = defaultChain();
      const rejectedUrls: string[] = [];
      let checked = 0;
      const expect = (raw: string): void => {
        checked++;
        const { verdict } = checkUrl(chain, raw);
        if (!verdict.isAccepted) rejectedUrls.push(`${raw} (${verdict.reason})`);
      };
      for (let g = 0; g < model.pageCount; g++) {
        const url = model.url(g, PORT);
        expect(url);
        const origin = url.slice(0, url.indexOf('/', 'http://'.length));
        const kind = model.pageKind[g];
        if (kind === PageKind.redirect) for (let k = 1; k <= redirectInfo(model, g).hops; k++) expect(`${origin}/go/${g}/${k}`);
        if (kind === PageKind.redirectLoop) for (let k = 0; k < 3; k++) expect(`${origin}/loop/${g}/${k}`);
      }
      assert.ok(checked >= model.pageCount && model.pageCount >= 12_000, `${checked} URLs`);
      assert.deepEqual(rejectedUrls.slice(0, 20), [], `${rejectedUrls.length} of ${checked} rejected`);
    });
  }
});

/** What crawling one trap space found. */
interface TrapWalk {
  /** Trap URLs accepted (and so fetched) in all. */
  readonly accepted: number;
  /** Hop of the last accepted URL (entry links are hop 0); -1 when the entry itself was rejected. */
  readonly lastAcceptedHop: number;
  /** Whether the space ran dry before MAX_HOPS. */
  readonly isCut: boolean;
  readonly reasons: ReadonlySet<string>;
}

const model = new WebModel(TRAP_CONFIG);
const ctx: RespondContext = {
  model,
  port: PORT,
  faults: new FaultState(),
  pageBody: () => {
    throw new Error('a trap walk asked for a content page');
  },
};

/** The trap links of host h as a crawler meets them: in the footers of its rendered pages. */
function entryLinks(h: HostInfo): string[] {
  const out = new Set<string>();
  for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
    if (model.pageKind[g] !== PageKind.ok) continue;
    const html = renderPage(model, g, PORT).html;
    const footer = html.indexOf('<footer>');
    if (footer < 0) continue;
    for (const href of anchorHrefs(html.slice(footer))) {
      const url = new URL(href, model.url(g, PORT));
      if (url.pathname.startsWith(TRAP_PREFIX[h.trap as keyof typeof TRAP_PREFIX])) out.add(url.href);
    }
  }
  return [...out];
}

function anchorHrefs(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&amp;/g, '&'));
}

/** The absolute trap URLs a trap page links to (its link home, `/`, left out). */
function trapLinks(h: HostInfo, url: string): string[] {
  const u = new URL(url);
  const reply = respond(ctx, h, u.pathname + u.search);
  assert.ok(reply.kind === 'body' && reply.status === 200 && reply.outcome === 'trap', `${url} is not a trap page`);
  const prefix = TRAP_PREFIX[h.trap as keyof typeof TRAP_PREFIX];
  return anchorHrefs(reply.body.toString('utf8'))
    .map((href) => new URL(href, url).href)
    .filter((l) => new URL(l).pathname.startsWith(prefix));
}

/** Breadth-first crawl of a trap space from `entries`, through `chain` and a seen set. */
function crawlTrap(chain: UrlFilter, h: HostInfo, entries: readonly string[]): TrapWalk {
  const seen = new Set<string>();
  const reasons = new Set<string>();
  let level = entries.map((e) => checkUrl(chain, e).url);
  for (const u of level) seen.add(u);
  let accepted = 0;
  let lastAcceptedHop = -1;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const next: string[] = [];
    for (const raw of level) {
      const { url, verdict } = checkUrl(chain, raw, hop + 1);
      if (!verdict.isAccepted) {
        reasons.add(verdict.reason);
        continue;
      }
      accepted++;
      lastAcceptedHop = hop;
      for (const link of trapLinks(h, url)) {
        const n = normalizeUrl(link);
        if (n.kind === 'ok' && !seen.has(n.url)) {
          seen.add(n.url);
          next.push(n.url);
        }
      }
    }
    if (next.length === 0) return { accepted, lastAcceptedHop, isCut: true, reasons };
    level = next;
  }
  return { accepted, lastAcceptedHop, isCut: false, reasons };
}

/** Which link of a trap page leads further in: the last one (next month, a new session, `archive/`, one more parameter). */
function deeper(h: HostInfo, url: string, choose: (links: string[]) => string): string {
  return choose(trapLinks(h, url));
}

const trapHosts = model.hosts.filter((h) => h.trap !== null && h.mirrorOf < 0);
const KINDS = ['calendar', 'session', 'repeat', 'query'] as const;

/** Reasons each kind must be cut for. */
const EXPECTED_REASON = {
  calendar: 'trap-calendar',
  session: 'trap-session',
  repeat: 'trap-repeated-segments',
  query: 'trap-query-params',
} as const;

describe('every test-web trap is cut within a bounded number of hops', () => {
  const chain = defaultChain();
  for (const kind of KINDS) {
    test(kind, (t) => {
      const hosts = trapHosts.filter((h) => h.trap === kind);
      assert.ok(hosts.length >= 5, `${hosts.length} ${kind} hosts`);
      let worstHop = -1;
      let worstAccepted = 0;
      let entries = 0;
      for (const h of hosts) {
        const links = entryLinks(h);
        assert.ok(links.length > 0, `${h.name} has no trap link`);
        entries += links.length;
        const walk = crawlTrap(chain, h, links);
        assert.ok(walk.isCut, `${kind} trap of ${h.name} still open after ${MAX_HOPS} hops (${walk.accepted} pages)`);
        assert.deepEqual([...walk.reasons], [EXPECTED_REASON[kind]], `${h.name}`);
        worstHop = Math.max(worstHop, walk.lastAcceptedHop);
        worstAccepted = Math.max(worstAccepted, walk.accepted);
      }
      t.diagnostic(
        `${kind}: ${hosts.length} hosts, ${entries} entry links, last accepted hop ${worstHop}, at most ${worstAccepted} trap pages per host`,
      );
      // Session entries are rejected themselves; `/archive/` ×4 and an 11th parameter are the cuts;
      // a calendar runs to the edge of its 4-year window, at most 47 months and one day page away.
      const bound = { calendar: 48, session: -1, repeat: 2, query: 9 }[kind];
      assert.ok(worstHop <= bound, `${kind}: last accepted hop ${worstHop} > ${bound}`);
    });
  }

  test('a calendar entered inside the year window is cut at the window edge, in both directions', () => {
    const h = trapHosts.find((x) => x.trap === 'calendar') as HostInfo;
    const origin = `http://${h.name}:${PORT}`;
    const { calendarPastYears: past, calendarFutureYears: future } = TRAP_DEFAULTS;
    const window = (past + future + 1) * 12;
    for (const entry of [`/calendar/${CURRENT_YEAR}/6/`, `/calendar/${CURRENT_YEAR - past}/1/`, `/calendar/${CURRENT_YEAR + future}/12/`]) {
      const walk = crawlTrap(chain, h, [origin + entry]);
      assert.ok(walk.isCut, entry);
      // Every month of the window, each with its two day pages.
      assert.equal(walk.accepted, window * 3, entry);
      // The farthest month is window - 1 steps away, plus one hop to its day pages.
      assert.ok(walk.lastAcceptedHop <= window, `${entry}: ${walk.lastAcceptedHop}`);
    }
  });

  test('past the cut, every URL further along each trap stays rejected for 50 hops', () => {
    const last = (links: string[]): string => links[links.length - 1] as string;
    // A calendar page links to [previous month, next month, day 1, day 15]: walk away from now.
    const awayFromNow = (links: string[]): string => {
      const year = Number(/\/calendar\/(\d+)\//.exec(links[1] as string)?.[1]);
      return (year >= CURRENT_YEAR ? links[1] : links[0]) as string;
    };
    const walks: [HostInfo, string, (links: string[]) => string][] = [];
    for (const kind of KINDS) {
      for (const h of trapHosts.filter((x) => x.trap === kind).slice(0, 3)) {
        const entry = entryLinks(h)[0] as string;
        if (kind === 'calendar') {
          walks.push([h, entry, awayFromNow]);
          // Entered inside the window, in both directions.
          walks.push([h, `http://${h.name}:${PORT}/calendar/${CURRENT_YEAR}/6/`, (links) => links[0] as string]);
          walks.push([h, `http://${h.name}:${PORT}/calendar/${CURRENT_YEAR}/6/`, (links) => links[1] as string]);
        } else if (kind === 'session') {
          walks.push([h, entry, (links) => links[0] as string], [h, entry, last]);
        } else {
          walks.push([h, entry, last]);
        }
      }
    }
    for (const [h, entry, choose] of walks) {
      let url = entry;
      let firstRejected = -1;
      for (let hop = 0; hop <= MAX_HOPS; hop++) {
        const { verdict } = checkUrl(chain, url, hop + 1);
        if (!verdict.isAccepted && firstRejected < 0) firstRejected = hop;
        assert.ok(
          firstRejected < 0 || !verdict.isAccepted,
          `${h.trap} on ${h.name}: ${url} accepted again after the cut at hop ${firstRejected}`,
        );
        url = deeper(h, url, choose);
      }
      assert.ok(firstRejected >= 0 && firstRejected < MAX_HOPS, `${h.trap} never cut`);
    }
  });
});
