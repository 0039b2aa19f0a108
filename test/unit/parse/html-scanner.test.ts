/**
 * The scanner (src/parse/html-scanner.ts) against its oracle, htmlparser2: on every document here,
 * `parseHtml` must give the same page (title, text, windows, links, robots, base)
 * whichever reads the HTML. The cases are the constructs whose rules are easy to get wrong, random
 * documents made of them, and the pages of the built-in test web. Real
 * documentation sites are compared in test/e2e/parse-oracle.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseHtml, type ParsedPage } from '../../../src/parse/html-page.js';
import { scanHtml, type ScanHandler } from '../../../src/parse/html-scanner.js';
import { renderPage } from '../../../src/web/render.js';
import { WebModel, servesContent } from '../../../src/web/model.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';

const URL = 'http://example.test/a/page.html';
/**
 * A page without its links' offsets: htmlparser2 places a tag after the end of the node before it,
 * which is not its `<` when that node's end tag has spaces before its `>`; the scanner's offsets
 * are checked on their own (each is a `<`).
 */
const withoutOffsets = (p: ParsedPage): ParsedPage => ({ ...p, links: p.links.map((l) => ({ ...l, offset: 0 })) });
/** Whether `agree` compared the scanner itself (it did not hand the page to htmlparser2). */
const agree = (html: string, note = html): boolean => {
  const scanned = parseHtml(html, URL);
  const oracle = parseHtml(html, URL, { engine: 'htmlparser2' });
  const where = JSON.stringify(note.slice(0, 300));
  assert.deepStrictEqual(withoutOffsets(scanned), withoutOffsets(oracle), `the scanner and htmlparser2 disagree on ${where}`);
  const isScanned = scanHtml(html, { onopentag() {}, onclosetag() {}, ontext() {} }, new Set());
  if (isScanned) for (const l of scanned.links) assert.equal(html.charAt(l.offset), '<', `offset ${l.offset} of ${l.href} in ${where}`);
  return isScanned;
};

/** Documents whose rules differ from the plain case, each with links and text around the construct. */
const CASES: readonly string[] = [
  '<p>one <a href="/x">two</a> three',
  '<A HREF="/X" REL="NoFollow">Up</A> <IMG SRC=i ALT=alt>',
  '<a href=/u1 title=t>x</a><a href = "/u2" >y</a><a href=\'/u3\'>z</a><a href>empty</a><a data-x href="/u4"/>w',
  '<a href="/q?a=1&amp;b=2&copy=3&notit;">e &amp; f &lt;g&gt; &copy2 &#x41;&#65;&bogus;</a>',
  '<a href=/a>one<a href=/b>two</a>three</a>four',
  '<div><a href=/open>never closed</div> after <a href=/next>next</a>',
  '<p>para<p>para2<ul><li>i<li>j</ul><table><tr><td>c<td>d<tr><th>e</table>',
  'text</p>more</br>after<br/>x</image><image src=a alt=b>',
  '<form><a href=/f1>f</a><form><a href=/f2>g</a></form>h</form>',
  '<!-- <a href=/hidden> --> <!--> <a href=/v1>v</a> <!---> <!----> <!-- a --!> <a href=/v2>w</a> <!-- x --!x --> y',
  '<!DOCTYPE html><!doctype html><!x><!><? php ?><![CDATA[ <a href=/cdata> ]]><![if x]>z<a href=/v3>v</a><![CDAT>y<![>',
  '</ not a tag><a href=/t1>t</a></>x</3>y<3 z < q <a href=/t2>u</a>',
  '<script>document.write("<a href=/s>")</script ><a href=/after>a</a><SCRIPT type=x>if (a</b) {}</scriptx></SCRIPT>',
  '<style>a{}</style><textarea><a href=/ta>&amp;</a></textarea><title>T &amp; <b>t</b></title><a href=/t>x</a>',
  '<iframe src=/frame>inner <a href=/no>no</a></iframe><noembed><a href=/ne></noembed><noframes>x</noframes>',
  '<title/>abc</title><script/>var x = "<a href=/in>";</script><a href=/out>o</a>',
  '<svg><a href=/in-svg>s</a><circle r=1/><title>Not the title</title><style>x</style><script/>after</svg><a href=/x>x</a>',
  '<svg/><p>after svg</p><math><mi><script>1</script></mi><a href=/m>m</a></math><svg><foreignObject><p>p</p><script>s</script></foreignObject></svg>',
  '<svg><image href=/img.svg /><foreignobject><title>f</title></foreignobject><desc><a href=/d>d</a></desc></svg><image src=/j>',
  '<html lang=" de "><head><meta name=robots content="NOINDEX, nofollow"><base href="/base/"><link rel=canonical href=/c>' +
    '<link rel="next stylesheet" href=/n><link rel=alternate href=/alt title="Alt"><meta http-equiv=refresh content="0; url=\'/r\'"></head>',
  '<head> <title>t</title>\n <meta http-equiv=content-language content="fr, en"> </head> x <a href=/h>h</a>',
  '<noscript><a href=/ns>no script</a></noscript><template><a href=/tpl>t</a></template>',
  '<area href=/area alt="Area alt"><frame src=/fr><a href="javascript:x()">j</a><a href="mailto:a@b">m</a><a href="#top">t</a><a href="">e</a>',
  '<a href=/dup1 href=/dup2 HREF=/dup3>d</a><a href="  /spaced  ">s</a><a href=/tab\tx=1>t</a>',
  '<a href=/lone<b>b</b><a href=/weird>"quote</a><a href=/eq =x>e</a><a/href=/slash>s</a><a href=/sc/ >c</a>',
  '<p>word<b>part</b>word <a href=/w>w</a> tail & more &amp text',
  '<body><head><title>late</title></head><a href=/late>l</a></body></html><a href=/after-html>a</a>',
  '<div\n class="x"\n><a\nhref="/newline"\n>n</a\n></div\n>',
  '<p>\u00e9t\u00e9 \u{1F600} <a href="/\u00fcml">\u00fcber</a> \u4e2d\u6587</p>',
  '<a href=/x>unterminated at the end',
  '',
  'just text',
];

