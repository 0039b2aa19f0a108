/**
 * A {@link PageAnalysis} packed into one ArrayBuffer, so that it crosses from an analysis worker to
 * the crawl thread by transfer (page-analyzer.ts). An analysis holds a hundred-odd links of five
 * strings each; packing and unpacking leave out what JSON spends on names, quotes and escapes, and
 * the buffer is moved, not copied. Most of what packing still costs is V8 copying the parser's
 * strings out of the pieces they were built from, which any encoding pays.
 *
 * Layout (native byte order: both ends are threads of one process):
 *
 *   bytes 0-7    Float64  the topic's probability (0 when it has none)
 *   then Int32   header: links n, robots directives d, found, invalid, nofollow, flags, topic reason
 *   then Int32   per link: kind index << 1 | isNofollow
 *   then Int32   per string: its length in UTF-16 code units
 *   then         the characters of every string back to back, 1 byte each (Latin-1) when every
 *                character is below U+0100, else 2 bytes each (UTF-16LE, lone surrogates kept)
 *
 * The strings, in order: charset, language, simhash, textDigest, title, visibleText, canonical
 * ('' when null), the topic's category ('' when none), the d robots directives, then per link its
 * url, anchorText, before, after and host name.
 *
 * The packer joins the strings into one and writes it in one call. It first flattens each link's
 * `before` and `after` in place: the parser builds these windows by concatenation, as trees of
 * slices of the page's text, and V8 allocates some of the parser's objects straight in the old
 * generation (allocation-site pretenuring), where they keep whatever they reference through every
 * scavenge until the next full collection, dead or not. A window left as a tree keeps its pieces
 * and the page text behind them alive that way; flattened, only its own characters. In a one-worker
 * pool on OpenJDK pages this halved the bytes the worker's scavenges promote (160–195 against
 * 320–350 MB over 2,100 pages) and cut its full collections by a third.
 *
 * The unpacker decodes each string from the buffer on its own rather than slicing one decoded
 * string: V8 keeps a slice of 13 or more characters as a view of its parent, and a link's URL or
 * host name may live on in the frontier for hours, holding the whole page's characters (about 40
 * KB) alive with it.
 */
import { HtmlLinkKind } from '../../parse/html-page.js';
import type { GraphLink, PageAnalysis } from '../../parse/page-analysis.js';
import { TopicReason, type TopicLabel } from '../../classify/topic-labeler.js';
import { flatten } from '../../core/strings.js';

/** Link kinds by index; a kind missing here makes packing throw (the page is then not analysed). */
const LINK_KINDS: readonly GraphLink['kind'][] = [...Object.values(HtmlLinkKind), 'redirect'];
/** Topic reasons by index. */
const TOPIC_REASONS: readonly TopicReason[] = Object.values(TopicReason);

const HEADER_INTS = 7;
/** Strings before the directives: charset to topic category. */
const FIXED_STRINGS = 8;
const STRINGS_PER_LINK = 5;
/** Bytes before the Int32 header: the probability. */
const FLOAT_BYTES = 8;

const Flag = {
  isNoindex: 1,
  isNofollow: 2,
  hasCanonical: 4,
  hasTopic: 8,
  hasCategory: 16,
  hasProbability: 32,
  /** Characters are 2 bytes each. */
  isTwoByte: 64,
} as const;

