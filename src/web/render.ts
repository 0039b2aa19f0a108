/**
 * Writes a test-web page as HTML: head (charset, title, meta robots, canonical, base), navigation,
 * body text from the topic and language vocabularies with the content links inline, street
 * addresses on geographic pages, and a footer (which may lead into a crawler trap).
 * Deterministic: the same (seed, config, page, port) always gives the same string.
 */
import { formatAddress, geoEntities } from './geo.js';
import { LinkKind, pageLinks, type PageLink } from './links.js';
import { PageFlag, PageKind, type WebModel } from './model.js';
import { Purpose, Rng } from './prng.js';
import { capitalize, capitalizedWords, sameNameCities, languageVocab, type LanguageVocab } from './vocab.js';
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

/** The title of page g (a few topic words, the city for geographic pages). */
export function pageTitle(model: WebModel, g: number): string {
  const cid = model.contentId(g);
  const src = model.pageKind[cid] === PageKind.nearDuplicate ? (model.pageRef[cid] as number) : cid;
  const rng = new Rng(model.config.seed, Purpose.pageTitle, src);
  const words = capitalizedWords(model.contentWords(src));
  const n = rng.range(2, 5);
  let title = words[rng.int(words.length)] as string;
  for (let i = 1; i < n; i++) title += ` ${words[rng.int(words.length)] as string}`;
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

/** Writes the href of a link from page g to `target`, possibly in a non-normalized form. */
function href(model: WebModel, rng: Rng, g: number, ownPath: string, target: number, port: number): string {
  const c = model.config.links;
  const h = model.hostOf(g);
  const t = model.hostOf(target);
  const path = model.path(target);
  if (t.index === h.index) {
    if (((model.pageFlags[model.contentId(g)] as number) & PageFlag.baseHref) !== 0) {
      return path === '/' ? './' : path.slice(1);
    }
    let out = rng.chance(c.relativeRate) ? relativePath(ownPath, path) : path;
    if (rng.chance(c.urlNoiseRate)) out = noisyPath(rng, out);
    return out;
  }
  // A page in a legacy charset cannot hold every letter of a Unicode host name (the encoder would
  // write '?'), so it names internationalized hosts in their ASCII form.
  const isUnicode = t.unicodeName !== t.name && rng.chance(0.5) && isUtf8Page(model, g);
  const hostText = isUnicode ? t.unicodeName : t.name;
  const portText = port === 80 ? (rng.chance(c.urlNoiseRate) ? ':80' : '') : `:${port}`;
  if (!rng.chance(c.urlNoiseRate)) return `http://${hostText}${portText}${path}`;
  switch (rng.int(3)) {
    case 0: return `HTTP://${upperCaseHost(hostText)}${portText}${path}`;
    case 1: return `http://${hostText}${portText}${noisyPath(rng, path)}`;
    default: return `http://${capitalize(hostText)}${portText}${path}#top`;
  }
}

/** Whether page g is written in UTF-8 (declared or not). */
function isUtf8Page(model: WebModel, g: number): boolean {
  const cid = model.contentId(g);
  const charset = pageCharset(model, cid, languageVocab(model.langOf(g))).charset;
  return charset === '' || charset === 'utf-8';
}

/** Upper case that names the same host: letters whose upper case is longer (ß -> SS) stay as they are. */
function upperCaseHost(name: string): string {
  return [...name].map((ch) => (ch.toUpperCase().length === 1 ? ch.toUpperCase() : ch)).join('');
}

/** A same-target variant of a path: fragment, escaped unreserved letter, or dot segments. */
function noisyPath(rng: Rng, path: string): string {
  switch (rng.int(3)) {
    case 0: return `${path}#section-${rng.range(1, 9)}`;
    case 1: {
      const i = path.search(/[a-z]/);
      return i < 0 ? path : `${path.slice(0, i)}%${path.charCodeAt(i).toString(16).toUpperCase()}${path.slice(i + 1)}`;
    }
    default: return path.startsWith('/') ? `/./${path.slice(1)}` : `./${path}`;
  }
}

/** Link text for a link to `target`. */
function anchorText(model: WebModel, rng: Rng, vocab: LanguageVocab, target: number): { text: string; cityBefore: string } {
  const c = model.config.content;
  let text: string;
  const u = rng.next();
  if (u < c.anchorGenericRate) {
    text = rng.pick(vocab.anchors);
  } else if (u < c.anchorGenericRate + c.anchorTitleRate) {
    const words = pageTitle(model, target).split(' ');
    const start = rng.int(Math.max(1, words.length - 1));
    text = words.slice(start, start + rng.range(2, 4)).join(' ');
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

/** Body word source: filler and topic words; a near-duplicate replaces the words at `edits`. */
class WordSource {
  private index = 0;
  constructor(
    private readonly rng: Rng,
    private readonly filler: readonly string[],
    private readonly topic: readonly string[],
    private readonly topicShare: number,
    private readonly edits: { readonly rng: Rng; readonly at: ReadonlySet<number> } | null,
  ) {}
  next(): string {
    const w = this.rng.chance(this.topicShare) ? this.rng.pick(this.topic) : this.rng.pick(this.filler);
    if (this.edits !== null && this.edits.at.has(this.index++)) {
      let other = this.edits.rng.pick(this.filler);
      while (other === w) other = this.edits.rng.pick(this.filler);
      return other;
    }
    return w;
  }
}

/** `count` distinct positions in [0, total), for the edits of a near-duplicate. */
function editPositions(rng: Rng, count: number, total: number): Set<number> {
  const at = new Set<number>();
  while (at.size < Math.min(count, total)) at.add(rng.int(total));
  return at;
}

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
  const nav = links.filter((l) => l.kind === LinkKind.nav);
  const content = links.filter((l) => l.kind !== LinkKind.nav);
  const body: string[] = ['<body>', `<header><a href="${(flags & PageFlag.baseHref) !== 0 ? './' : '/'}">${capitalize(host.unicodeName)}</a></header>`];
  if (nav.length > 0) {
    body.push('<nav><ul>');
    for (const l of nav) body.push(`<li>${linkHtml(model, linkRng, g, ownPath, l, port, pageTitle(model, l.target))}</li>`);
    body.push('</ul></nav>');
  }
  body.push('<main>', `<h1>${title}</h1>`);
  const isShort = ((model.pageFlags[src] as number) & PageFlag.short) !== 0;
  const total = isShort ? rng.range(10, 40) : rng.range(cfg.content.minWords, cfg.content.maxWords);
  const editRng = new Rng(cfg.seed, Purpose.nearDup, cid);
  const words = new WordSource(rng, vocab.filler, model.contentWords(src), cfg.content.topicWordShare,
    isNearDup ? { rng: editRng, at: editPositions(editRng, cfg.duplicates.nearDuplicateEdits, total) } : null);
  const city = model.pageCity[src] as number;
  const cityInfo = city >= 0 ? model.cities[city] : undefined;
  const mention = cityInfo === undefined ? noiseMention(model, rng) : null;
  let written = 0;
  let linkIndex = 0;
  while (written < total) {
    let para = '';
    const paraLen = Math.min(total - written, rng.range(40, 120));
    let sentence = 0;
    for (let i = 0; i < paraLen; i++) {
      let w = words.next();
      if (sentence === 0) w = capitalize(w);
      const u = rng.next();
      if (cityInfo !== undefined && u < 0.02) w = u < 0.008 ? `${cityInfo.name}, ${cityInfo.state}` : cityInfo.name;
      else if (mention !== null && i === 3 && written === 0) w = mention;
      else if (u > 0.985) w = String(Math.floor((u - 0.985) * 135_000));
      sentence++;
      if (sentence > 6 && u > 0.3 && u < 0.42) {
        w += '.';
        sentence = 0;
      }
      para += para === '' ? w : ` ${w}`;
      const remainingLinks = content.length - linkIndex;
      if (remainingLinks > 0 && rng.chance(remainingLinks / Math.max(1, total - written - i))) {
        const l = content[linkIndex++] as PageLink;
        const a = anchorText(model, linkRng, vocab, l.target);
        if (a.cityBefore !== '') para += ` in ${a.cityBefore}`;
        para += ` ${linkHtml(model, linkRng, g, ownPath, l, port, a.text)}`;
      }
    }
    written += paraLen;
    body.push(`<p>${para}.</p>`);
  }
  while (linkIndex < content.length) {
    const l = content[linkIndex++] as PageLink;
    body.push(`<p>${linkHtml(model, linkRng, g, ownPath, l, port, anchorText(model, linkRng, vocab, l.target).text)}</p>`);
  }
  for (const e of geoEntities(model, src)) body.push(`<address>${formatAddress(e)}</address>`);
  body.push('</main>', '<footer>');
  if ((flags & PageFlag.trapLink) !== 0 && host.trap !== null) body.push(trapLink(host, rng));
  body.push(`<p>${capitalize(words.next())} ${words.next()} ${rng.range(1998, 2026)}</p>`, '</footer>', '</body>', '</html>');
  return { html: `${head.join('\n')}\n${body.join('\n')}\n`, charset, isCharsetInHeader, hasBom };
}

function linkHtml(model: WebModel, rng: Rng, g: number, ownPath: string, l: PageLink, port: number, text: string): string {
  const rel = l.isNofollow ? ' rel="nofollow"' : '';
  return `<a href="${href(model, rng, g, ownPath, l.target, port)}"${rel}>${text}</a>`;
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
    case 'calendar': return `<a href="/calendar/${rng.range(2000, 2030)}/${rng.range(1, 12)}/">Calendar</a>`;
    case 'session': return `<a href="/s/${(rng.nextU32() >>> 0).toString(16)}/">Members</a>`;
    case 'repeat': return '<a href="/archive/">Archive</a>';
    default: return `<a href="/search?q=${rng.range(1, 999)}">Search</a>`;
  }
}

/** The charset of a page and where it is declared. */
export function pageCharset(model: WebModel, cid: number, vocab: LanguageVocab): { charset: string; isCharsetInHeader: boolean; hasBom: boolean } {
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
