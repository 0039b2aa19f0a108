/**
 * Writes a test-web page as HTML: head (charset, title, meta robots, canonical, base), navigation,
 * body text from the topic and language vocabularies with the content links inline, street
 * addresses on geographic pages, and a footer (which may lead into a crawler trap).
 * Deterministic: the same (seed, config, page, port) always gives the same string.
 */
import { flatten } from '../core/strings.js';
import { formatAddress, geoEntities } from './geo.js';
import { LinkKind, pageLinks, type PageLink } from './links.js';
import { PageFlag, PageKind, type WebModel } from './model.js';
import { Purpose, Rng } from '../core/prng.js';
import { textTape } from './text-tape.js';
import { capitalize, languageVocab, sameNameCities, type LanguageVocab } from './vocab.js';
import type { HostInfo } from './hosts.js';

/** A rendered page before encoding. */
export interface RenderedPage {
  readonly html: string;
  /** Charset the body must be encoded in (a WHATWG label). */
  readonly charset: string;
  /** Whether the Content-Type header names the charset (else `<meta>` does, or nothing). */
  readonly isCharsetInHeader: boolean;
  readonly hasBom: boolean;
}

/**
 * Titles of index pages, per model, by host index and local id: like their paths, index pages are
 * about 1/fanout of all pages and the targets of about half of all links (navigation, popularity).
 */
const indexTitleCache = new WeakMap<WebModel, (string | undefined)[][]>();

function indexTitlesOf(model: WebModel): (string | undefined)[][] {
  let titles = indexTitleCache.get(model);
  if (titles === undefined) {
    titles = [];
    indexTitleCache.set(model, titles);
  }
  return titles;
}

/** The title of page g (a few topic words, the city for geographic pages). */
export function pageTitle(model: WebModel, g: number, indexTitles = indexTitlesOf(model)): string {
  const h = model.hostOf(g);
  const local = g - h.firstPage;
  if (!model.isIndexPage(h, local)) return makeTitle(model, g);
  let titles = indexTitles[h.index];
  if (titles === undefined) {
    titles = [];
    indexTitles[h.index] = titles;
  }
  let title = titles[local];
  if (title === undefined) {
    title = flatten(makeTitle(model, g));
    titles[local] = title;
  }
  return title;
}

function makeTitle(model: WebModel, g: number): string {
  const cid = model.contentId(g);
  const src = model.pageKind[cid] === PageKind.nearDuplicate ? (model.pageRef[cid] as number) : cid;
  const rng = new Rng(model.config.seed, Purpose.pageTitle, src);
  const words = model.capitalizedVocabularies[model.vocabularyKey(src)] as readonly string[];
  const n = rng.range(2, 5);
  let title = words[rng.int(words.length)] as string;
  for (let i = 1; i < n; i++) title += ' ' + (words[rng.int(words.length)] as string);
  const city = model.pageCity[src] as number;
  if (city >= 0 && rng.chance(0.6)) {
    const c = model.cities[city];
    if (c !== undefined) title += rng.chance(0.5) ? ` in ${c.name}` : ` - ${c.name}, ${c.state}`;
  }
  return title;
}

/**
 * Relative reference from the directory of `from` to `to` (both absolute paths without empty
 * segments, as the test web writes them).
 */
export function relativePath(from: string, to: string): string {
  const fromDirEnd = from.lastIndexOf('/');
  const toDirEnd = to.lastIndexOf('/');
  // Longest common directory prefix, ending at a '/'.
  let common = 0;
  const limit = Math.min(fromDirEnd, toDirEnd);
  for (let i = 1; i <= limit; i++) {
    if (from.charCodeAt(i) !== to.charCodeAt(i)) break;
    if (from.charCodeAt(i) === 47) common = i;
  }
  let ups = 0;
  for (let i = common + 1; i <= fromDirEnd; i++) if (from.charCodeAt(i) === 47) ups++;
  const rel = '../'.repeat(ups) + to.slice(common + 1);
  return rel === '' ? './' : rel;
}

