/**
 * Which character encoding a fetched HTML body is in, and its text. Follows the HTML standard's
 * encoding sniffing algorithm (WHATWG HTML §13.2.3.2, "Determining the character encoding"):
 *
 * 1. a byte order mark (UTF-8, UTF-16BE, UTF-16LE) wins over everything;
 * 2. then the `charset` parameter of the Content-Type header;
 * 3. then a prescan of the first 1024 bytes for `<meta charset>` or
 *    `<meta http-equiv="content-type" content="...; charset=...">` (§13.2.3.2 "prescan a byte
 *    stream"; a UTF-16 label found there means UTF-8, `x-user-defined` means windows-1252);
 * 4. else a default.
 *
 * Labels are mapped to WHATWG encoding names by the Encoding Standard's label table (`latin1`,
 * `ascii` and `iso-8859-1` are windows-1252, `gb2312` is gbk, ...); a label that names no encoding
 * is ignored and the next step decides.
 *
 * Departure from the standard at step 4: where a browser falls back to a locale-dependent legacy
 * encoding (windows-1252 in most locales), shoal uses UTF-8 when the bytes are valid UTF-8 and
 * windows-1252 otherwise. The standard allows this kind of content-based detection (step 7) and it
 * is right far more often for a crawler, which has no locale: most undeclared pages today are UTF-8,
 * and every ASCII page decodes the same either way.
 */
import { TextDecoder } from 'node:util';
import iconv from 'iconv-lite';

/** Where the detected charset came from. */
export const CharsetSource = {
  bom: 'bom',
  header: 'header',
  meta: 'meta',
  default: 'default',
} as const;
export type CharsetSource = (typeof CharsetSource)[keyof typeof CharsetSource];

/** A detected charset: a WHATWG encoding name (lowercase) and where it came from. */
export interface DetectedCharset {
  readonly charset: string;
  readonly source: CharsetSource;
}

/** How many bytes the `<meta>` prescan looks at (HTML standard: 1024). */
export const META_PRESCAN_BYTES = 1024;

/** Labels of the WHATWG "replacement" encoding: they decode to a single U+FFFD (no injection tricks). */
const REPLACEMENT_LABELS: ReadonlySet<string> = new Set([
  'csiso2022kr',
  'hz-gb-2312',
  'iso-2022-cn',
  'iso-2022-cn-ext',
  'iso-2022-kr',
  'replacement',
]);

/** WHATWG encodings some Node builds lack in TextDecoder (ICU has no table): decoded by iconv-lite. */
const ICONV_ENCODINGS: ReadonlySet<string> = new Set(['iso-8859-16']);

/** Labels already resolved (bounded: labels come from strangers' pages). */
const labelCache = new Map<string, string | null>();
const LABEL_CACHE_MAX = 512;

/**
 * The WHATWG name of an encoding label (`' Latin1 '` -> `windows-1252`), or null when the label
 * names no encoding shoal can decode. Node's TextDecoder implements the Encoding Standard's label
 * table, so it is the table; the few encodings it lacks are listed above.
 */
export function normalizeCharsetLabel(label: string): string | null {
  const key = label.trim().toLowerCase();
  const hit = labelCache.get(key);
  if (hit !== undefined) return hit;
  let name: string | null = null;
  if (REPLACEMENT_LABELS.has(key)) name = 'replacement';
  else if (key === 'x-user-defined') name = key;
  else if (key !== '') {
    try {
      name = new TextDecoder(key).encoding;
    } catch {
      // RangeError: not a label of any encoding TextDecoder knows.
      name = ICONV_ENCODINGS.has(key) && iconv.encodingExists(key) ? key : null;
    }
  }
  if (labelCache.size >= LABEL_CACHE_MAX) labelCache.clear();
  labelCache.set(key, name);
  return name;
}

/** The encoding a byte order mark at the start of `body` names, or null. */
export function bomCharset(body: Uint8Array): string | null {
  const [a, b, c] = body;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 'utf-8';
  if (a === 0xfe && b === 0xff) return 'utf-16be';
  if (a === 0xff && b === 0xfe) return 'utf-16le';
  return null;
}

/**
 * The value of the `charset` parameter of a Content-Type header (quotes removed), or null. The
 * first `charset` parameter counts, as in the Fetch standard's "extract a MIME type".
 */