describe('the HTML scanner against htmlparser2', () => {
  it('gives the same page on every tricky construct', () => {
    const handed = CASES.filter((html) => !agree(html));
    assert.deepStrictEqual(handed, [], 'pages the scanner handed on');
  });

  it('gives the same page on 3,000 random documents made of those constructs', () => {
    const parts = [
      ...CASES,
      '<a href=/r>',
      '</a>',
      '<p>',
      '</p>',
      '<li>',
      '</div>',
      '<svg>',
      '</svg>',
      '<br/>',
      ' word ',
      '&amp;',
      '&',
      '<',
      '>',
      '/>',
      '<!--',
      '-->',
      '<script>',
      '</script>',
      '<title>',
      '</title>',
      '<td>',
      '<form>',
      '</form>',
      '<img alt=i>',
      '<math>',
      '<desc>',
      '</desc>',
      '"',
      "'",
      '=',
      '<a href="/q',
    ];
    let seed = 20261206;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed % n;
    };
    let scanned = 0;
    for (let d = 0; d < 3000; d++) {
      let html = '';
      const count = 1 + random(12);
      for (let k = 0; k < count; k++) html += parts[random(parts.length)];
      if (agree(html)) scanned++;
    }
    assert.ok(scanned > 1500, `the scanner read only ${scanned} of the documents itself`);
  });

  it('gives the same page on the test web (near-duplicates, meta robots, traps, charsets)', () => {
    let compared = 0;
    for (const preset of ['tiny', 'hostile', 'community'] as const) {
      const model = new WebModel({ ...WEB_PRESETS[preset], seed: 7 });
      for (let g = 0; g < model.pageCount; g++) {
        if (!servesContent(model.pageKind[g] as number)) continue;
        agree(renderPage(model, g, 8080).html, `${preset} test web page ${g}`);
        compared++;
      }
    }
    assert.ok(compared > 1000, `only ${compared} pages compared`);
  });

  it('hands what it does not model to htmlparser2, which then reads the whole page', () => {
    const events: string[] = [];
    const handler: ScanHandler = {
      onopentag: (name) => events.push(`<${name}>`),
      onclosetag: (name) => events.push(`</${name}>`),
      ontext: (text) => events.push(text),
    };
    for (const html of [
      '<p>a<plaintext><a href=/x>',
      'a <xmp><a href=/y></xmp>',
      '<p>a <a href="/cut',
      '<p>a <!doctype',
      '<script>never closed',
      '<p>x</p',
    ]) {
      assert.equal(scanHtml(html, handler, new Set()), false, html);
      agree(html);
    }
    assert.equal(scanHtml('<p>a</p>', handler, new Set()), true);
    const plain = parseHtml('<p>text <plaintext><a href=/z>z</a>', URL);
    assert.deepStrictEqual(
      plain.links.map((l) => l.href),
      [],
      'plaintext makes the rest text, as htmlparser2 reads it',
    );
  });

  it('reads attributes only of the elements asked for', () => {
    const seen: Record<string, Record<string, string>> = {};
    scanHtml(
      '<a href=/x class=c><div id=d data-x=1>t</div>',
      { onopentag: (n, a) => (seen[n] = a), onclosetag() {}, ontext() {} },
      new Set(['a']),
    );
    assert.deepStrictEqual(seen, { a: { href: '/x', class: 'c' }, div: {} });
  });
});