/** What writing the links of one page needs: the page, its link randomness, its server port. */
interface LinkWriter {
  readonly model: WebModel;
  readonly rng: Rng;
  readonly host: HostInfo;
  readonly ownPath: string;
  readonly port: number;
  /** Whether the page has `<base href="/">` (same-host links are then written root-relative). */
  readonly isBaseHref: boolean;
  /** Whether the page is written in UTF-8 (and so may name hosts in Unicode). */
  readonly isUtf8: boolean;
  /** `http://name:port` by host index, filled as used. */
  readonly origins: string[];
  /** The model's cache of index page titles. */
  readonly indexTitles: (string | undefined)[][];
}

/** Writes the href of a link to `target`, possibly in a non-normalized form. */
function href(w: LinkWriter, target: number): string {
  const { model, rng, port } = w;
  const c = model.config.links;
  const t = model.hostOf(target);
  const path = model.path(target);
  if (t.index === w.host.index) {
    if (w.isBaseHref) return path === '/' ? './' : path.slice(1);
    let out = rng.chance(c.relativeRate) ? relativePath(w.ownPath, path) : path;
    if (rng.chance(c.urlNoiseRate)) out = noisyPath(rng, out);
    return out;
  }
  // A page in a legacy charset cannot hold every letter of a Unicode host name (the encoder would
  // write '?'), so it names internationalized hosts in their ASCII form.
  const isUnicode = t.unicodeName !== t.name && rng.chance(0.5) && w.isUtf8;
  const hostText = isUnicode ? t.unicodeName : t.name;
  const portText = port === 80 ? (rng.chance(c.urlNoiseRate) ? ':80' : '') : `:${port}`;
  if (!rng.chance(c.urlNoiseRate)) {
    if (isUnicode || port === 80) return `http://${hostText}${portText}${path}`;
    let origin = w.origins[t.index];
    if (origin === undefined) {
      origin = flatten(`http://${t.name}:${port}`);
      w.origins[t.index] = origin;
    }
    return origin + path;
  }
  switch (rng.int(3)) {
    case 0:
      return `HTTP://${upperCaseHost(hostText)}${portText}${path}`;
    case 1:
      return `http://${hostText}${portText}${noisyPath(rng, path)}`;
    default:
      return `http://${capitalize(hostText)}${portText}${path}#top`;
  }
}

/** `http://name:port` of each host, per model and port (in every cross-host link). */
const originCache = new WeakMap<WebModel, { port: number; byHost: string[] }>();

function originsOf(model: WebModel, port: number): string[] {
  let o = originCache.get(model);
  if (o === undefined || o.port !== port) {
    o = { port, byHost: [] };
    originCache.set(model, o);
  }
  return o.byHost;
}

/** Upper case that names the same host: letters whose upper case is longer (ß -> SS) stay as they are. */
function upperCaseHost(name: string): string {
  return [...name].map((ch) => (ch.toUpperCase().length === 1 ? ch.toUpperCase() : ch)).join('');
}

/** A same-target variant of a path: fragment, escaped unreserved letter, or dot segments. */
function noisyPath(rng: Rng, path: string): string {
  switch (rng.int(3)) {
    case 0:
      return `${path}#section-${rng.range(1, 9)}`;
    case 1: {
      const i = path.search(/[a-z]/);
      return i < 0 ? path : `${path.slice(0, i)}%${path.charCodeAt(i).toString(16).toUpperCase()}${path.slice(i + 1)}`;
    }
    default:
      return path.startsWith('/') ? `/./${path.slice(1)}` : `./${path}`;
  }
}