/** Any character a Latin-1 byte cannot hold. */
const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/** Packs `a` into a buffer of its own, for {@link unpackAnalysis}. @throws Error on a link kind or topic reason it does not know. */
export function packAnalysis(a: PageAnalysis): ArrayBuffer {
  const { links, hostnames, robotsDirectives: directives, topic } = a;
  const n = links.length;
  const d = directives.length;
  if (hostnames.length !== n) throw new Error(`packAnalysis: ${n} links but ${hostnames.length} host names`);
  const stringCount = FIXED_STRINGS + d + STRINGS_PER_LINK * n;
  const ints = new Int32Array(HEADER_INTS + n + stringCount);
  const strings: string[] = [
    a.charset,
    a.language,
    a.simhash,
    a.textDigest,
    a.title,
    a.visibleText,
    a.canonical ?? '',
    topic?.category ?? '',
  ];
  for (const s of directives) strings.push(s);
  for (let i = 0; i < n; i++) {
    const l = links[i] as GraphLink;
    const kind = LINK_KINDS.indexOf(l.kind);
    if (kind < 0) throw new Error(`packAnalysis: unknown link kind ${l.kind}`);
    ints[HEADER_INTS + i] = (kind << 1) | (l.isNofollow ? 1 : 0);
    strings.push(l.url, l.anchorText, flatten(l.before), flatten(l.after), hostnames[i] as string);
  }
  const lengthsAt = HEADER_INTS + n;
  let chars = 0;
  for (let i = 0; i < stringCount; i++) {
    const length = (strings[i] as string).length;
    ints[lengthsAt + i] = length;
    chars += length;
  }
  const text = strings.join('');
  const isTwoByte = BEYOND_LATIN1.test(text);
  let flags = isTwoByte ? Flag.isTwoByte : 0;
  if (a.isNoindex) flags |= Flag.isNoindex;
  if (a.isNofollow) flags |= Flag.isNofollow;
  if (a.canonical !== null) flags |= Flag.hasCanonical;
  let reason = 0;
  if (topic !== null) {
    flags |= Flag.hasTopic;
    if (topic.category !== null) flags |= Flag.hasCategory;
    if (topic.probability !== null) flags |= Flag.hasProbability;
    reason = TOPIC_REASONS.indexOf(topic.reason);
    if (reason < 0) throw new Error(`packAnalysis: unknown topic reason ${topic.reason}`);
  }
  ints[0] = n;
  ints[1] = d;
  ints[2] = a.found;
  ints[3] = a.invalid;
  ints[4] = a.nofollow;
  ints[5] = flags;
  ints[6] = reason;
  const textAt = FLOAT_BYTES + ints.byteLength;
  // Not Buffer.alloc: a small buffer would come from Node's shared pool, which cannot be transferred.
  const out = Buffer.allocUnsafeSlow(textAt + (isTwoByte ? 2 * chars : chars));
  const buffer = out.buffer as ArrayBuffer;
  new Float64Array(buffer, 0, 1)[0] = topic?.probability ?? 0;
  new Int32Array(buffer, FLOAT_BYTES, ints.length).set(ints);
  out.write(text, textAt, isTwoByte ? 'utf16le' : 'latin1');
  return buffer;
}

/** The analysis packed in `buffer` by {@link packAnalysis}. @throws Error when the buffer is not one. */
export function unpackAnalysis(buffer: ArrayBuffer): PageAnalysis {
  const header = new Int32Array(buffer, FLOAT_BYTES, HEADER_INTS);
  const n = header[0] as number;
  const d = header[1] as number;
  const flags = header[5] as number;
  const stringCount = FIXED_STRINGS + d + STRINGS_PER_LINK * n;
  const intCount = HEADER_INTS + n + stringCount;
  const ints = new Int32Array(buffer, FLOAT_BYTES, intCount);
  const textAt = FLOAT_BYTES + 4 * intCount;
  const bytes = Buffer.from(buffer);
  const width = (flags & Flag.isTwoByte) === 0 ? 1 : 2;
  const encoding = width === 1 ? 'latin1' : 'utf16le';
  let chars = 0;
  for (let i = HEADER_INTS + n; i < intCount; i++) chars += ints[i] as number;
  if (textAt + width * chars !== buffer.byteLength)
    throw new Error(`unpackAnalysis: ${buffer.byteLength} bytes do not hold a packed analysis`);
  let next = HEADER_INTS + n;
  let at = textAt;
  // Each string decoded alone: see the file comment.
  const str = (): string => {
    const length = width * (ints[next++] as number);
    if (length === 0) return '';
    at += length;
    return bytes.toString(encoding, at - length, at);
  };
  const charset = str();
  const language = str();
  const simhash = str();
  const textDigest = str();
  const title = str();
  const visibleText = str();
  const canonical = str();
  const category = str();
  const robotsDirectives: string[] = [];
  for (let i = 0; i < d; i++) robotsDirectives.push(str());
  const links: GraphLink[] = [];
  const hostnames: string[] = [];
  for (let i = 0; i < n; i++) {
    const code = ints[HEADER_INTS + i] as number;
    const kind = LINK_KINDS[code >> 1];
    if (kind === undefined) throw new Error(`unpackAnalysis: link kind ${code >> 1}`);
    links.push({ url: str(), kind, anchorText: str(), before: str(), after: str(), isNofollow: (code & 1) === 1 });
    hostnames.push(str());
  }
  let topic: TopicLabel | null = null;
  if ((flags & Flag.hasTopic) !== 0) {
    const reason = TOPIC_REASONS[header[6] as number];
    if (reason === undefined) throw new Error(`unpackAnalysis: topic reason ${header[6]}`);
    topic = {
      category: (flags & Flag.hasCategory) === 0 ? null : category,
      probability: (flags & Flag.hasProbability) === 0 ? null : (new Float64Array(buffer, 0, 1)[0] as number),
      reason,
    };
  }
  return {
    charset,
    language,
    simhash,
    textDigest,
    title,
    visibleText,
    robotsDirectives,
    isNoindex: (flags & Flag.isNoindex) !== 0,
    isNofollow: (flags & Flag.isNofollow) !== 0,
    canonical: (flags & Flag.hasCanonical) === 0 ? null : canonical,
    links,
    hostnames,
    found: header[2] as number,
    invalid: header[3] as number,
    nofollow: header[4] as number,
    topic,
  };
}
