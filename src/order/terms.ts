/**
 * Words for the text-driven policies (similarity, hot queue): `[\p{L}\p{N}]+` runs, lowercased, the
 * token rule used everywhere in shoal (`src/parse/`, `src/dedup/simhash.ts`; the parser keeps its
 * tokenizer private, so it is restated here rather than imported).
 *
 * URLs are read as text after their scheme, with percent-escapes decoded when they decode, so
 * `http://a.test/Caf%C3%A9/index.html` gives `a test café index html`.
 */

const TOKEN = /[\p{L}\p{N}]+/gu;

/** The lowercase tokens of `text`, in order, repeats included (empty for ''). */
export function tokensOf(text: string): string[] {
  if (text === '') return [];
  return text.toLowerCase().match(TOKEN) ?? [];
}

/**
 * Adds 1 to `into` for each token occurrence of `text` (lowercase, as {@link tokensOf}); returns
 * `into`. Streams over the text: a megabyte page allocates no token array.
 */
export function addTokenCounts(text: string, into: Map<string, number>): Map<string, number> {
  if (text === '') return into;
  const lower = text.toLowerCase();
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(lower); m !== null; m = TOKEN.exec(lower)) into.set(m[0], (into.get(m[0]) ?? 0) + 1);
  return into;
}

/** `url` without its scheme, percent-escapes decoded when valid, lowercased: what URL rules match. */
export function urlText(url: string): string {
  const at = url.indexOf('://');
  const rest = at >= 0 ? url.slice(at + 3) : url;
  let decoded = rest;
  if (rest.includes('%')) {
    try {
      decoded = decodeURIComponent(rest);
    } catch {
      decoded = rest;
    }
  }
  return decoded.toLowerCase();
}

/** The tokens of a URL (see {@link urlText}); the scheme is not a term. */
export function urlTokensOf(url: string): string[] {
  return tokensOf(urlText(url));
}

/**
 * Counts the occurrences of a fixed list of terms (lowercase tokens) in texts. Made once for many
 * texts, as the hot queue judges the title and text of every fetched page: the term index and the
 * token pattern are built once, and the scan streams over the text, so a megabyte page allocates no
 * token array.
 */
export class TermCounter {
  private readonly index: ReadonlyMap<string, number>;
  private readonly pattern = new RegExp(TOKEN.source, 'gu');
  private readonly counts: number[];

  /** `terms`: lowercase tokens; a repeated term is counted at its last index only. */
  constructor(readonly terms: readonly string[]) {
    this.index = new Map(terms.map((t, i) => [t, i]));
    this.counts = terms.map(() => 0);
  }

  /** `counts[i]`: occurrences of `terms[i]` as a token of `text`. The array is reused by the next call. */
  countIn(text: string): readonly number[] {
    this.scan(text, Number.POSITIVE_INFINITY);
    return this.counts;
  }

  /** Whether some term occurs at least `min` (>= 1) times in `text`; stops reading at the first that does. */
  reaches(text: string, min: number): boolean {
    return this.scan(text, min);
  }

  /** Fills `counts` for `text`, stopping early once a count reaches `min`; returns whether one did. */
  private scan(text: string, min: number): boolean {
    const counts = this.counts;
    counts.fill(0);
    if (counts.length === 0 || text === '') return false;
    const re = this.pattern;
    const lower = text.toLowerCase();
    re.lastIndex = 0;
    for (let m = re.exec(lower); m !== null; m = re.exec(lower)) {
      const i = this.index.get(m[0]);
      if (i === undefined) continue;
      const c = (counts[i] as number) + 1;
      counts[i] = c;
      if (c >= min) return true;
    }
    return false;
  }
}

/**
 * How many times each of `terms` (lowercase tokens) occurs as a token of `text`: `counts[i]` for
 * `terms[i]`. For many texts with the same terms, a {@link TermCounter} builds its index once.
 */
export function countTermsIn(text: string, terms: readonly string[]): number[] {
  return [...new TermCounter(terms).countIn(text)];
}