/** Link text for a link to `target`. */
function anchorText(w: LinkWriter, vocab: LanguageVocab, target: number): { text: string; cityBefore: string } {
  const { model, rng } = w;
  const c = model.config.content;
  let text: string;
  const u = rng.next();
  if (u < c.anchorGenericRate) {
    text = rng.pick(vocab.anchors);
  } else if (u < c.anchorGenericRate + c.anchorTitleRate) {
    // Two to four consecutive words of the title, from a random word on (not the last alone).
    const title = pageTitle(model, target, w.indexTitles);
    let count = 1;
    for (let i = 0; i < title.length; i++) if (title.charCodeAt(i) === 32) count++;
    const start = rng.int(Math.max(1, count - 1));
    const n = rng.range(2, 4);
    let from = 0;
    for (let k = 0; k < start; k++) from = title.indexOf(' ', from) + 1;
    let end = from - 1;
    for (let k = 0; k < n; k++) {
      end = title.indexOf(' ', end + 1);
      if (end < 0) {
        end = title.length;
        break;
      }
    }
    text = title.slice(from, end);
  } else {
    const words = model.contentWords(model.contentId(target));
    text = `${rng.pick(words)} ${rng.pick(words)}`;
  }
  let cityBefore = '';
  const city = model.pageCity[model.contentId(target)] as number;
  if (city >= 0 && rng.chance(model.config.geo.anchorCityRate)) {
    const name = model.cities[city]?.name ?? '';
    if (rng.chance(0.5)) text = `${name} ${text}`;
    else cityBefore = name;
  }
  return { text, cityBefore };
}

/** `count` distinct positions in [0, total), for the edits of a near-duplicate. */
function editPositions(rng: Rng, count: number, total: number): Set<number> {
  const at = new Set<number>();
  while (at.size < Math.min(count, total)) at.add(rng.int(total));
  return at;
}

/** A different common word in place of a body word, keeping its capital and its full stop. */
function editedWord(rng: Rng, filler: readonly string[], word: string): string {
  const hasStop = word.endsWith('.');
  const bare = hasStop ? word.slice(0, -1) : word;
  const isCapital = bare !== '' && bare[0] !== bare[0]?.toLowerCase();
  let other = rng.pick(filler);
  while (other === bare.toLowerCase() || capitalize(other) === bare) other = rng.pick(filler);
  return (isCapital ? capitalize(other) : other) + (hasStop ? '.' : '');
}

/** Sorts a short list of numbers in place (insertion sort: a page has a few dozen events). */
function sortNumbers(a: number[]): void {
  for (let i = 1; i < a.length; i++) {
    const v = a[i] as number;
    let j = i - 1;
    while (j >= 0 && (a[j] as number) > v) {
      a[j + 1] = a[j] as number;
      j--;
    }
    a[j + 1] = v;
  }
}

/** Event kinds in a body, in the order they apply at one word position. */
const REPLACE = 0;
const LINK = 1;

