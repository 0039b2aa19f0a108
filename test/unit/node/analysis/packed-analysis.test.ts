/**
 * The packed page analysis (src/node/analysis/packed-analysis.ts): every analysis comes back equal
 * after pack and unpack, over random analyses built from awkward strings (empty, NUL, Latin-1,
 * beyond Latin-1, beyond the BMP, lone surrogates, very long) and over real analyses; the buffer can
 * be transferred; a buffer that is not a packed analysis, or a value the format cannot hold, throws.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packAnalysis, unpackAnalysis } from '../../../../src/node/analysis/packed-analysis.js';
import { analyzePage, type GraphLink, type PageAnalysis } from '../../../../src/parse/page-analysis.js';
import { HtmlLinkKind } from '../../../../src/parse/html-page.js';
import { TopicReason, type TopicLabel } from '../../../../src/classify/topic-labeler.js';
import { seededRandom as random } from '../../../helpers/random.js';

/** Pieces strings are made of; a string is one to four of them. */
const PIECES = [
  '',
  'a',
  'http://example.com/p?q=1&r=2#f',
  '\u0000',
  'nul\u0000inside',
  'café ÿ\u00a0\u00ff',
  '€ — “quoted” 中文 русский',
  '𝄞 non-BMP 😀',
  '\ud800',
  '\udfff',
  'lone \udc00 low then \ud83d high',
  '\ud83d',
  '\u0100',
  '\uffff\ufffe',
  ' \t\n\r ',
  'x'.repeat(100_000),
  'é'.repeat(70_000),
];

function stringOf(rnd: () => number): string {
  const count = 1 + Math.floor(rnd() * 4);
  let s = '';
  for (let i = 0; i < count; i++) s += PIECES[Math.floor(rnd() * PIECES.length)] as string;
  return s;
}

const LINK_KINDS: GraphLink['kind'][] = [...Object.values(HtmlLinkKind), 'redirect'];
const PROBABILITIES = [null, 0, -0, 1, 0.123456789012345, 1e-300, Number.MIN_VALUE, Number.NaN];

function topicOf(rnd: () => number): TopicLabel | null {
  if (rnd() < 0.3) return null;
  const reasons = Object.values(TopicReason);
  return {
    category: rnd() < 0.2 ? null : rnd() < 0.2 ? '' : stringOf(rnd),
    probability: PROBABILITIES[Math.floor(rnd() * PROBABILITIES.length)] as number | null,
    reason: reasons[Math.floor(rnd() * reasons.length)] as TopicReason,
  };
}

function analysisOf(rnd: () => number, isLatin1: boolean): PageAnalysis {
  // Some analyses hold only Latin-1 characters: the packer then stores one byte per character.
  const str = isLatin1 ? (): string => stringOf(rnd).replace(/[^\u0000-\u00ff]/g, '?') : (): string => stringOf(rnd);
  const n = Math.floor(rnd() * (rnd() < 0.1 ? 400 : 8));
  const links: GraphLink[] = [];
  const hostnames: string[] = [];
  for (let i = 0; i < n; i++) {
    links.push({
      url: str(),
      kind: LINK_KINDS[Math.floor(rnd() * LINK_KINDS.length)] as GraphLink['kind'],
      anchorText: str(),
      before: str(),
      after: str(),
      isNofollow: rnd() < 0.5,
    });
    hostnames.push(str());
  }
  const topic = topicOf(rnd);
  return {
    charset: str(),
    language: str(),
    simhash: str(),
    textDigest: str(),
    title: str(),
    visibleText: str(),
    robotsDirectives: Array.from({ length: Math.floor(rnd() * 4) }, str),
    isNoindex: rnd() < 0.5,
    isNofollow: rnd() < 0.5,
    canonical: rnd() < 0.3 ? null : rnd() < 0.2 ? '' : str(),
    links,
    hostnames,
    found: Math.floor(rnd() * 2 ** 31),
    invalid: Math.floor(rnd() * 1000),
    nofollow: Math.floor(rnd() * 1000),
    topic:
      topic === null || !isLatin1 || topic.category === null
        ? topic
        : { ...topic, category: topic.category.replace(/[^\u0000-\u00ff]/g, '?') },
  };
}

