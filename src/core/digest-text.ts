/**
 * The text form of SHA-1 digests in WARC headers and in shoal's dedup keys: `sha1:` + RFC 4648
 * base32 (upper case) of the 20 bytes, as Heritrix, wget, warcio and pywb write
 * `WARC-Payload-Digest` and `WARC-Block-Digest`. 160 bits is a multiple of 5, so the form is always
 * 32 characters and never needs `=` padding.
 */

/** RFC 4648 §6 alphabet, as character codes. */
const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 'latin1');
const PREFIX = 'sha1:';
/** The text is assembled here and read out as one string (a string built a character at a time made 32 intermediate strings). */
const scratch = Buffer.alloc(PREFIX.length + 32);
scratch.write(PREFIX, 0, 'latin1');

/** `sha1:` + the base32 of a 20-byte SHA-1 digest. @throws RangeError for any other length. */
export function sha1Text(digest: Uint8Array): string {
  if (digest.length !== 20) throw new RangeError(`a SHA-1 digest has 20 bytes, got ${digest.length}`);
  let at = PREFIX.length;
  let buffer = 0; // pending bits, right-aligned
  let bits = 0;
  for (let i = 0; i < 20; i++) {
    buffer = ((buffer << 8) | (digest[i] as number)) & 0xfff; // at most 4 + 8 pending bits matter
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      scratch[at++] = ALPHABET[(buffer >>> bits) & 31] as number;
    }
  }
  return scratch.toString('latin1', 0, at);
}