/** Renders page g as served on `port`. Only for pages that serve content. */
export function renderPage(model: WebModel, g: number, port: number): RenderedPage {
  const cid = model.contentId(g);
  // An exact mirror serves its original's bytes: same-host links are written host-relative.
  if (cid !== g) return renderPage(model, cid, port);
  const cfg = model.config;
  const kind = model.pageKind[cid] as number;
  const isNearDup = kind === PageKind.nearDuplicate;
  const src = isNearDup ? (model.pageRef[cid] as number) : cid;
  const host = model.hostOf(g);
  const flags = model.pageFlags[cid] as number;
  const lang = model.langOf(g);
  const vocab = languageVocab(lang);
  const ownPath = model.path(g);
  const rng = new Rng(cfg.seed, Purpose.pageText, src);
  const linkRng = new Rng(cfg.seed, Purpose.pageText, src, 1);
  const { charset, isCharsetInHeader, hasBom } = pageCharset(model, cid, vocab);
  const lw: LinkWriter = {
    model,
    rng: linkRng,
    host,
    ownPath,
    port,
    isBaseHref: (flags & PageFlag.baseHref) !== 0,
    isUtf8: charset === '' || charset === 'utf-8',
    origins: originsOf(model, port),
    indexTitles: indexTitlesOf(model),
  };

  const title = pageTitle(model, g);
  const head: string[] = ['<!DOCTYPE html>', `<html lang="${lang}">`, '<head>'];
  if (!isCharsetInHeader && charset !== '') head.push(`<meta charset="${charset}">`);
  head.push(`<title>${title}</title>`);
  const robots = [(flags & PageFlag.noindex) !== 0 ? 'noindex' : '', (flags & PageFlag.nofollow) !== 0 ? 'nofollow' : ''].filter(Boolean);
  if (robots.length > 0) head.push(`<meta name="robots" content="${robots.join(', ')}">`);
  if (isNearDup && (flags & PageFlag.canonical) !== 0) head.push(`<link rel="canonical" href="${model.path(src)}">`);
  if ((flags & PageFlag.baseHref) !== 0) head.push('<base href="/">');
  head.push('</head>');

  const links = pageLinks(model, g);
  const nav: PageLink[] = [];
  const content: PageLink[] = [];
  for (const l of links) (l.kind === LinkKind.nav ? nav : content).push(l);
  const body: string[] = [
    '<body>',
    `<header><a href="${(flags & PageFlag.baseHref) !== 0 ? './' : '/'}">${capitalize(host.unicodeName)}</a></header>`,
  ];
  if (nav.length > 0) {
    body.push('<nav><ul>');
    for (const l of nav) body.push(`<li>${linkHtml(lw, l, pageTitle(model, l.target, lw.indexTitles))}</li>`);
    body.push('</ul></nav>');
  }
  body.push('<main>', `<h1>${title}</h1>`);
  const isShort = ((model.pageFlags[src] as number) & PageFlag.short) !== 0;
  const total = isShort ? rng.range(10, 40) : rng.range(cfg.content.minWords, cfg.content.maxWords);
  const tape = textTape(model, cfg.seed, model.vocabularyKey(src), vocab.filler, model.contentWords(src), cfg.content.topicWordShare);
  const city = model.pageCity[src] as number;
  const cityInfo = city >= 0 ? model.cities[city] : undefined;
  const mention = cityInfo === undefined ? noiseMention(model, rng) : null;
  // Where the text departs from the tape: words replaced (city mentions, edits of a
  // near-duplicate) and links written after a word, as position * 2 + kind, sorted.
  const replacements = new Map<number, string>();
  if (cityInfo !== undefined) {
    const mentions = Math.floor(total * 0.02 + rng.next());
    for (let i = 0; i < mentions; i++) {
      replacements.set(rng.int(total), rng.chance(0.4) ? `${cityInfo.name}, ${cityInfo.state}` : cityInfo.name);
    }
  } else if (mention !== null && total > 3) {
    replacements.set(3, mention);
  }
  const events: number[] = [];
  for (const pos of replacements.keys()) events.push(pos * 2 + REPLACE);
  for (let i = 0; i < content.length; i++) events.push(rng.int(total) * 2 + LINK);
  const editRng = isNearDup ? new Rng(cfg.seed, Purpose.nearDup, cid) : null;
  const edits = editRng === null ? null : editPositions(editRng, cfg.duplicates.nearDuplicateEdits, total);
  if (edits !== null) for (const pos of edits) if (!replacements.has(pos)) events.push(pos * 2 + REPLACE);
  sortNumbers(events);
  let written = 0;
  let linkIndex = 0;
  let e = 0;
  while (written < total) {
    const paraLen = Math.min(total - written, rng.range(40, 120));
    const from = tape.sentenceStart(rng.next(), paraLen);
    let para = '<p>';
    let next = 0; // paragraph word not yet written
    let endsWithStop = false; // whether the paragraph so far ends with a full stop
    const write = (upTo: number): void => {
      if (upTo <= next) return;
      para += (next === 0 ? '' : ' ') + tape.slice(from + next, upTo - next);
      endsWithStop = tape.endsWithStop(from + upTo - 1);
      next = upTo;
    };
    for (; e < events.length && (events[e] as number) >> 1 < written + paraLen; e++) {
      const ev = events[e] as number;
      const k = (ev >> 1) - written;
      if ((ev & 1) === REPLACE) {
        write(k);
        // Not a city or mention: an edit of a near-duplicate.
        const text = replacements.get(k + written) ?? editedWord(editRng as Rng, vocab.filler, tape.word(from + k));
        para += (k === 0 ? '' : ' ') + text;
        endsWithStop = text.endsWith('.');
        next = k + 1;
      } else {
        write(k + 1);
        const l = content[linkIndex++] as PageLink;
        const a = anchorText(lw, vocab, l.target);
        if (a.cityBefore !== '') para += ' in ' + a.cityBefore;
        para += ' ' + linkHtml(lw, l, a.text);
        endsWithStop = false;
      }
    }
    write(paraLen);
    written += paraLen;
    body.push(endsWithStop ? para + '</p>' : para + '.</p>');
  }
  while (linkIndex < content.length) {
    const l = content[linkIndex++] as PageLink;
    body.push(`<p>${linkHtml(lw, l, anchorText(lw, vocab, l.target).text)}</p>`);
  }
  for (const e of geoEntities(model, src)) body.push(`<address>${formatAddress(e)}</address>`);
  body.push('</main>', '<footer>');
  if ((flags & PageFlag.trapLink) !== 0 && host.trap !== null) body.push(trapLink(host, rng));
  const first = capitalize(rng.pick(vocab.filler));
  body.push(`<p>${first} ${rng.pick(vocab.filler)} ${rng.range(1998, 2026)}</p>`, '</footer>', '</body>', '</html>');
  return { html: `${head.join('\n')}\n${body.join('\n')}\n`, charset, isCharsetInHeader, hasBom };
}