test('random analyses of awkward strings come back equal, Latin-1 ones in one byte per character', () => {
  const rnd = random(22);
  for (let i = 0; i < 300; i++) {
    const isLatin1 = i % 2 === 0;
    const a = analysisOf(rnd, isLatin1);
    const packed = packAnalysis(a);
    assert.deepStrictEqual(unpackAnalysis(packed), a, `case ${i}`);
    let chars = a.charset.length + a.language.length + a.simhash.length + a.textDigest.length + a.title.length + a.visibleText.length;
    chars += (a.canonical ?? '').length + (a.topic?.category ?? '').length;
    for (const d of a.robotsDirectives) chars += d.length;
    for (const [j, l] of a.links.entries())
      chars += l.url.length + l.anchorText.length + l.before.length + l.after.length + (a.hostnames[j] as string).length;
    // The numbers: 8 bytes, then 4 for each link, string and header field (7).
    const numberBytes = 8 + 4 * (7 + a.links.length + 8 + a.robotsDirectives.length + 5 * a.links.length);
    if (isLatin1) assert.equal(packed.byteLength, numberBytes + chars, `case ${i}: one byte per Latin-1 character`);
    else assert.ok(packed.byteLength === numberBytes + chars || packed.byteLength === numberBytes + 2 * chars, `case ${i}`);
  }
});

test('an empty analysis and one with every optional part come back equal', () => {
  const empty: PageAnalysis = {
    charset: '',
    language: '',
    simhash: '',
    textDigest: '',
    title: '',
    visibleText: '',
    robotsDirectives: [],
    isNoindex: false,
    isNofollow: false,
    canonical: null,
    links: [],
    hostnames: [],
    found: 0,
    invalid: 0,
    nofollow: 0,
    topic: null,
  };
  assert.deepStrictEqual(unpackAnalysis(packAnalysis(empty)), empty);
  const full: PageAnalysis = {
    ...empty,
    canonical: '',
    robotsDirectives: ['', 'noindex'],
    isNoindex: true,
    isNofollow: true,
    topic: { category: '', probability: 0, reason: TopicReason.classifier },
  };
  assert.deepStrictEqual(unpackAnalysis(packAnalysis(full)), full);
  // The one character beyond Latin-1 is the first one there.
  const justBeyond = { ...empty, title: 'ÿ\u0100ÿ' };
  assert.deepStrictEqual(unpackAnalysis(packAnalysis(justBeyond)), justBeyond);
});

test('real analyses come back equal, after a transfer', () => {
  const html = `<!doctype html><html lang="fr"><head><title>Été — ${'\ud83d\ude00'}</title><link rel=canonical href="/c">
<meta name=robots content="noarchive, nofollow"><meta http-equiv=refresh content="5; url=/r"></head><body>
<p>Le robot lit la page et suit <a href="/a?x=1&amp;y=é">le lien</a> puis <area href="/m"> et <iframe src="/f"></iframe>
<a href="http://[bad">cassé</a> <a href="//other.example/z" rel="nofollow ugc">ailleurs</a> ${'mot '.repeat(40)}</p></body></html>`;
  for (const body of [Buffer.from(html), Buffer.from(html.replace(/[^\u0000-\u007f]/g, 'e'))]) {
    for (const wantsText of [true, false]) {
      const a = analyzePage(
        { url: 'http://site.example/dir/page.html', body, contentType: 'text/html; charset=utf-8', wantsText },
        { anchorContextTokens: 10, maxLinks: 1000, maxTextChars: 100_000 },
      );
      assert.ok(a.links.length >= 4);
      const packed = packAnalysis(a);
      const moved = structuredClone(packed, { transfer: [packed] });
      assert.equal(packed.byteLength, 0, 'the buffer was moved, not copied');
      assert.deepStrictEqual(unpackAnalysis(moved), a);
    }
  }
});

test('a buffer that is not a packed analysis, or a value the format cannot hold, throws', () => {
  const a = analysisOf(random(7), true);
  const packed = packAnalysis({
    ...a,
    links: [{ url: 'u', kind: 'a', anchorText: '', before: '', after: '', isNofollow: false }],
    hostnames: ['h'],
  });
  assert.throws(() => unpackAnalysis(packed.slice(0, packed.byteLength - 1)), /do not hold a packed analysis/);
  assert.throws(() => unpackAnalysis(new ArrayBuffer(64)), Error);
  assert.throws(() => packAnalysis({ ...a, links: [], hostnames: ['h'] }), /0 links but 1 host names/);
  assert.throws(
    () =>
      packAnalysis({
        ...a,
        links: [{ url: 'u', kind: 'img' as 'a', anchorText: '', before: '', after: '', isNofollow: false }],
        hostnames: ['h'],
      }),
    /unknown link kind img/,
  );
  assert.throws(
    () => packAnalysis({ ...a, topic: { category: 'c', probability: null, reason: 'guess' as TopicReason } }),
    /unknown topic reason/,
  );
});
