/**
 * Exact content fingerprints (SPEC §2 item 10).
 *
 * - {@link payloadDigest}: SHA-1 of the bytes as WARC writes its `WARC-Payload-Digest` and
 *   `WARC-Block-Digest` fields, `sha1:` + RFC 4648 base32 (upper case). SHA-1 is 160 bits, an exact
 *   multiple of 5, so the base32 form is always 32 characters and never needs `=` padding; this is the
 *   form Heritrix, wget, warcio and pywb write and compare (the empty payload is
 *   `sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ`). Byte-identical mirrors share it, and a CDXJ index can
 *   use it to record revisits.
 * - {@link textDigest}: SHA-256 of the text after a light normalization, so that copies of a page that
 *   differ only in how they were encoded or laid out (a page served as windows-1252 by one host and as
 *   UTF-8 with a BOM by another, re-indented markup, composed vs decomposed accents) are the same
 *   content. Anything a reader would see as different (words, case, punctuation) still differs.
 */
import { hash } from 'node:crypto';
import { sha1Text } from '../core/digest-text.js';

/**
 * Any run of white space, as JavaScript's `\s` defines it: ASCII blanks, NO-BREAK SPACE, the Unicode
 * `Zs` spaces, LINE/PARAGRAPH SEPARATOR and U+FEFF (a byte-order mark left at the start of a decoded
 * body is thus dropped too).
 */
const WHITESPACE_RUN = /\s+/gu;
/** The white space of {@link WHITESPACE_RUN} in Latin-1 but U+0020 and U+000A. */
const LATIN1_SPACES: readonly string[] = ['\t', '\v', '\f', '\r', '\u00a0'];
/** The rest of it, all beyond Latin-1: a class of two-byte characters only fails at once on a one-byte string. */
const WIDE_SPACE = /[\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
/** Two white space characters in a row, once the others are known absent. */
const SPACE_PAIR = /[ \n][ \n]/;

/**
 * Whether every run of white space in `text` is a single U+0020 or U+000A, as in the visible text of
 * a parsed page (spaces collapsed, a line feed at each block boundary). Native searches only: a
 * memchr per Latin-1 space and two regex scans cost a third of a loop over the characters.
 */
function hasOnlySingleBreaks(text: string): boolean {
  for (const s of LATIN1_SPACES) if (text.includes(s)) return false;
  return !WIDE_SPACE.test(text) && !SPACE_PAIR.test(text);
}

/**
 * `text` with every run of white space replaced by one U+0020 and none at either end. A text whose
 * runs are all single spaces and line feeds only needs its line feeds replaced: the regex replace
 * rebuilt the string around every one of its spaces, half of textDigest's time.
 */
function collapseWhiteSpace(text: string): string {
  return (hasOnlySingleBreaks(text) ? text.replaceAll('\n', ' ') : text.replace(WHITESPACE_RUN, ' ')).trim();
}

/**
 * WARC-style digest of a payload: `sha1:` followed by the 32-character base32 SHA-1 of `body`, as
 * written in `WARC-Payload-Digest` (and `WARC-Block-Digest`, given the whole block).
 *
 * @param body the exact bytes (for a payload digest: after transfer decoding, before content decoding).
 * @returns for example `sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ` for an empty body.
 */
export function payloadDigest(body: Uint8Array): string {
  return sha1Text(hash('sha1', body, 'buffer'));
}

/**
 * The text {@link textDigest} hashes: Unicode NFC, every run of white space (see above) replaced by
 * one U+0020, leading and trailing space removed. Case, punctuation and every other character are
 * kept: pages that differ there say something different.
 */
export function normalizeText(text: string): string {
  return collapseWhiteSpace(text.normalize('NFC'));
}

/**
 * Exact fingerprint of decoded text content: `sha256:` followed by the 64 lower-case hex digits of
 * SHA-256 over the UTF-8 bytes of {@link normalizeText}(`text`). Two copies of a page that differ only
 * in white space, in their encoding on the wire or in Unicode normalization get the same digest.
 */
export function textDigest(text: string): string {
  return 'sha256:' + hash('sha256', normalizeText(text), 'hex');
}
