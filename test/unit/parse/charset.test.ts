import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import {
  bomCharset,
  charsetFromMetaContent,
  contentTypeCharset,
  decodeHtml,
  detectCharset,
  normalizeCharsetLabel,
  prescanMetaCharset,
} from '../../../src/parse/charset.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
const BOM8 = [0xef, 0xbb, 0xbf];

describe('normalizeCharsetLabel', () => {
  it('maps WHATWG labels to encoding names, case- and space-insensitively', () => {
    const cases: [string, string][] = [
      ['latin1', 'windows-1252'],
      ['ISO-8859-1', 'windows-1252'],
      ['us-ascii', 'windows-1252'],
      [' UTF8 ', 'utf-8'],
      ['gb2312', 'gbk'],
      ['x-sjis', 'shift_jis'],
      ['cp1251', 'windows-1251'],
      ['KOI8-R', 'koi8-r'],
      ['ks_c_5601-1987', 'euc-kr'],
      ['utf-16', 'utf-16le'],
      ['iso-2022-kr', 'replacement'],
    ];
    for (const [label, name] of cases) assert.equal(normalizeCharsetLabel(label), name, label);
  });

  it('returns null for labels of no encoding', () => {
    for (const label of ['', 'utf-7', 'klingon', 'utf-8;', 'x-unknown']) assert.equal(normalizeCharsetLabel(label), null, label);
  });
});

describe('contentTypeCharset', () => {
  it('reads the charset parameter, quoted or not, among others', () => {
    assert.equal(contentTypeCharset('text/html; charset=UTF-8'), 'UTF-8');
    assert.equal(contentTypeCharset('text/html;charset="koi8-r"'), 'koi8-r');
    assert.equal(contentTypeCharset('text/html; foo=bar; Charset = latin1 ; x=y'), 'latin1');
    assert.equal(contentTypeCharset('text/html; foo="a;charset=x"; charset=gbk'), 'gbk');
  });

  it('is null without one', () => {
    assert.equal(contentTypeCharset(undefined), null);
    assert.equal(contentTypeCharset('text/html'), null);
    assert.equal(contentTypeCharset('text/html; format=flowed'), null);
  });
});

describe('charsetFromMetaContent', () => {
  it('extracts the label after charset=', () => {
    assert.equal(charsetFromMetaContent('text/html; charset=windows-1251'), 'windows-1251');
    assert.equal(charsetFromMetaContent('text/html;CHARSET = "koi8-r" ;'), 'koi8-r');
    assert.equal(charsetFromMetaContent("text/html; charset='gbk'"), 'gbk');
    assert.equal(charsetFromMetaContent('charsetx; charset=utf-8'), 'utf-8', 'a later charset= counts');
  });

  it('gives nothing for an unmatched quote or a missing value', () => {
    assert.equal(charsetFromMetaContent('text/html; charset="utf-8'), null);
    assert.equal(charsetFromMetaContent('text/html; charset='), null);
    assert.equal(charsetFromMetaContent('text/html'), null);
  });
});

describe('prescanMetaCharset', () => {
  it('finds <meta charset> and the http-equiv pragma in any attribute order', () => {
    assert.equal(prescanMetaCharset(bytes('<!DOCTYPE html><html><head><meta charset="koi8-r">')), 'koi8-r');
    assert.equal(prescanMetaCharset(bytes("<META CHARSET='Shift_JIS'>")), 'shift_jis');
    assert.equal(prescanMetaCharset(bytes('<meta charset=latin1>')), 'windows-1252');
    assert.equal(prescanMetaCharset(bytes('<meta http-equiv="Content-Type" content="text/html; charset=gb2312">')), 'gbk');
    assert.equal(prescanMetaCharset(bytes('<meta content="text/html; charset=euc-kr" http-equiv=content-type>')), 'euc-kr');
    assert.equal(prescanMetaCharset(bytes('<meta/charset="windows-1250"/>')), 'windows-1250');
  });

  it('needs the pragma for content=, and ignores unknown labels', () => {
    assert.equal(prescanMetaCharset(bytes('<meta content="text/html; charset=koi8-r">')), null);
    assert.equal(prescanMetaCharset(bytes('<meta charset="nonsense"><meta charset="koi8-r">')), 'koi8-r');
  });

  it('reads UTF-16 as UTF-8 and x-user-defined as windows-1252', () => {
    assert.equal(prescanMetaCharset(bytes('<meta charset="utf-16le">')), 'utf-8');
    assert.equal(prescanMetaCharset(bytes('<meta charset="x-user-defined">')), 'windows-1252');
  });

  it("skips comments, other tags' attribute values and the rest after 1024 bytes", () => {
    assert.equal(prescanMetaCharset(bytes('<!-- <meta charset="koi8-r"> --><meta charset="gbk">')), 'gbk');
    assert.equal(prescanMetaCharset(bytes('<!--><meta charset="gbk">')), 'gbk', '<!--> is a whole comment');
    assert.equal(prescanMetaCharset(bytes('<div title="<meta charset=koi8-r>"><meta charset="big5">')), 'big5');
    assert.equal(prescanMetaCharset(bytes(`<p>${'x'.repeat(1100)}</p><meta charset="koi8-r">`)), null);
    assert.equal(prescanMetaCharset(bytes('<metal charset="koi8-r">')), null);
  });

  it('survives truncated and garbled input', () => {
    for (const s of ['<', '<meta', '<meta charset', '<meta charset="', '<!--', '<a href="x', '<meta charset=', '</', '<!x', '\0<\0>']) {
      assert.equal(prescanMetaCharset(bytes(s)), null, s);
    }
  });
});