export function contentTypeCharset(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const semi = contentType.indexOf(';');
  if (semi < 0) return null;
  // Parameters: name=value or name="quoted \" value", separated by ';'.
  const re = /;\s*([^=;\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"?|[^;]*))?/g;
  re.lastIndex = semi;
  for (let m = re.exec(contentType); m !== null; m = re.exec(contentType)) {
    if ((m[1] as string).toLowerCase() !== 'charset' || m[2] === undefined) continue;
    const raw = m[2];
    if (raw.startsWith('"')) return raw.slice(1, raw.endsWith('"') && raw.length > 1 ? -1 : undefined).replace(/\\(.)/g, '$1');
    return raw.trim();
  }
  return null;
}

/**
 * Detects the charset of an HTML body: BOM, Content-Type header, `<meta>` prescan, default (see
 * the file comment). Never throws.
 */
export function detectCharset(body: Uint8Array, contentType: string | undefined): DetectedCharset {
  const bom = bomCharset(body);
  if (bom !== null) return { charset: bom, source: CharsetSource.bom };
  const headerLabel = contentTypeCharset(contentType);
  const header = headerLabel === null ? null : normalizeCharsetLabel(headerLabel);
  if (header !== null) return { charset: header, source: CharsetSource.header };
  const meta = prescanMetaCharset(body);
  if (meta !== null) return { charset: meta, source: CharsetSource.meta };
  return { charset: isUtf8(body) ? 'utf-8' : 'windows-1252', source: CharsetSource.default };
}

/** Whether `body` is valid UTF-8 (a multi-byte sequence cut off at the end, as by a size limit, is allowed). */
function isUtf8(body: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Decoders by encoding name; TextDecoder without `stream` keeps no state between calls. */
const decoders = new Map<string, TextDecoder>();

/**
 * The text of `body` in `charset` (a label or name). A byte order mark decides the encoding and
 * is dropped, as in the Encoding Standard's "decode" (which HTML uses); malformed bytes become
 * U+FFFD; it never throws (an unknown charset decodes as windows-1252, which maps every byte).
 */
export function decodeHtml(body: Uint8Array, charset: string): string {
  const bom = bomCharset(body);
  const name = bom ?? normalizeCharsetLabel(charset) ?? 'windows-1252';
  const bytes = bom === null ? body : body.subarray(bom === 'utf-8' ? 3 : 2);
  if (name === 'replacement') return bytes.length === 0 ? '' : '\uFFFD';
  if (name === 'x-user-defined') return decodeUserDefined(bytes);
  if (name === 'windows-1252') return decodeWindows1252(bytes);
  if (ICONV_ENCODINGS.has(name)) return iconv.decode(asBuffer(bytes), name, { stripBOM: false });
  let decoder = decoders.get(name);
  if (decoder === undefined) {
    // The BOM is handled above: a second one is text.
    decoder = new TextDecoder(name, { fatal: false, ignoreBOM: true });
    decoders.set(name, decoder);
  }
  return decoder.decode(bytes);
}

function asBuffer(body: Uint8Array): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** WHATWG index-windows-1252 for bytes 0x80-0x9F; every other byte is its own code point. */
const WINDOWS_1252_C1 =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

/**
 * windows-1252 (also every page labelled latin1, iso-8859-1 or ascii). Node 20's TextDecoder
 * decodes this label as ISO-8859-1, so '€' (0x80), curly quotes and 'œ' come out as C1 controls.
 */
function decodeWindows1252(body: Uint8Array): string {
  return asBuffer(body)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] as string);
}

/** The Encoding Standard's x-user-defined: ASCII, then bytes 0x80-0xFF to U+F780-U+F7FF. */
function decodeUserDefined(body: Uint8Array): string {
  let out = '';
  for (let i = 0; i < body.length; i += 8192) {
    const chunk = Array.from(body.subarray(i, i + 8192), (b) => (b < 0x80 ? b : 0xf700 + b));
    out += String.fromCharCode(...chunk);
  }
  return out;
}

// --- The <meta> prescan (HTML §13.2.3.2, "prescan a byte stream to determine its encoding") ---

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

function isSpace(b: number | undefined): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

function isAsciiLetter(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
}

function lower(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
}

/** Whether the bytes at `at` spell `word` (lowercase ASCII), case-insensitively. */
function startsWithAt(bytes: Uint8Array, at: number, word: string): boolean {
  if (at + word.length > bytes.length) return false;
  for (let i = 0; i < word.length; i++) if (lower(bytes[at + i] as number) !== word.charCodeAt(i)) return false;
  return true;
}

/** Bytes as a string, one char per byte: labels and attribute names are ASCII. */
function latin1(bytes: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...bytes.subarray(from, to));
}

/** One attribute read by the prescan, and where reading stopped. */
interface PrescanAttribute {
  readonly name: string;
  readonly value: string;
  readonly next: number;
}

/** "Get an attribute": null when the tag ends (or the bytes do) before another attribute. */
function getAttribute(bytes: Uint8Array, start: number): PrescanAttribute | null {
  const end = bytes.length;
  let p = start;
  while (p < end && (isSpace(bytes[p]) || bytes[p] === SLASH)) p++;
  if (p >= end || bytes[p] === GT) return null;
  const nameStart = p;
  // The first character may be '=' (it is then part of the name).
  p++;
  while (p < end && bytes[p] !== EQ && !isSpace(bytes[p]) && bytes[p] !== SLASH && bytes[p] !== GT) p++;
  const name = latin1(bytes, nameStart, p).toLowerCase();
  while (p < end && isSpace(bytes[p])) p++;
  if (bytes[p] !== EQ) return { name, value: '', next: p };
  p++;
  while (p < end && isSpace(bytes[p])) p++;
  if (p >= end) return null;
  const q = bytes[p];
  if (q === DQ || q === SQ) {
    const close = bytes.indexOf(q, p + 1);
    if (close < 0) return null;
    return { name, value: latin1(bytes, p + 1, close), next: close + 1 };
  }
  const valueStart = p;
  while (p < end && !isSpace(bytes[p]) && bytes[p] !== GT) p++;
  return { name, value: latin1(bytes, valueStart, p), next: p };
}

