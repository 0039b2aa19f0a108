/**
 * robots.txt and sitemap documents of the test web's hosts. The rules written here are the same
 * ones `WebModel.isDisallowed` evaluates for the ground truth.
 */
import type { HostInfo, TrapKind } from './hosts.js';
import { PageKind, type WebModel } from './model.js';
import { Purpose, Rng } from '../core/prng.js';

/** Path robots.txt redirects to on hosts whose robots kind is `redirect`. */
export const MOVED_ROBOTS_PATH = '/robots-moved.txt';

/** Path prefix of each trap kind: every URL of the trap's space starts with it. */
export const TRAP_PREFIX = {
  calendar: '/calendar/',
  session: '/s/',
  repeat: '/archive/',
  query: '/search',
  pagination: '/q',
} as const satisfies Record<TrapKind, string>;

/**
 * The Disallow rule that blocks each trap kind; it also matches every URL of the trap. The query and
 * pagination traps' links all carry a query, and a bare `/search` or `/q` rule would also block
 * ordinary pages such as `/searchable-4/` or `/quilts-2/` that the model allows.
 */
export const TRAP_RULE = { ...TRAP_PREFIX, query: '/search?', pagination: '/q?' } as const satisfies Record<TrapKind, string>;

/** The body of a host's robots.txt rules (for the kinds that have rules). */
export function robotsText(model: WebModel, h: HostInfo, origin: string): string {
  const lines: string[] = [`# robots.txt for ${h.unicodeName}`];
  const rng = new Rng(model.config.seed, Purpose.robots, h.mirrorOf >= 0 ? h.mirrorOf : h.index);
  // A group for another crawler that shoal must not apply to itself.
  lines.push('', 'User-agent: otherbot', 'Disallow: /');
  if (h.robots === 'rules' || h.robots === 'unavailable' || h.robots === 'redirect') {
    lines.push('', rng.chance(0.5) ? 'User-agent: *' : 'user-agent: *');
    for (const local of h.disallowed) lines.push(`Disallow: ${model.path(h.firstPage + local)}`);
    for (const local of h.allowed) lines.push(`Allow: ${model.path(h.firstPage + local)}`);
    if (h.trap !== null && h.robotsBlocksTrap) lines.push(`Disallow: ${TRAP_RULE[h.trap]}`);
    if (h.disallowed.length === 0 && !(h.trap !== null && h.robotsBlocksTrap)) lines.push('Disallow:');
    if (h.crawlDelaySeconds !== null) lines.push(`Crawl-delay: ${h.crawlDelaySeconds}`);
  }
  if (h.sitemap === 'listed') lines.push('', `Sitemap: ${origin}/sitemap.xml`);
  return `${lines.join('\n')}\n`;
}

/** ok pages of a host, in id order (what its sitemap lists). */
function sitemapPages(model: WebModel, h: HostInfo): number[] {
  const out: number[] = [];
  for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) {
    if (model.pageKind[g] === PageKind.ok) out.push(g);
  }
  return out;
}

function lastmod(model: WebModel, g: number): string {
  const rng = new Rng(model.config.seed, Purpose.pageAttrs, model.contentId(g), 3);
  const day = new Date(Date.UTC(2020, 0, 1) + rng.int(6 * 365) * 86_400_000);
  return day.toISOString().slice(0, 10);
}

/**
 * The sitemap at `path` for host h, or null if there is none: `/sitemap.xml` is a urlset for small
 * hosts and a sitemap index of `/sitemap-<k>.xml` parts for large ones.
 */
export function sitemapXml(model: WebModel, h: HostInfo, path: string, origin: string): string | null {
  if (h.sitemap === 'none') return null;
  const pages = sitemapPages(model, h);
  const max = model.config.robots.sitemapMaxUrls;
  const head = '<?xml version="1.0" encoding="UTF-8"?>\n';
  const ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';
  const parts = Math.ceil(pages.length / max);
  const urlset = (list: number[]): string =>
    `${head}<urlset ${ns}>\n${list.map((g) => `<url><loc>${origin}${model.path(g)}</loc><lastmod>${lastmod(model, g)}</lastmod></url>`).join('\n')}\n</urlset>\n`;
  if (path === '/sitemap.xml') {
    if (parts <= 1) return urlset(pages);
    const items = Array.from({ length: parts }, (_, k) => `<sitemap><loc>${origin}/sitemap-${k + 1}.xml</loc></sitemap>`);
    return `${head}<sitemapindex ${ns}>\n${items.join('\n')}\n</sitemapindex>\n`;
  }
  const m = /^\/sitemap-(\d+)\.xml$/.exec(path);
  if (m === null || parts <= 1) return null;
  const k = Number(m[1]);
  if (k < 1 || k > parts) return null;
  return urlset(pages.slice((k - 1) * max, k * max));
}
