/**
 * Precision and recall of near-duplicate marks against a ground truth (SPEC §2.10, §6).
 *
 * The truth groups pages into families: a page's family is found by following "repeats the content
 * of" (`dup_of` of the test web: a mirror's page to the page it copies, a near-duplicate to its
 * original) to a page that repeats none. Of the pages a crawl analysed, in the order it analysed them:
 *
 * - a **positive** is a page with an earlier analysed page of its family: a crawl that found every
 *   near-duplicate would mark it;
 * - a **mark** (page p marked as resembling q) is **correct** when p and q are different pages of one
 *   family;
 * - precision = correct marks / marks; recall = positives with a correct mark / positives.
 *
 * Pages the truth does not know (family −1) count as a family of their own. Pure: no I/O.
 */

/** A page as the crawl recorded it, in the order it was analysed. */
export interface MarkedPage {
  readonly url: string;
  /** Null for a page that was not analysed (an exact duplicate, not HTML): left out. */
  readonly simhash: string | null;
  readonly nearDuplicateOf: string | null;
}

/** What {@link nearDuplicateQuality} measured. */
export interface NearDuplicateQuality {
  /** Analysed pages. */
  readonly pages: number;
  readonly positives: number;
  readonly marks: number;
  readonly correctMarks: number;
  /** Positives with a correct mark. */
  readonly found: number;
  /** correctMarks / marks; 1 when there are no marks. */
  readonly precision: number;
  /** found / positives; 1 when there are no positives. */
  readonly recall: number;
  /** Up to 10 wrong marks, for a reader to look at. */
  readonly wrong: readonly { readonly url: string; readonly markedOf: string }[];
}

/**
 * The family of every page of a truth: `dupOf[g]` is the page g repeats, or −1. Chains are
 * followed to their end (a mirror of a near-duplicate leads to the original).
 */
export function truthFamilies(dupOf: Int32Array): Int32Array {
  const family = new Int32Array(dupOf.length);
  for (let g = 0; g < dupOf.length; g++) {
    let r = g;
    for (let hops = 0; (dupOf[r] as number) >= 0 && hops < dupOf.length; hops++) r = dupOf[r] as number;
    family[g] = r;
  }
  return family;
}

/** Measures the marks of `pages` against `familyOf` (−1 for a URL the truth does not know). */
export function nearDuplicateQuality(pages: Iterable<MarkedPage>, familyOf: (url: string) => number): NearDuplicateQuality {
  const seenFamilies = new Set<number>();
  let analysed = 0;
  let positives = 0;
  let marks = 0;
  let correctMarks = 0;
  let found = 0;
  const wrong: { url: string; markedOf: string }[] = [];
  for (const p of pages) {
    if (p.simhash === null) continue;
    analysed++;
    const f = familyOf(p.url);
    const isPositive = f >= 0 && seenFamilies.has(f);
    if (isPositive) positives++;
    if (p.nearDuplicateOf !== null) {
      marks++;
      const g = familyOf(p.nearDuplicateOf);
      const isCorrect = f >= 0 && f === g && p.nearDuplicateOf !== p.url;
      if (isCorrect) correctMarks++;
      else if (wrong.length < 10) wrong.push({ url: p.url, markedOf: p.nearDuplicateOf });
      if (isCorrect && isPositive) found++;
    }
    if (f >= 0) seenFamilies.add(f);
  }
  return {
    pages: analysed,
    positives,
    marks,
    correctMarks,
    found,
    precision: marks === 0 ? 1 : correctMarks / marks,
    recall: positives === 0 ? 1 : found / positives,
    wrong,
  };
}
