/**
 * The language of a page (SPEC §2 item 9; the topic partitioner of §4.2 sends non-English pages
 * to WORLD), from its visible text with eld's detector (n-gram detector, ISO 639-1 codes, 60
 * languages), with the page's declared language (`<html lang>`) as a hint.
 *
 * The detector is our own re-implementation of eld's (`language-detector.ts`) over eld's own
 * `medium` table, which `language-table.ts` reads from the installed `eld` package's source files
 * without importing them; it gives exactly eld's answers (`detect()` with text cleanup on:
 * language, scores, reliability), which the unit tests check against eld itself, table entry for
 * table entry and text for text. The table is `medium` because, on 4,236 test-web pages, eld with
 * every table size was always right, but with `extrasmall` unsure of 65 pages where with `medium`
 * of 4 (`large`, as eld loaded it, took twice the memory and three times the load time). Text
 * cleanup drops URLs, e-mail addresses and numbers, which say nothing of the language.
 *
 * Cost, measured (medians of 5–9 runs on a shared 2-core machine): importing `eld/medium` took
 * ~540 ms of CPU, +61 MB of heap and +190 MB of peak RSS (V8 compiling a 2 MB object literal);
 * the compact table takes ~65 ms of CPU on the first call (once per thread), +5 MB of typed
 * arrays and +9 MB of peak RSS. A detection of 800 characters of prose takes ~8 µs instead of
 * eld's ~70–90 µs (~19 µs instead of ~56 µs with URLs, e-mail addresses and numbers in it).
 *
 * eld reads at most 1,000 characters per call. Page openings are often navigation, so when the
 * first 1,000 characters give no reliable answer, up to four such samples (the first 4 KB of text)
 * are scored and their scores summed.
 *
 * The rule with the declared language:
 * - a reliable detection wins, whatever the page declares (declarations are often a template's
 *   default, `lang="en"` on every page of a site);
 * - an unreliable detection that agrees with the declaration is taken as reliable (two independent
 *   signals agree);
 * - an unreliable detection that disagrees, or no detection (no letters), yields the declaration
 *   (its primary subtag), marked unreliable;
 * - with no declaration, an unreliable detection is returned as it is, marked unreliable; no
 *   detection at all is `''`.
 */
import { detect } from './language-detector.js';

/** Where a detected language came from. */
export const LanguageSource = {
  /** eld's detection on the visible text. */
  text: 'text',
  /** The page's declared language (`<html lang>`). */
  declared: 'declared',
  /** Neither: the code is ''. */
  none: 'none',
} as const;
export type LanguageSource = (typeof LanguageSource)[keyof typeof LanguageSource];

/** A detected language. */
export interface DetectedLanguage {
  /** ISO 639-1 code, lowercase; '' when unknown. */
  readonly code: string;
  readonly isReliable: boolean;
  readonly source: LanguageSource;
}

/** Characters eld reads per call (it ignores the rest). */
const SAMPLE_CHARS = 1000;
/** Samples scored at most when the first is not reliable (the first 4 KB of text). */
const MAX_SAMPLES = 4;

/** The primary subtag of a language tag (`de-AT` -> `de`) when it is a two-letter ISO 639-1 code, else ''. */
export function primaryLanguage(tag: string | undefined): string {
  if (tag === undefined) return '';
  const m = /^\s*([a-zA-Z]{2})(?:[-_]|\s*$)/.exec(tag);
  return m === null ? '' : (m[1] as string).toLowerCase();
}

/** `text` cut to at most `max` characters, at a white space when there is one (no half words). */
function sampleOf(text: string, from: number, max: number): string {
  const end = from + max;
  if (end >= text.length) return text.slice(from);
  const space = text.lastIndexOf(' ', end);
  return text.slice(from, space > from ? space : end);
}

/** eld's answer for `text`: the first sample alone when reliable, else the summed scores of up to four. */
function detectText(text: string): { code: string; isReliable: boolean } {
  const first = detect(sampleOf(text, 0, SAMPLE_CHARS));
  if (first.isReliable || text.length <= SAMPLE_CHARS) return { code: first.language, isReliable: first.isReliable };
  const sums = new Map<string, number>();
  const winners: { code: string; isReliable: boolean }[] = [];
  for (let i = 0, from = 0; i < MAX_SAMPLES && from < text.length; i++) {
    const sample = sampleOf(text, from, SAMPLE_CHARS);
    from += Math.max(1, sample.length);
    const r = i === 0 ? first : detect(sample);
    if (r.language === '') continue;
    winners.push({ code: r.language, isReliable: r.isReliable });
    for (const [code, score] of Object.entries(r.scores)) sums.set(code, (sums.get(code) ?? 0) + score);
  }
  let code = '';
  let best = -Infinity;
  for (const [c, s] of sums) {
    if (s > best) {
      best = s;
      code = c;
    }
  }
  // Reliable when most samples chose it and at least one of them was sure.
  const agreeing = winners.filter((w) => w.code === code);
  return { code, isReliable: agreeing.length * 2 > winners.length && agreeing.some((w) => w.isReliable) };
}

/**
 * The language of a page's visible text, with its declared language (`<html lang>`, any BCP 47
 * tag) as a hint; see the file comment for the rule. Never throws on any text (the first call
 * loads eld's table, and throws `ShoalError('IO')` only if the installed `eld` package is broken).
 */
export function detectLanguage(text: string, declaredLang?: string): DetectedLanguage {
  const declared = primaryLanguage(declaredLang);
  const found = /[\p{L}]/u.test(text) ? detectText(text) : { code: '', isReliable: false };
  if (found.code !== '' && (found.isReliable || found.code === declared)) {
    return { code: found.code, isReliable: true, source: LanguageSource.text };
  }
  if (declared !== '') return { code: declared, isReliable: false, source: LanguageSource.declared };
  if (found.code !== '') return { code: found.code, isReliable: false, source: LanguageSource.text };
  return { code: '', isReliable: false, source: LanguageSource.none };
}