/**
 * "Extract a character encoding from a meta element": the label after `charset=` in a
 * `content` attribute (quoted or not), or null.
 */
export function charsetFromMetaContent(content: string): string | null {
  const text = content.toLowerCase();
  let p = 0;
  for (;;) {
    const at = text.indexOf('charset', p);
    if (at < 0) return null;
    p = at + 7;
    while (isSpace(text.charCodeAt(p))) p++;
    // Not followed by '=': look for a later 'charset'.
    if (text.charCodeAt(p) !== EQ) continue;
    p++;
    while (isSpace(text.charCodeAt(p))) p++;
    if (p >= text.length) return null;
    const q = text.charCodeAt(p);
    if (q === DQ || q === SQ) {
      // An unmatched quote means no encoding.
      const close = text.indexOf(text[p] as string, p + 1);
      return close < 0 ? null : content.slice(p + 1, close);
    }
    let e = p;
    while (e < text.length && !isSpace(text.charCodeAt(e)) && text.charCodeAt(e) !== 0x3b) e++;
    return content.slice(p, e);
  }
}

/** Skips to just past the next '>' from `p` (or the end). */
function skipPastGt(bytes: Uint8Array, p: number): number {
  const gt = bytes.indexOf(GT, p);
  return gt < 0 ? bytes.length : gt + 1;
}

/** The charset a `<meta>` element in the first 1024 bytes declares, or null (WHATWG names). */
export function prescanMetaCharset(body: Uint8Array): string | null {
  const bytes = body.subarray(0, META_PRESCAN_BYTES);
  const end = bytes.length;
  let p = 0;
  while (p < end) {
    if (bytes[p] !== LT) {
      const lt = bytes.indexOf(LT, p);
      if (lt < 0) break;
      p = lt;
      continue;
    }
    if (startsWithAt(bytes, p, '<!--')) {
      // '-->' may share its dashes with '<!--' ('<!-->' is a whole comment).
      let q = p + 2;
      while (q + 2 < end && !(bytes[q] === 0x2d && bytes[q + 1] === 0x2d && bytes[q + 2] === GT)) q++;
      p = q + 3;
    } else if (startsWithAt(bytes, p, '<meta') && (isSpace(bytes[p + 5]) || bytes[p + 5] === SLASH)) {
      const found = metaElementCharset(bytes, p + 5);
      if (found.charset !== null) return found.charset;
      p = found.next;
    } else if ((bytes[p + 1] === SLASH && isAsciiLetter(bytes[p + 2])) || isAsciiLetter(bytes[p + 1])) {
      // Any other tag: skip its name, then its attributes (a '>' inside a quoted value does not end it).
      let q = p + 1;
      while (q < end && !isSpace(bytes[q]) && bytes[q] !== GT) q++;
      for (let a = getAttribute(bytes, q); a !== null; a = getAttribute(bytes, q)) q = a.next;
      p = q + 1;
    } else if (bytes[p + 1] === BANG || bytes[p + 1] === SLASH || bytes[p + 1] === QUESTION) {
      p = skipPastGt(bytes, p + 1);
    } else {
      p++;
    }
  }
  return null;
}

/** Reads the attributes of one `<meta>` element; the charset it declares, or null, and where it ended. */
function metaElementCharset(bytes: Uint8Array, start: number): { charset: string | null; next: number } {
  const seen = new Set<string>();
  let hasPragma = false;
  let needsPragma: boolean | null = null;
  let charset: string | null = null;
  let p = start;
  for (let a = getAttribute(bytes, p); a !== null; a = getAttribute(bytes, p)) {
    p = a.next;
    if (seen.has(a.name)) continue;
    seen.add(a.name);
    if (a.name === 'http-equiv') {
      if (a.value.toLowerCase() === 'content-type') hasPragma = true;
    } else if (a.name === 'content') {
      const label = charsetFromMetaContent(a.value);
      const named = label === null ? null : normalizeCharsetLabel(label);
      if (named !== null && charset === null) {
        charset = named;
        needsPragma = true;
      }
    } else if (a.name === 'charset') {
      charset = normalizeCharsetLabel(a.value);
      needsPragma = false;
    }
  }
  const next = p + 1;
  if (needsPragma === null || (needsPragma && !hasPragma) || charset === null) return { charset: null, next };
  // A document that could declare UTF-16 in ASCII bytes is not UTF-16.
  if (charset === 'utf-16le' || charset === 'utf-16be') return { charset: 'utf-8', next };
  if (charset === 'x-user-defined') return { charset: 'windows-1252', next };
  return { charset, next };
}
