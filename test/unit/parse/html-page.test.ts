import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHtml as parseWith, parseRobotsDirectives, type ExtractedLink, type ParsedPage } from '../../../src/parse/html-page.js';

const PAGE_URL = 'http://example.test/dir/page.html';
const byHref = (p: ParsedPage, href: string): ExtractedLink => {
  const l = p.links.find((x) => x.href === href);
  assert.ok(l !== undefined, `no link ${href} in ${p.links.map((x) => x.href).join(' ')}`);
  return l;
};
const NO_SKIPS = { javascript: 0, mailto: 0, tel: 0, data: 0, empty: 0, fragment: 0, limit: 0 };

/**
 * Every case runs on both readers of HTML: the scanner (html-scanner.ts, the default) and
 * htmlparser2 (its fallback and oracle).
 */
for (const engine of ['scanner', 'htmlparser2'] as const) {
  const parseHtml = (html: string, pageUrl: string, options?: Parameters<typeof parseWith>[2]): ParsedPage =>
    parseWith(html, pageUrl, { ...options, engine });
  const parse = (html: string, options?: Parameters<typeof parseWith>[2]): ParsedPage => parseHtml(html, PAGE_URL, options);
  describe(`parseHtml with ${engine}`, () => {
    describe('parseHtml: a well-formed page', () => {
      const html = `<!DOCTYPE html>
<html lang="fr-CA">
<head>
  <meta charset="utf-8">
  <title>  Le   Petit
   Prince </title>
  <style>p { color: red }</style>
  <script>document.write("<a href='/in-script'>no</a>")</script>
</head>
<body>
  <h1>Chapitre un</h1>
  <p>Lorsque j'avais six ans j'ai vu, une fois, une <a href="/image.html">magnifique image</a> dans un livre.</p>
  <ul><li><a href="http://other.test/a">Autre</a></li><li><a href="b.html" title="t">Bé &amp; cé</a></li></ul>
</body>
</html>`;
      const p = parse(html);

      it('reads the title, the language and the visible text (head, script and style left out)', () => {
        assert.equal(p.title, 'Le Petit Prince');
        assert.equal(p.lang, 'fr-CA');
        assert.equal(
          p.visibleText,
          "Chapitre un\nLorsque j'avais six ans j'ai vu, une fois, une magnifique image dans un livre.\nAutre\nBé & cé",
        );
        assert.equal(p.isTextTruncated, false);
        assert.equal(p.tokenCount, 21);
      });

      it('lists the links in document order with anchor text', () => {
        assert.deepEqual(
          p.links.map((l) => [l.kind, l.href, l.anchorText]),
          [
            ['a', '/image.html', 'magnifique image'],
            ['a', 'http://other.test/a', 'Autre'],
            ['a', 'b.html', 'Bé & cé'],
          ],
        );
        assert.deepEqual(p.skipped, NO_SKIPS);
        assert.equal(p.baseHref, null);
        assert.equal(p.effectiveBase, PAGE_URL);
        assert.equal(p.canonical, null);
        assert.deepEqual(p.robots, { isNoindex: false, isNofollow: false, isNoarchive: false, isNosnippet: false, directives: [] });
      });

      it('gives each link its extended anchor text: 10 tokens before and after, across blocks and other links', () => {
        assert.deepEqual(byHref(p, '/image.html').extendedAnchorText, {
          before: 'j avais six ans j ai vu une fois une',
          after: 'dans un livre Autre Bé cé',
        });
        assert.deepEqual(byHref(p, 'b.html').extendedAnchorText, {
          before: 'vu une fois une magnifique image dans un livre Autre',
          after: '',
        });
      });

      it('records the position of each link', () => {
        const l = byHref(p, '/image.html');
        assert.ok(html.startsWith('<a href="/image.html"', l.offset));
        assert.equal(l.tokenIndex, 13, 'Chapitre un, then 11 words of the paragraph');
        assert.ok(html.startsWith('<a href="b.html"', byHref(p, 'b.html').offset));
      });
    });

    describe('parseHtml: extended anchor text', () => {
      const text =
        '<p><a href="/first">first link</a> one two three <a href="/mid">mid</a> four five six seven <a href="/last">last</a></p>';

      it('is empty before a link at the start and after a link at the end', () => {
        const p = parse(text, { anchorContextTokens: 3 });
        assert.deepEqual(byHref(p, '/first').extendedAnchorText, { before: '', after: 'one two three' });
        assert.deepEqual(byHref(p, '/mid').extendedAnchorText, { before: 'one two three', after: 'four five six' });
        assert.deepEqual(byHref(p, '/last').extendedAnchorText, { before: 'five six seven', after: '' });
      });

      it('takes what there is when the document is shorter than N, and N is configurable', () => {
        const p = parse(text);
        assert.deepEqual(byHref(p, '/first').extendedAnchorText, { before: '', after: 'one two three mid four five six seven last' });
        assert.deepEqual(byHref(p, '/mid').extendedAnchorText, { before: 'first link one two three', after: 'four five six seven last' });
        const one = parse(text, { anchorContextTokens: 1 });
        assert.deepEqual(byHref(one, '/mid').extendedAnchorText, { before: 'three', after: 'four' });
        const none = parse(text, { anchorContextTokens: 0 });
        assert.deepEqual(byHref(none, '/mid').extendedAnchorText, { before: '', after: '' });
      });

      it('counts words, not punctuation, and keeps words split by entities or inline tags whole', () => {
        const p = parse('<p>Caf&eacute; &mdash; au <b>l</b>ait, 42! <a href="/x">x</a> --- M&uuml;nchen <i>und</i> K&ouml;ln.</p>', {
          anchorContextTokens: 4,
        });
        assert.deepEqual(byHref(p, '/x').extendedAnchorText, { before: 'Café au lait 42', after: 'München und Köln' });
        assert.equal(p.visibleText, 'Café — au lait, 42! x --- München und Köln.');
      });

      it('treats letters beyond the BMP as letters and emoji as separators', () => {
        const p = parse('<p>𠀋字 emoji😀split 𝐁𝐨𝐥𝐝 <a href="/x">x</a></p>', { anchorContextTokens: 10 });
        assert.deepEqual(byHref(p, '/x').extendedAnchorText, { before: '𠀋字 emoji split 𝐁𝐨𝐥𝐝', after: '' });
      });

      it('separates words at block boundaries and <br>', () => {
        const p = parse('<div>alpha</div><div>beta<br>gamma</div><p>delta<a href="/x">x</a>epsilon</p>', { anchorContextTokens: 5 });
        assert.deepEqual(byHref(p, '/x').extendedAnchorText, { before: 'alpha beta gamma delta', after: 'epsilon' });
        assert.equal(p.visibleText, 'alpha\nbeta\ngamma\ndeltaxepsilon');
      });

      it('keeps waiting links until N tokens have passed, also many links in a row without text', () => {
        const imgs = Array.from({ length: 50 }, (_, i) => `<a href="/i${i}"><img src="i.png" alt=""></a>`).join('');
        const p = parse(`<p>a b c ${imgs} d e f g</p>`, { anchorContextTokens: 2 });
        assert.equal(p.links.length, 50);
        for (const l of p.links) assert.deepEqual(l.extendedAnchorText, { before: 'b c', after: 'd e' });
      });

      it('windows stay exact over a long page (the token buffer is trimmed as it goes)', () => {
        const words = Array.from({ length: 30_000 }, (_, i) => `w${i}`);
        const parts: string[] = [];
        for (let i = 0; i < words.length; i++) parts.push(i % 1000 === 500 ? `<a href="/l${i}">${words[i]}</a>` : (words[i] as string));
        const p = parse(`<p>${parts.join(' ')}</p>`, { anchorContextTokens: 3 });
        assert.equal(p.links.length, 30);
        for (const l of p.links) {
          const i = Number(l.href.slice(2));
          assert.deepEqual(l.extendedAnchorText, { before: words.slice(i - 3, i).join(' '), after: words.slice(i + 1, i + 4).join(' ') });
          assert.equal(l.tokenIndex, i);
        }
      });
    });

    describe('parseHtml: anchor text', () => {
      it('collapses white space and includes image alt text', () => {
        const p = parse('<a href="/x">\n  Read\n <b>more</b>  <img src="a.png" alt="about cats">\n</a><a href="/y"><img alt="Logo"></a>');
        assert.equal(byHref(p, '/x').anchorText, 'Read more about cats');
        assert.equal(byHref(p, '/y').anchorText, 'Logo');
        assert.equal(p.visibleText, 'Read more', 'alt text is not visible text');
      });

      it('uses alt for <area>, nothing for frames', () => {
        const p = parse(
          '<map><area href="/a" alt="North  wing"><area nohref alt="x"></map><iframe src="/f">fallback</iframe><frameset><frame src="/g"></frameset>',
        );
        assert.deepEqual(
          p.links.map((l) => [l.kind, l.href, l.anchorText]),
          [
            ['area', '/a', 'North wing'],
            ['frame', '/f', ''],
            ['frame', '/g', ''],
          ],
        );
        assert.equal(p.visibleText, '', 'iframe fallback is not visible text');
      });
    });

    describe('parseHtml: nofollow', () => {
      it('is set by rel nofollow, ugc or sponsored, in any case and among other tokens', () => {
        const p = parse(`
      <a href="/plain">a</a><a href="/nf" rel="nofollow">b</a><a href="/mixed" rel=" External  NoFollow ">c</a>
      <a href="/ugc" rel="ugc">d</a><a href="/sp" rel="sponsored noopener">e</a><a href="/other" rel="noopener noreferrer">f</a>
      <area href="/area" rel="nofollow">`);
        const nofollow = Object.fromEntries(p.links.map((l) => [l.href, l.isNofollow]));
        assert.deepEqual(nofollow, {
          '/plain': false,
          '/nf': true,
          '/mixed': true,
          '/ugc': true,
          '/sp': true,
          '/other': false,
          '/area': true,
        });
        assert.deepEqual(byHref(p, '/mixed').rel, ['external', 'nofollow']);
        assert.deepEqual(byHref(p, '/sp').rel, ['sponsored', 'noopener']);
        assert.deepEqual(byHref(p, '/plain').rel, []);
      });
    });

    describe('parseHtml: base href', () => {
      const page = (head: string): ParsedPage => parse(`<html><head>${head}</head><body><a href="x.html">x</a></body></html>`);

      it('resolves the page URL against the first <base href>', () => {
        assert.equal(page('<base href="/other/">').effectiveBase, 'http://example.test/other/');
        assert.equal(page('<base href="/other/">').baseHref, '/other/');
        assert.equal(page('<base href="http://cdn.test/root/index.html">').effectiveBase, 'http://cdn.test/root/index.html');
        assert.equal(page('<base href="../">').effectiveBase, 'http://example.test/');
        assert.equal(page('<base target="_blank"><base href="/first/"><base href="/second/">').effectiveBase, 'http://example.test/first/');
      });

      it('ignores a base that does not parse or is javascript:/data:, and reports it raw', () => {
        const bad = page('<base href="http://[::1">');
        assert.equal(bad.baseHref, 'http://[::1');
        assert.equal(bad.effectiveBase, PAGE_URL);
        assert.equal(page('<base href="javascript:alert(1)">').effectiveBase, PAGE_URL);
        assert.equal(page('<base href="data:text/html,x">').effectiveBase, PAGE_URL);
      });

      it('applies to links written before it, and the href stays raw', () => {
        const p = parse('<a href="early.html">e</a><base href="/b/">');
        assert.equal(p.effectiveBase, 'http://example.test/b/');
        assert.equal(p.links[0]?.href, 'early.html');
      });

      it('keeps the page URL as given when it does not parse', () => {
        assert.equal(parseHtml('<base href="/x/">', 'not a url').effectiveBase, 'not a url');
      });
    });

    describe('parseHtml: meta robots', () => {
      const robots = (head: string, names?: string[]): ParsedPage['robots'] =>
        parse(`<head>${head}</head><body>x</body>`, names === undefined ? {} : { robotsMetaNames: names }).robots;

      it('reads noindex, nofollow, none and noarchive, comma separated, case-insensitively', () => {
        assert.equal(robots('<meta name="robots" content="noindex">').isNoindex, true);
        assert.equal(robots('<meta name="robots" content="noindex">').isNofollow, false);
        assert.deepEqual(robots('<meta name="ROBOTS" content="NoIndex,NOFOLLOW">'), {
          isNoindex: true,
          isNofollow: true,
          isNoarchive: false,
          isNosnippet: false,
          directives: ['noindex', 'nofollow'],
        });
        const none = robots('<meta name="robots" content="none">');
        assert.equal(none.isNoindex && none.isNofollow, true);
        const mix = robots('<meta name="robots" content="index, follow, noarchive , nosnippet, max-snippet:20">');
        assert.deepEqual([mix.isNoindex, mix.isNofollow, mix.isNoarchive, mix.isNosnippet], [false, false, true, true]);
      });

      it('combines several tags, and agent tags only when named', () => {
        const both = robots('<meta name="robots" content="noarchive"><meta name="robots" content="nofollow">');
        assert.deepEqual([both.isNoindex, both.isNofollow, both.isNoarchive], [false, true, true]);
        assert.equal(robots('<meta name="googlebot" content="noindex">').isNoindex, false);
        assert.equal(robots('<meta name="shoal" content="noindex">').isNoindex, false);
        assert.equal(robots('<meta name="Shoal" content="noindex">', ['shoal']).isNoindex, true);
        assert.equal(robots('<meta name="robots">').isNoindex, false, 'no content, no directive');
      });

      it('splits X-Robots-Tag style values too', () => {
        assert.deepEqual(parseRobotsDirectives(' NoIndex ,  nofollow noarchive,,'), ['noindex', 'nofollow', 'noarchive']);
      });
    });

    describe('parseHtml: skipped links', () => {
      it('skips javascript:, mailto:, tel:, data:, empty hrefs and pure fragments, counting each reason', () => {
        const p = parse(`
      <a href="javascript:void(0)">1</a><a href=" JavaScript:go()">2</a><a href="java&#9;script:x">3</a>
      <a href="mailto:a@b.test">4</a><a href="MAILTO:b@c.test">5</a><a href="tel:+1555">6</a>
      <a href="data:text/html,hi">7</a><a href="">8</a><a href="  ">9</a><a href="#">10</a><a href="#top">11</a>
      <a href="/page#frag">12</a><a href="?q=1">13</a><a href="ftp://f.test/">14</a><a name="anchor">15</a><iframe src=""></iframe>`);
        assert.deepEqual(p.skipped, { javascript: 3, mailto: 2, tel: 1, data: 1, empty: 3, fragment: 2, limit: 0 });
        assert.deepEqual(
          p.links.map((l) => l.href),
          ['/page#frag', '?q=1', 'ftp://f.test/'],
        );
      });

      it('reads nonsense options as their defaults or bounds', () => {
        const p = parse('<p>a b</p><a href="/x">x</a><p>c d</p>', {
          anchorContextTokens: Number.NaN,
          maxLinks: -3,
          maxTextChars: Infinity,
        });
        assert.equal(p.links.length, 0);
        assert.equal(p.skipped.limit, 1);
        const q = parse('<p>a b</p><a href="/x">x</a><p>c d</p>', { anchorContextTokens: 1.7, maxLinks: Number.NaN });
        assert.deepEqual(q.links[0]?.extendedAnchorText, { before: 'b', after: 'c' });
      });

      it('counts links past maxLinks as limit', () => {
        const p = parse(Array.from({ length: 7 }, (_, i) => `<a href="/p${i}">p</a>`).join(''), { maxLinks: 5 });
        assert.equal(p.links.length, 5);
        assert.equal(p.skipped.limit, 2);
      });
    });

    describe('parseHtml: other links and page facts', () => {
      it('reports the first canonical raw, <link rel> alternates, and meta refresh targets', () => {
        const p = parse(`<head>
      <link rel="canonical" href=" /canonical?a=1&amp;b=2 "><link rel="canonical" href="/second">
      <link rel="stylesheet" href="/s.css"><link rel="alternate stylesheet" href="/alt.css"><link rel="icon" href="/i.ico">
      <link rel="alternate" hreflang="de" href="/de/"><link rel="next" href="/page2"><link rel="prev" href="/page0">
      <meta http-equiv="refresh" content="5; URL='/moved'">
      </head><body>text</body>`);
        assert.equal(p.canonical, '/canonical?a=1&b=2');
        assert.deepEqual(
          p.links.map((l) => [l.kind, l.href]),
          [
            ['link', '/de/'],
            ['link', '/page2'],
            ['link', '/page0'],
            ['refresh', '/moved'],
          ],
        );
      });

      it('takes the language from <html lang>, else Content-Language', () => {
        assert.equal(parse('<html lang=" pt-BR "><body>x').lang, 'pt-BR');
        assert.equal(parse('<head><meta http-equiv="Content-Language" content="nl, en"></head>').lang, 'nl');
        assert.equal(parse('<p>x</p>').lang, '');
      });

      it('keeps noscript links but not its text, and ignores template contents', () => {
        const p = parse(
          '<p>before</p><noscript><a href="/ns">No script</a> please enable</noscript><template><a href="/t">t</a><p>hidden</p></template><p>after</p>',
        );
        assert.deepEqual(
          p.links.map((l) => [l.href, l.anchorText]),
          [['/ns', 'No script']],
        );
        assert.equal(p.visibleText, 'before\nafter');
        assert.deepEqual(byHref(p, '/ns').extendedAnchorText, { before: 'before', after: 'after' });
      });

      it('leaves svg titles out of the page title', () => {
        const p = parse('<body><svg><title>icon</title></svg><title>Real</title>');
        assert.equal(p.title, 'Real');
      });
    });

    describe('parseHtml: broken HTML', () => {
      it('closes an open link when another starts (nested anchors)', () => {
        const p = parse('<p><a href="/outer">outer <a href="/inner">inner</a> tail</a> end</p>', { anchorContextTokens: 2 });
        assert.deepEqual(
          p.links.map((l) => [l.href, l.anchorText]),
          [
            ['/outer', 'outer'],
            ['/inner', 'inner'],
          ],
        );
        assert.deepEqual(byHref(p, '/outer').extendedAnchorText, { before: '', after: 'inner tail' });
        assert.deepEqual(byHref(p, '/inner').extendedAnchorText, { before: 'outer', after: 'tail end' });
        const deep = parse('<a href="/o">o<b><a href="/i">i</b>after</a>');
        assert.deepEqual(
          deep.links.map((l) => [l.href, l.anchorText]),
          [
            ['/o', 'o'],
            ['/i', 'i'],
          ],
        );
      });

      it("ends an unclosed link at its parent's end, or at the end of the document", () => {
        const p = parse('<div><a href="/u">unclosed text</div><p>outside</p><p><a href="/eof">to the end');
        assert.deepEqual(
          p.links.map((l) => [l.href, l.anchorText]),
          [
            ['/u', 'unclosed text'],
            ['/eof', 'to the end'],
          ],
        );
        assert.deepEqual(byHref(p, '/u').extendedAnchorText.after, 'outside to the end');
      });

      it('reads unquoted, single-quoted and duplicate attributes (the first wins), upper-case tags', () => {
        const p = parse('<A HREF=/one REL=nofollow>One</A><a href=\'/two\' href="/dup">Two</a><a href=/three/>Three</a>');
        assert.deepEqual(
          p.links.map((l) => [l.href, l.isNofollow]),
          [
            ['/one', true],
            ['/two', false],
            ['/three/', false],
          ],
        );
      });

      it('survives stray brackets, unclosed comments and scripts, and a body without a head', () => {
        assert.equal(parse('<p>1 < 2 and 3 > 2 <a href="/x">x</a></p>').links.length, 1);
        assert.equal(parse('<p>1 < 2 and 3 > 2</p>').visibleText, '1 < 2 and 3 > 2');
        const comment = parse('<p>seen</p><!-- <a href="/c">c</a> never closed');
        assert.deepEqual([comment.visibleText, comment.links.length], ['seen', 0]);
        const script = parse('<p>seen</p><script>var x = "<a href=/s>"; never closed');
        assert.deepEqual([script.visibleText, script.links.length], ['seen', 0]);
        const headless = parse('<title>T</title><p>body text</p>');
        assert.deepEqual([headless.title, headless.visibleText], ['T', 'body text']);
        const unclosedHead = parse('<html><head><title>T</title><p>in body</p>');
        assert.equal(unclosedHead.visibleText, 'in body', 'text and body elements end the head');
        assert.equal(parse('<head>stray text<meta name="robots" content="noindex"></head>').visibleText, 'stray text');
      });

      it('never throws on garbage, and keeps its limits', () => {
        const pieces = [
          '<a href="/x">',
          '</a>',
          '<a',
          ' href=',
          '"',
          "'",
          '<',
          '>',
          '/',
          '<!--',
          '-->',
          '<script>',
          '</script>',
          '<p>',
          '</div>',
          'word',
          ' ',
          '&amp',
          '&#x',
          ';',
          '<base href="',
          '<meta name=robots content=',
          '<![CDATA[',
          ']]>',
          '<svg>',
          '<title>',
          '</title>',
          '<noscript>',
          '<template>',
          '<area href=/a>',
          '<iframe src=/f>',
          '\u0000',
          'é',
        ];
        let seed = 12345;
        const next = (): number => {
          seed = (seed * 1103515245 + 12345) % 2147483648;
          return seed;
        };
        for (let round = 0; round < 300; round++) {
          let html = '';
          for (let i = next() % 200; i > 0; i--) html += pieces[next() % pieces.length];
          const p = parseHtml(html, 'http://example.test/', { anchorContextTokens: 3, maxLinks: 20, maxTextChars: 100 });
          assert.ok(p.links.length <= 20);
          assert.ok(p.visibleText.length <= 100);
          for (const l of p.links) {
            assert.ok(l.extendedAnchorText.before.split(' ').filter(Boolean).length <= 3);
            assert.ok(l.extendedAnchorText.after.split(' ').filter(Boolean).length <= 3);
          }
        }
      });
    });

    describe('parseHtml: a huge page', () => {
      it('caps the visible text and the links, and still reads to the end', () => {
        const para = '<p>lorem ipsum dolor sit amet <a href="/l">link</a> consectetur adipiscing elit</p>\n';
        const html = `<title>Big</title>${para.repeat(40_000)}<p>final words <a href="/end">end</a></p>`;
        assert.ok(html.length > 3_000_000);
        const p = parseHtml(html, PAGE_URL, { maxTextChars: 10_000, maxLinks: 1000 });
        assert.equal(p.title, 'Big');
        assert.equal(p.isTextTruncated, true);
        assert.equal(p.visibleText.length, 10_000);
        assert.equal(p.links.length, 1000);
        assert.equal(p.skipped.limit, 40_001 - 1000);
        assert.equal(p.tokenCount, 40_000 * 9 + 3);
        const full = parseHtml(html, PAGE_URL, { maxTextChars: 10_000_000 });
        assert.equal(full.links.length, 10_000, 'default maxLinks');
        assert.equal(full.isTextTruncated, false);
        assert.ok(full.visibleText.endsWith('final words end'));
      });
    });
  });
}
