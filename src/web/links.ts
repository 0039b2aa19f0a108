/**
 * The links of a test-web page, as page ids: site-tree navigation, content links (same-host and
 * power-law inter-host links with topic and geo locality), or the ring-community graph of
 * SPEC §4.4. Computed from (seed, page id) alone, so rendering and truth export agree exactly.
 */
import type { HostInfo } from './hosts.js';
import { PageFlag, PageKind, type WebModel } from './model.js';
import { Purpose, Rng, zipfRankScaled } from '../core/prng.js';

/** How a link appears: in the navigation, in the text, or as a redirect. */
export const LinkKind = { nav: 0, content: 1, redirect: 2 } as const;
export type LinkKind = (typeof LinkKind)[keyof typeof LinkKind];

/** One link of a page, before it is written as HTML. */
export interface PageLink {
  readonly target: number;
  readonly kind: LinkKind;
  readonly isNofollow: boolean;
}

/** Every link of page g (duplicates and self-links included, as the HTML has them). */
export function pageLinks(model: WebModel, g: number): PageLink[] {
  const kind = model.pageKind[g] as number;
  if (kind === PageKind.redirect) return [{ target: model.pageRef[g] as number, kind: LinkKind.redirect, isNofollow: false }];
  if (kind === PageKind.nearDuplicate) return pageLinks(model, model.pageRef[g] as number);
  if (!hasBodyLinks(kind)) return [];
  const h = model.hostOf(g);
  if (h.mirrorOf >= 0) {
    // An exact mirror has its original's links, with same-host targets moved onto the mirror.
    const src = model.hosts[h.mirrorOf] as HostInfo;
    const shift = h.firstPage - src.firstPage;
    return pageLinks(model, g - shift).map((l) =>
      l.target >= src.firstPage && l.target < src.firstPage + src.pageCount ? { ...l, target: l.target + shift } : l,
    );
  }
  return model.config.links.model === 'community' ? communityLinks(model, g) : webLinks(model, g);
}

/** Kinds whose body, once it is all sent, is the page with its links (a drip's body ends too, late). */
function hasBodyLinks(kind: number): boolean {
  return (
    kind === PageKind.ok ||
    kind === PageKind.unavailable ||
    kind === PageKind.reset ||
    kind === PageKind.oversized ||
    kind === PageKind.drip
  );
}

function webLinks(model: WebModel, g: number): PageLink[] {
  const c = model.config;
  const h = model.hostOf(g);
  const local = g - h.firstPage;
  const cid = model.contentId(g);
  const links: PageLink[] = [];
  const nav = (t: number): void => {
    links.push({ target: h.firstPage + t, kind: LinkKind.nav, isNofollow: false });
  };
  if (local > 0) nav(0);
  const parent = model.parentLocal(local);
  if (parent > 0) nav(parent);
  const fanout = c.links.fanout;
  for (let child = local * fanout + 1; child <= local * fanout + fanout && child < h.pageCount; child++) nav(child);

  const rng = new Rng(c.seed, Purpose.pageLinks, cid);
  const isShort = ((model.pageFlags[cid] as number) & PageFlag.short) !== 0;
  const count = isShort ? rng.int(3) : Math.min(c.links.maxOutDegree, Math.round(rng.exponential(c.links.meanOutDegree)));
  for (let i = 0; i < count; i++) {
    let target: number;
    if (h.pageCount > 1 && rng.chance(c.links.intraHostShare)) {
      let t = zipfRankScaled(rng.next(), h.pageCount, model.zipfS, model.hostScales[h.index] as number);
      if (t === local) t = (t + 1) % h.pageCount;
      target = h.firstPage + t;
    } else {
      target = interHostTarget(model, rng, cid, h);
    }
    links.push({ target, kind: LinkKind.content, isNofollow: rng.chance(c.links.nofollowRate) });
  }
  return links;
}

/**
 * Draws an inter-host target: from the pages of the same city (geo locality), else of the same
 * topic (topic locality), else of another topic in proportion to its size. The pool is chosen once
 * and only the draw inside it is repeated when it lands on the page's own host, so the share of
 * links into each pool is exactly the configured probability.
 */
function interHostTarget(model: WebModel, rng: Rng, cid: number, h: HostInfo): number {
  const c = model.config;
  const topic = model.pageTopic[cid] as number;
  const city = model.pageCity[cid] as number;
  let pool: Int32Array;
  let scale: number;
  if (city >= 0 && rng.chance(c.links.geoLocality)) {
    pool = model.cityPools[city] as Int32Array;
    scale = model.cityPoolScales[city] as number;
  } else {
    const t = rng.chance(c.links.topicLocality) ? topic : otherTopic(model, rng.next(), topic);
    pool = model.topicPools[t] as Int32Array;
    scale = model.topicPoolScales[t] as number;
  }
  let target = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    target = pool.length === 0 ? rng.int(model.pageCount) : (pool[zipfRankScaled(rng.next(), pool.length, model.zipfS, scale)] as number);
    if (model.pageHost[target] !== h.index) return target;
  }
  return target;
}

/** A topic other than `topic`, chosen in proportion to topic sizes. */
function otherTopic(model: WebModel, u: number, topic: number): number {
  const shares = model.topicShares;
  const rest = 1 - (shares[topic] as number);
  if (rest <= 0) return topic;
  let x = u * rest;
  let last = topic;
  for (let t = 0; t < shares.length; t++) {
    if (t === topic || (shares[t] as number) === 0) continue;
    last = t;
    x -= shares[t] as number;
    if (x < 0) return t;
  }
  return last;
}

/**
 * Ring communities (SPEC §4.4): page i of community V_t links to (i + z) mod n_t for
 * z in [-k/2, k/2], z ≠ 0, and to o random pages of other communities.
 */
function communityLinks(model: WebModel, g: number): PageLink[] {
  const { size, k, o, count } = model.config.community;
  const t = model.hostOf(g).community;
  const start = t * size;
  const i = g - start;
  const links: PageLink[] = [];
  const half = Math.floor(k / 2);
  for (let z = -half; z <= half; z++) {
    if (z === 0) continue;
    links.push({ target: start + ((((i + z) % size) + size) % size), kind: LinkKind.content, isNofollow: false });
  }
  const rng = new Rng(model.config.seed, Purpose.community, g);
  for (let j = 0; j < o; j++) {
    const other = (t + 1 + rng.int(count - 1)) % count;
    links.push({ target: other * size + rng.int(size), kind: LinkKind.content, isNofollow: false });
  }
  return links;
}
