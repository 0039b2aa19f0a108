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
import { createHash } from 'node:crypto';

/** RFC 4648 §6 alphabet. */
const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * Any run of white space, as JavaScript's `\s` defines it: ASCII blanks, NO-BREAK SPACE, the Unicode
 * `Zs` spaces, LINE/PARAGRAPH SEPARATOR and U+FEFF (a byte-order mark left at the start of a decoded
 * body is thus dropped too).
 */
const WHITESPACE_RUN = /\s+/gu;

/**
 * RFC 4648 base32 of `bytes`, upper case, without padding (for 20-byte SHA-1 digests no padding
 * would be written anyway).
 */
function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0; // pending bits, right-aligned
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xfff; // at most 4 + 8 pending bits matter
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >>> bits) & 31];
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * WARC-style digest of a payload: `sha1:` followed by the 32-character base32 SHA-1 of `body`, as
 * written in `WARC-Payload-Digest` (and `WARC-Block-Digest`, given the whole block).
 *
 * @param body the exact bytes (for a payload digest: after transfer decoding, before content decoding).
 * @returns for example `sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ` for an empty body.
 */
export function payloadDigest(body: Uint8Array): string {
  return 'sha1:' + base32(createHash('sha1').update(body).digest());
}

/**
 * The text {@link textDigest} hashes: Unicode NFC, every run of white space (see above) replaced by
 * one U+0020, leading and trailing space removed. Case, punctuation and every other character are
 * kept: pages that differ there say something different.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFC').replace(WHITESPACE_RUN, ' ').trim();
}

/**
 * Exact fingerprint of decoded text content: `sha256:` followed by the 64 lower-case hex digits of
 * SHA-256 over the UTF-8 bytes of {@link normalizeText}(`text`). Two copies of a page that differ only
 * in white space, in their encoding on the wire or in Unicode normalization get the same digest.
 */
export function textDigest(text: string): string {
  return 'sha256:' + createHash('sha256').update(normalizeText(text), 'utf8').digest('hex');
}
