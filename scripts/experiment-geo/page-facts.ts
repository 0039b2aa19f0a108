/**
 * What the geo experiment needs to know about single pages of the test web, each computed once and
 * shared by every run: the title and visible text a crawl sees (`truthContent`: the page rendered as
 * the server serves it and parsed by the crawl's own parser), the address its host is served from,
 * and how the street-address extractor does on it against the truth's entities.
 *
 * The extractor is scored as `npm run bench:geo` scores it: `extractAddresses` over the visible text
 * with the 100 default targets, each address found matched against the page's truth rows as a
 * multiset of `addressKey`s; a hit whose target is the true city's counts as "target right".
 */
import { addressKey, extractAddresses, type AddressParts } from '../../src/geo/address-extractor.js';
import { Gazetteer } from '../../src/geo/gazetteer.js';
import { truthContent, type TruthContent } from '../../src/sim/graph/truth-content.js';
import type { TruthEntity } from '../../src/web/truth/format.js';
import type { Truth } from '../../src/web/truth/read.js';

/** The text of a page as a crawl sees it. */
export interface PageText {
  readonly title: string;
  readonly text: string;
}

/** The extractor on one page. */
export interface ExtractorScore {
  /** Truth rows of the page. */
  readonly expected: number;
  /** Addresses the extractor found. */
  readonly found: number;
  /** Found addresses matching a truth row. */
  readonly hits: number;
  /** Of the hits, those whose target is the truth row's city. */
  readonly rightTarget: number;
}

/** Sums of {@link ExtractorScore} over pages. */
export interface ExtractorTotals extends ExtractorScore {
  readonly pages: number;
  /** Pages with at least one truth row. */
  readonly geoPages: number;
}

/** Per-page facts, computed on first use and kept for the next run. */
export class PageFacts {
  readonly #content: TruthContent;
  readonly #texts = new Map<number, PageText>();
  readonly #scores = new Map<number, ExtractorScore>();
  readonly #entities: ReadonlyMap<number, readonly (AddressParts & { readonly target: number })[]>;
  readonly #gazetteer = Gazetteer.usTop(100);

  private constructor(
    readonly truth: Truth,
    entities: readonly TruthEntity[],
  ) {
    this.#content = truthContent(truth);
    const byPage = new Map<number, (AddressParts & { target: number })[]>();
    for (const e of entities) {
      const list = byPage.get(e.page) ?? [];
      list.push({ ...e, target: this.#gazetteer.indexOf(`${e.city}, ${e.state}`) });
      byPage.set(e.page, list);
    }
    this.#entities = byPage;
  }

  static async of(truth: Truth): Promise<PageFacts> {
    return new PageFacts(truth, await truth.entities());
  }

  /** Title and visible text of truth page `p` (empty for a page that serves no content). */
  textOf(p: number): PageText {
    let t = this.#texts.get(p);
    if (t === undefined) {
      const c = this.#content.contentOf(p);
      t = { title: c.title ?? '', text: c.text ?? '' };
      this.#texts.set(p, t);
    }
    return t;
  }

  /** The address page `p`'s host is served from. */
  ipOf(p: number): string | null {
    return this.truth.hosts[this.truth.pageHost[p] as number]?.ip ?? null;
  }

  /** The extractor on truth page `p`. */
  extractorOn(p: number): ExtractorScore {
    let s = this.#scores.get(p);
    if (s === undefined) {
      const expected = this.#entities.get(p) ?? [];
      const found = extractAddresses(this.textOf(p).text, this.#gazetteer);
      const left = new Map<string, number>();
      for (const e of expected) left.set(addressKey(e), (left.get(addressKey(e)) ?? 0) + 1);
      let hits = 0;
      let rightTarget = 0;
      for (const a of found) {
        const k = addressKey(a);
        const n = left.get(k) ?? 0;
        if (n === 0) continue;
        left.set(k, n - 1);
        hits++;
        if (expected.some((e) => addressKey(e) === k && e.target === a.target)) rightTarget++;
      }
      s = { expected: expected.length, found: found.length, hits, rightTarget };
      this.#scores.set(p, s);
    }
    return s;
  }

  /** The extractor over distinct truth pages. */
  extractorOver(pages: Iterable<number>): ExtractorTotals {
    let n = 0;
    let geoPages = 0;
    let expected = 0;
    let found = 0;
    let hits = 0;
    let rightTarget = 0;
    for (const p of pages) {
      const s = this.extractorOn(p);
      n++;
      if (s.expected > 0) geoPages++;
      expected += s.expected;
      found += s.found;
      hits += s.hits;
      rightTarget += s.rightTarget;
    }
    return { pages: n, geoPages, expected, found, hits, rightTarget };
  }
}
