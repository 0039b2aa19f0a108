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
 * How many times each of `terms` (lowercase tokens) occurs as a token of `text`: `counts[i]` for
 * `terms[i]`. Streams over the text, so a megabyte page allocates no token array.
 */
export function countTermsIn(text: string, terms: readonly string[]): number[] {
  const counts = terms.map(() => 0);
  if (terms.length === 0 || text === '') return counts;
  const index = new Map(terms.map((t, i) => [t, i]));
  const re = new RegExp(TOKEN.source, 'gu');
  const lower = text.toLowerCase();
  for (let m = re.exec(lower); m !== null; m = re.exec(lower)) {
    const i = index.get(m[0]);
    if (i !== undefined) counts[i] = (counts[i] as number) + 1;
  }
  return counts;
}