function linkHtml(w: LinkWriter, l: PageLink, text: string): string {
  return '<a href="' + href(w, l.target) + (l.isNofollow ? '" rel="nofollow">' : '">') + text + '</a>';
}

/** A passing mention of a city on a non-geographic page (honest noise), or null. */
function noiseMention(model: WebModel, rng: Rng): string | null {
  if (!rng.chance(model.config.geo.mentionNoiseRate)) return null;
  const c = rng.pick(model.cities);
  if (rng.chance(model.config.geo.ambiguousRate)) {
    const other = sameNameCities(c.name);
    if (other.length > 0) {
      const o = rng.pick(other);
      return `${o.name}, ${o.state}`;
    }
  }
  return c.name;
}

function trapLink(host: HostInfo, rng: Rng): string {
  switch (host.trap) {
    case 'calendar':
      return `<a href="/calendar/${rng.range(2000, 2030)}/${rng.range(1, 12)}/">Calendar</a>`;
    case 'session':
      return `<a href="/s/${(rng.nextU32() >>> 0).toString(16)}/">Members</a>`;
    case 'repeat':
      return '<a href="/archive/">Archive</a>';
    case 'pagination':
      return '<a href="/q?p=1">All items</a>';
    default:
      return `<a href="/search?q=${rng.range(1, 999)}">Search</a>`;
  }
}

/** The charset of a page and where it is declared. */
export function pageCharset(
  model: WebModel,
  cid: number,
  vocab: LanguageVocab,
): { charset: string; isCharsetInHeader: boolean; hasBom: boolean } {
  const cfg = model.config.languages;
  const rng = new Rng(model.config.seed, Purpose.pageAttrs, cid, 2);
  const isLegacy = ((model.pageFlags[cid] as number) & PageFlag.legacyCharset) !== 0;
  const inHeader = rng.chance(cfg.headerDeclarationRate);
  if (isLegacy) {
    const charset = vocab.code === 'en' ? 'windows-1252' : rng.pick(vocab.charsets);
    return { charset, isCharsetInHeader: inHeader, hasBom: false };
  }
  if (rng.chance(cfg.undeclaredRate)) return { charset: '', isCharsetInHeader: false, hasBom: false };
  return { charset: 'utf-8', isCharsetInHeader: inHeader, hasBom: rng.chance(cfg.bomRate) };
}