describe('detectCharset', () => {
  const meta = bytes('<html><head><meta charset="koi8-r"></head><body>x</body></html>');

  it('takes a BOM first, over the header and <meta>', () => {
    assert.deepEqual(detectCharset(Buffer.from([...BOM8, ...meta]), 'text/html; charset=gbk'), { charset: 'utf-8', source: 'bom' });
    assert.deepEqual(detectCharset(Buffer.from([0xfe, 0xff, 0, 0x3c]), undefined), { charset: 'utf-16be', source: 'bom' });
    assert.deepEqual(detectCharset(Buffer.from([0xff, 0xfe, 0x3c, 0]), 'text/html; charset=utf-8'), { charset: 'utf-16le', source: 'bom' });
    assert.equal(bomCharset(Buffer.from([0xef, 0xbb])), null);
  });

  it('then the header, then <meta>; an unknown header label falls through', () => {
    assert.deepEqual(detectCharset(meta, 'text/html; charset=ISO-8859-1'), { charset: 'windows-1252', source: 'header' });
    assert.deepEqual(detectCharset(meta, 'text/html'), { charset: 'koi8-r', source: 'meta' });
    assert.deepEqual(detectCharset(meta, 'text/html; charset=bogus'), { charset: 'koi8-r', source: 'meta' });
    assert.deepEqual(detectCharset(meta, undefined), { charset: 'koi8-r', source: 'meta' });
  });

  it('defaults to UTF-8 for valid UTF-8 (also cut mid-character) and windows-1252 otherwise', () => {
    assert.deepEqual(detectCharset(Buffer.from('<p>plain ascii</p>'), undefined), { charset: 'utf-8', source: 'default' });
    const utf8 = Buffer.from('<p>Grüße aus Köln €</p>');
    assert.deepEqual(detectCharset(utf8, 'text/html'), { charset: 'utf-8', source: 'default' });
    const cut = Buffer.from('<p>€</p>€').subarray(0, -1);
    assert.deepEqual(detectCharset(cut, undefined), { charset: 'utf-8', source: 'default' });
    assert.deepEqual(detectCharset(iconv.encode('<p>Grüße</p>', 'windows-1252'), undefined), {
      charset: 'windows-1252',
      source: 'default',
    });
    assert.deepEqual(detectCharset(new Uint8Array(0), undefined), { charset: 'utf-8', source: 'default' });
  });
});

describe('decodeHtml', () => {
  it('decodes legacy charsets', () => {
    assert.equal(decodeHtml(Buffer.from([0x80, 0xe9]), 'windows-1252'), '€é');
    // Every page labelled latin1 is windows-1252: its 0x80-0x9F are letters and punctuation, not C1 controls.
    assert.equal(decodeHtml(Buffer.from([0x93, 0x9c, 0x94, 0x8a, 0x81, 0x9f]), 'latin1'), '“œ”Š\u0081Ÿ');
    assert.equal(decodeHtml(iconv.encode('Привет мир', 'koi8-r'), 'koi8-r'), 'Привет мир');
    assert.equal(decodeHtml(iconv.encode('日本語', 'shift_jis'), 'shift_jis'), '日本語');
    assert.equal(decodeHtml(iconv.encode('Zażółć gęślą', 'iso-8859-2'), 'latin2'), 'Zażółć gęślą');
    assert.equal(decodeHtml(iconv.encode('Țară', 'iso-8859-16'), 'iso-8859-16'), 'Țară');
  });

  it('lets a BOM decide the encoding and drops it (only the first one)', () => {
    assert.equal(decodeHtml(Buffer.from([...BOM8, 0x41]), 'utf-8'), 'A');
    assert.equal(decodeHtml(Buffer.from([0xff, 0xfe, 0x41, 0]), 'utf-16le'), 'A');
    assert.equal(decodeHtml(Buffer.from([...BOM8, 0xc3, 0xa9]), 'windows-1252'), 'é', 'the BOM wins over the charset given');
    assert.equal(decodeHtml(Buffer.from([0xfe, 0xff, 0, 0x41]), 'utf-8'), 'A');
    assert.equal(decodeHtml(Buffer.from([...BOM8, ...BOM8, 0x41]), 'utf-8'), '\uFEFFA');
  });

  it('replaces malformed bytes with U+FFFD and never throws', () => {
    assert.equal(decodeHtml(Buffer.from([0x61, 0xff, 0x62]), 'utf-8'), 'a\uFFFDb');
    assert.equal(decodeHtml(Buffer.from('abc'), 'no-such-charset'), 'abc', 'unknown: windows-1252');
    assert.equal(decodeHtml(Buffer.from('<p>x</p>'), 'iso-2022-kr'), '\uFFFD', 'the replacement encoding');
    assert.equal(decodeHtml(Buffer.from([0x41, 0x80]), 'x-user-defined'), 'A\uF780');
    assert.equal(decodeHtml(new Uint8Array(0), 'utf-8'), '');
  });

  it('decodes what detectCharset detected on a round trip', () => {
    const html = '<html><head><meta http-equiv="content-type" content="text/html; charset=windows-1251"></head><body>Пример</body></html>';
    const body = iconv.encode(html, 'windows-1251');
    const { charset } = detectCharset(body, undefined);
    assert.equal(decodeHtml(body, charset), html);
  });
});
