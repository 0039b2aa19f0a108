/**
 * The language of a page (SPEC §2 item 9; the topic partitioner of §4.2 sends non-English pages
 * to WORLD), from its visible text with `eld` (n-gram detector, ISO 639-1 codes, 60 languages),
 * with the page's declared language (`<html lang>`) as a hint.
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
import { eld as sharedEld } from 'eld/medium';

/** Where a detected language came from. */
export const LanguageSource = {
  /** eld on the visible text. */
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

/**
 * Our own eld instance: the `medium` n-gram table (~70 MB, loaded in ~0.5 s when this module is
 * first imported; on 4,236 test-web pages every table size was always right, but `extrasmall` was
 * unsure of 65 where `medium` was unsure of 4, and `large` takes twice the memory and three times
 * the load time), with settings of our own that no other user of eld can change. Text cleanup drops URLs, e-mail
 * addresses and numbers, which say nothing about the language.
 */
const detector = sharedEld.newInstance();
detector.enableTextCleanup(true);

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
  const first = detector.detect(sampleOf(text, 0, SAMPLE_CHARS));
  if (first.isReliable() || text.length <= SAMPLE_CHARS) return { code: first.language, isReliable: first.isReliable() };
  const sums = new Map<string, number>();
  const winners: { code: string; isReliable: boolean }[] = [];
  for (let i = 0, from = 0; i < MAX_SAMPLES && from < text.length; i++) {
    const sample = sampleOf(text, from, SAMPLE_CHARS);
    from += Math.max(1, sample.length);
    const r = i === 0 ? first : detector.detect(sample);
    if (r.language === '') continue;
    winners.push({ code: r.language, isReliable: r.isReliable() });
    for (const [code, score] of Object.entries(r.getScores())) sums.set(code, (sums.get(code) ?? 0) + score);
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
 * tag) as a hint; see the file comment for the rule. Never throws.
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
