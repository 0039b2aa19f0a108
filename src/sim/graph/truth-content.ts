/**
 * Page titles, visible text and anchor texts for a test web's ground truth, which exports none: the
 * web is rebuilt from the configuration in the export's manifest (the generator is deterministic:
 * the same seed and configuration give the same pages), each page is rendered as the server would
 * serve it and parsed by the crawl's own HTML parser (`src/parse/html-page.ts`). So content-reading
 * policies (similarity, hot queue) and importances (a topic word) see in a simulation exactly the
 * text a crawl of the web would see.
 *
 * Costs about a millisecond per page on first use; the last pages parsed are kept.
 */
import { normalizeUrl } from '../../url/normalize.js';
import { parseHtml } from '../../parse/html-page.js';
import { servesContent, WebModel } from '../../web/model.js';
import { renderPage } from '../../web/render.js';
import type { Truth } from '../../web/truth/read.js';
import type { PageContent, PageLinks } from './sim-graph.js';

/** Parsed pages kept. */
const CACHE_PAGES = 256;

interface Parsed {
  readonly content: PageContent;
  /**
   * Target page → anchor text of its first followed link on the page (the link a crawl queues), or
   * of its first link when every one is nofollow.
   */
  readonly anchors: ReadonlyMap<number, string>;
  readonly links: PageLinks;
}

const NO_LINKS: PageLinks = Object.freeze({ ids: new Uint32Array(0), anchors: Object.freeze([]) });

/** What {@link truthContent} provides to a truth graph. */
export interface TruthContent {
  readonly contentOf: (page: number) => PageContent;
  /** Anchor text of an edge of the truth's CSR. */
  readonly anchorOf: (edge: number) => string;
  /** Every link occurrence of a page (the truth keeps one edge per target). */
  readonly linksOf: (page: number) => PageLinks;
}

/** Content, anchor and link providers for `truth`'s pages; see the file comment. */
export function truthContent(truth: Truth): TruthContent {
  const model = new WebModel(truth.manifest.config);
  const port = truth.manifest.port ?? 80;
  const cache = new Map<number, Parsed>();
  const parsedOf = (page: number): Parsed => {
    const hit = cache.get(page);
    if (hit !== undefined) return hit;
    let parsed: Parsed = { content: { title: '', text: '' }, anchors: new Map(), links: NO_LINKS };
    if (servesContent(model.pageKind[page] as number)) {
      const url = model.url(page, port);
      const html = parseHtml(renderPage(model, page, port).html, url);
      const anchors = new Map<number, string>();
      // The export places an edge at its first followed occurrence (`web/truth/export.ts`): its
      // anchor is that occurrence's, which a crawl hands to the policy when it queues the URL.
      const isFollowed = new Set<number>();
      const ids: number[] = [];
      const texts: string[] = [];
      for (const link of html.links) {
        const target = normalizeUrl(link.href, html.effectiveBase);
        if (target.kind !== 'ok') continue;
        const id = truth.pageIdOf(target.url);
        if (id < 0) continue;
        ids.push(id);
        texts.push(link.anchorText);
        if (isFollowed.has(id)) continue;
        if (!link.isNofollow) {
          isFollowed.add(id);
          anchors.set(id, link.anchorText);
        } else if (!anchors.has(id)) {
          anchors.set(id, link.anchorText);
        }
      }
      parsed = { content: { title: html.title, text: html.visibleText }, anchors, links: { ids: Uint32Array.from(ids), anchors: texts } };
    }
    if (cache.size >= CACHE_PAGES) cache.delete(cache.keys().next().value as number);
    cache.set(page, parsed);
    return parsed;
  };
  const { offsets, targets } = truth.graph;
  const sourceOf = (edge: number): number => {
    // The last page whose out-links start at or before the edge.
    let lo = 0;
    let hi = truth.pageCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((offsets[mid] as number) <= edge) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    contentOf: (page) => parsedOf(page).content,
    anchorOf: (edge) => parsedOf(sourceOf(edge)).anchors.get(targets[edge] as number) ?? '',
    linksOf: (page) => parsedOf(page).links,
  };
}
