/**
 * The street-address extractor (src/geo/address-extractor.ts): behaviour case by case, then precision
 * and recall on real documents (test/fixtures/geo/real, labelled by hand; README there) and on a small
 * test web against its exported truth (entities.tsv).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressKey, extractAddresses, standardStreet, type GeoAddress } from '../../../src/geo/address-extractor.js';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import { decodeHtml, detectCharset } from '../../../src/parse/charset.js';
import { parseHtml } from '../../../src/parse/html-page.js';
import { WebModel, servesContent } from '../../../src/web/model.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';
import { encodePage } from '../../../src/web/respond.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { readTruth } from '../../../src/web/truth/read.js';

const gazetteer = Gazetteer.usTop(100);
const idx = (label: string): number => gazetteer.indexOf(label);
const find = (text: string): GeoAddress[] => extractAddresses(text, gazetteer);
/** The one address of `text`, failing when there are none or several. */
function one(text: string): GeoAddress {
  const found = find(text);
  assert.equal(found.length, 1, `expected one address in ${JSON.stringify(text)}, got ${JSON.stringify(found)}`);
  return found[0] as GeoAddress;
}
const parts = (a: GeoAddress): [string, string, string, string, string] => [a.number, a.street, a.city, a.state, a.zip];

describe('extractAddresses: what counts as an address', () => {
  test('the test web’s one-line form, with its parts, target and offsets', () => {
    const text = 'Visit us at 1234 Oak Street, Denver, CO 80202 today.';
    const a = one(text);
    assert.deepEqual(parts(a), ['1234', 'Oak Street', 'Denver', 'CO', '80202']);
    assert.equal(a.target, idx('Denver, CO'));
    assert.equal(text.slice(a.start, a.end), '1234 Oak Street, Denver, CO 80202');
  });

  test('suffixes written out or abbreviated (with or without a dot) are one entity', () => {
    const spellings = ['1234 Oak Street, Denver, CO', '1234 Oak St, Denver, CO', '1234 Oak St., Denver, CO', '1234 OAK STREET, DENVER, CO'];
    const keys = spellings.map((s) => addressKey(one(s)));
    assert.deepEqual(new Set(keys), new Set(['1234|OAK ST|denver|CO']));
    for (const [s, street] of [
      ['9 Elm Blvd, Austin, TX', 'Elm Blvd'],
      ['9 Elm Pkwy, Austin, TX', 'Elm Pkwy'],
      ['9 Elm Trl, Austin, TX', 'Elm Trl'],
      ['9 Elm Hwy, Austin, TX', 'Elm Hwy'],
      ['9 Elm Terrace, Austin, TX', 'Elm Terrace'],
      ['9 Elm Plaza, Austin, TX', 'Elm Plaza'],
    ] as const)
      assert.equal(one(s).street, street);
  });

  test('directionals before or after the name, abbreviated or not', () => {
    const white = one('1600 Pennsylvania Avenue NW, Washington, DC 20500');
    assert.deepEqual(parts(white), ['1600', 'Pennsylvania Avenue NW', 'Washington', 'DC', '20500']);
    assert.equal(white.target, idx('Washington, DC'));
    assert.equal(addressKey(white), '1600|PENNSYLVANIA AVE NW|washington|DC');
    assert.equal(addressKey(one('100 North Main Street, Houston, TX')), addressKey(one('100 N. Main St., Houston, TX')));
    assert.equal(one('1 W 72nd St, New York, NY 10023').street, 'W 72nd St');
    // A directional word that is the street's name stays its name.
    assert.equal(addressKey(one('12 North Street, Boston, MA')), '12|NORTH ST|boston|MA');
  });

  test('units: suite, apartment, number sign, a spelled floor, after a dash or on the next line', () => {
    for (const [text, street] of [
      ['171 Second Street, Suite 300, San Francisco, California 94105', 'Second Street'],
      ['1 W 72nd St Apt 4B, New York, NY', 'W 72nd St'],
      ['44 Pine Rd #12, Seattle, WA 98101', 'Pine Rd'],
      ['51 Franklin Street, Fifth Floor, Boston, MA 02110-1301', 'Franklin Street'],
      ['59 Temple Place - Suite 330, Boston, MA  02111-1307', 'Temple Place'],
      ['51 Franklin Street, Suite 500\n Boston, MA 02110-1335 USA', 'Franklin Street'],
      ['651 W Washington Ave. Suite 500 Chicago, IL 60661', 'W Washington Ave'],
      ['8 Lake Dr, Ste. 5, Miami, FL', 'Lake Dr'],
    ] as const) {
      const a = one(text);
      assert.equal(a.street, street, text);
      assert.ok(a.target >= 0, text);
    }
  });

  test('ZIP+4 gives the five-digit ZIP, and the match covers the +4', () => {
    const text = 'Boston office: 51 Franklin St, Boston, MA 02110-1301 USA';
    const a = one(text);
    assert.equal(a.zip, '02110');
    assert.equal(text.slice(a.start, a.end), '51 Franklin St, Boston, MA 02110-1301');
    assert.equal(one('5 Oak Ln, Reno, NV, 89501').zip, '89501');
    assert.equal(one('5 Oak Ln, Reno, NV').zip, '');
  });

  test('state names in any case, the District of Columbia, D.C.', () => {
    assert.equal(one('351 West 10th Street.  Indianapolis, Indiana 46202').state, 'IN');
    assert.equal(one('36 Crosby Drive, Bedford, Massachusetts 01730').state, 'MA');
    assert.equal(one('350 5th Ave, New York, NEW YORK 10118').state, 'NY');
    assert.equal(one('441 4th Street NW, Washington, District of Columbia 20001').state, 'DC');
    const dc = one('441 4th Street NW, Washington, D.C. 20001');
    assert.deepEqual([dc.state, dc.zip, dc.target], ['DC', '20001', idx('Washington, DC')]);
  });

  test('an <address> over several lines, as parseHtml flattens it', () => {
    const html = '<p>Contact</p><address>Acme Inc.<br>\n  1234 Oak Street<br>Suite 5<br>Denver, CO 80202</address><p>Open daily.</p>';
    const text = parseHtml(html, 'http://example.test/').visibleText;
    assert.match(text, /Street\nSuite 5\nDenver/);
    assert.deepEqual(parts(one(text)), ['1234', 'Oak Street', 'Denver', 'CO', '80202']);
    const wrapped = one('Carnegie Mellon University\n      5000 Forbes Avenue\n      Pittsburgh, PA  15213-3890\n      (412) 268-4387');
    assert.deepEqual(parts(wrapped), ['5000', 'Forbes Avenue', 'Pittsburgh', 'PA', '15213']);
  });

  test('text wrapped behind comment markers, and a number wrapped away from its street', () => {
    const c = one(' * Foundation, Inc., 51 Franklin St, Fifth Floor, Boston, MA\n * 02110-1301 USA');
    assert.deepEqual(parts(c), ['51', 'Franklin St', 'Boston', 'MA', '02110']);
    assert.equal(one('# Foundation,Inc., 59 Temple Place, Suite 330, Boston, MA  02111-1307  USA').street, 'Temple Place');
    const sgi = one('Legal Services, 1600\n Amphitheatre Parkway, Mountain View, CA 94043-1351, or at:');
    assert.deepEqual(parts(sgi), ['1600', 'Amphitheatre Parkway', 'Mountain View', 'CA', '94043']);
  });

  test('a city that is not a target has target -1; a same-name target elsewhere is not taken', () => {
    assert.equal(one('12 Oak St, Springfield, IL 62701').target, -1);
    assert.equal(one('12 Oak St, Portland, ME 04101').target, -1);
    assert.equal(one('12 Oak St, Portland, OR 97201').target, idx('Portland, OR'));
    assert.equal(one('12 Oak St, Kansas City, Kansas').target, -1);
    assert.equal(one('12 Oak St, Kansas City, MO').target, idx('Kansas City, MO'));
    assert.equal(one('12 Oak St, Glendale, CA').target, -1);
    assert.equal(one('12 Oak St, Glendale, AZ').target, idx('Glendale, AZ'));
    // Spellings and aliases of a target resolve to it.
    assert.equal(one('12 Oak St, Saint Louis, MO').target, idx('St. Louis, MO'));
  });

  test('ambiguity is not guessed: no state, or no mark between street and city, is no address', () => {
    assert.deepEqual(find('1234 Oak Street, Portland'), []);
    assert.deepEqual(find('1234 Oak Street, Springfield'), []);
    assert.deepEqual(find('123 Main St Springfield IL 62701'), []);
    assert.deepEqual(find('123 Main St South Boston MA'), []);
  });

  test('near-misses are not addresses', () => {
    for (const text of [
      'Get your kicks on Route 66, Chicago, IL to Los Angeles, CA.',
      'Take Highway 101, Los Angeles, CA',
      'The 2024 Annual Report, Chicago, IL',
      '1,000 Main Street, Springfield, IL',
      'Up 3.5 Main Street, Denver, CO',
      'Ticket #12 Oak St, Denver, CO',
      'Call 555-1234 Oak Street, Denver, CO',
      'In 2019 Oak Street, Denver, CO was repaved.',
      'since 1998 Park Avenue, New York, NY has changed',
      '© 2024 Acme Drive, Austin, TX',
      'Ross McFluff: 834.345.1254 155 Elm Street',
      'PO Box 1866, Mountain View, CA 94042',
      'Unit 6, 116 Woodburn Road,\n Berala, NSW, 2141,\n Australia.',
      'P.O. Box 94079, 1090 GB Amsterdam, Netherlands',
      'Copyright (C) 2001 Hans-Peter Nilsson, Stockholm, Sweden',
      'released January 26, 2000, developed by Silicon Graphics, Inc.',
      'We walked 5 miles down Main Street, Denver, CO',
    ])
      assert.deepEqual(find(text), [], text);
  });

  test('addresses on consecutive lines, a ZIP-less one before a five-digit number', () => {
    const found = find('1280 Academy Trl, Orlando, FL\n12345 River Street, Orlando, FL 32805\n2746 Lake Pkwy, Orlando, FL 32805');
    assert.deepEqual(
      found.map((a) => [a.number, a.zip]),
      [
        ['1280', ''],
        ['12345', '32805'],
        ['2746', '32805'],
      ],
    );
    assert.ok(found.every((a, i) => i === 0 || a.start >= (found[i - 1] as GeoAddress).end));
  });

  test('a second call on the same text answers the same (no state kept between calls)', () => {
    const text = 'x 1 Main St, Tulsa, OK y 2 Main St, Tulsa, OK';
    assert.deepEqual(find(text), find(text));
    assert.equal(find(text).length, 2);
  });
});

describe('addressKey and standardStreet', () => {
  test('USPS standard form: suffix and directionals abbreviated, spelled ordinals as numbers, no dots', () => {
    assert.equal(standardStreet('Fifth Avenue'), '5TH AVE');
    assert.equal(standardStreet('5th Ave.'), '5TH AVE');
    assert.equal(standardStreet('Fifth Avenue South'), standardStreet('5th Ave S'));
    assert.equal(standardStreet('North Street'), 'NORTH ST');
    assert.equal(standardStreet('South Dogwood Way'), 'S DOGWOOD WAY');
    assert.equal(standardStreet('E. Ben White Blvd'), 'E BEN WHITE BLVD');
    assert.equal(standardStreet('Pennsylvania Avenue Northwest'), 'PENNSYLVANIA AVE NW');
    assert.equal(standardStreet('St. James Place'), 'ST JAMES PL');
  });

  test('a truth row (number as a number) and a found address of the same place share a key', () => {
    const truthRow = { number: 4435, street: 'Summit Lane', city: 'Las Vegas', state: 'NV' };
    assert.equal(addressKey(truthRow), addressKey(one('4435 Summit Ln, Las Vegas, NV 89104')));
    assert.notEqual(addressKey(truthRow), addressKey(one('4436 Summit Ln, Las Vegas, NV 89104')));
    assert.notEqual(addressKey(truthRow), addressKey(one('4435 Summit Ln, Henderson, NV 89104')));
  });
});

/** Matches found against expected keys (a multiset), returning true positives, false positives, false negatives. */
function score(found: readonly string[], expected: readonly string[]): { tp: number; fp: number; fn: number } {
  const left = new Map<string, number>();
  for (const k of expected) left.set(k, (left.get(k) ?? 0) + 1);
  let tp = 0;
  let fp = 0;
  for (const k of found) {
    const n = left.get(k) ?? 0;
    if (n > 0) {
      tp++;
      left.set(k, n - 1);
    } else fp++;
  }
  return { tp, fp, fn: expected.length - tp };
}

interface Label {
  readonly number: string;
  readonly street: string;
  readonly city: string;
  readonly state: string;
  readonly zip: string;
  readonly target: string | null;
}

describe('on real documents (test/fixtures/geo/real)', () => {
  const dir = join(import.meta.dirname, '../../fixtures/geo/real');

  test('precision 1.0 and recall >= 0.9 against the hand labels; ZIP and target right on every hit', async () => {
    const labels = JSON.parse(await readFile(join(dir, 'labels.json'), 'utf8')) as Record<string, { heldOut: boolean; addresses: Label[] }>;
    const files = (await readdir(dir)).filter((f) => f !== 'labels.json' && f !== 'README.md').sort();
    assert.deepEqual(files, Object.keys(labels).sort(), 'every fixture is labelled');
    const total = { tp: 0, fp: 0, fn: 0 };
    for (const f of files) {
      const raw = await readFile(join(dir, f), 'utf8');
      const text = f.endsWith('.html') ? parseHtml(raw, 'http://fixture.test/').visibleText : raw;
      const found = find(text);
      const expected = labels[f]?.addresses ?? [];
      const s = score(found.map(addressKey), expected.map(addressKey));
      assert.equal(s.fp, 0, `${f}: a false address in ${JSON.stringify(found.map(parts))}`);
      total.tp += s.tp;
      total.fp += s.fp;
      total.fn += s.fn;
      for (const a of found) {
        const l = expected.find((e) => addressKey(e) === addressKey(a)) as Label;
        assert.equal(a.zip, l.zip, `${f}: ZIP of ${a.number} ${a.street}`);
        assert.equal(a.target, l.target === null ? -1 : idx(l.target), `${f}: target of ${a.number} ${a.street}`);
      }
    }
    // 14 labelled addresses in 12 files, most files full of numbers that are not addresses. Precision
    // must be exact: one false address on so small a set would mean a rule that fires on real text.
    // Recall >= 0.9 allows one miss of 14 (the extractor finds all 14 today; five files were held out
    // while the grammar was written, see the README).
    assert.ok(total.tp + total.fn >= 14);
    const precision = total.tp / (total.tp + total.fp);
    const recall = total.tp / (total.tp + total.fn);
    assert.equal(precision, 1);
    assert.ok(recall >= 0.9, `recall ${recall}`);
  });
});

describe('on a test web, against its exported truth (entities.tsv)', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'shoal-geo-extract-'));
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  test('precision and recall >= 0.99, and every hit resolved to its true target', async () => {
    // More geographic pages and addresses than `tiny`, so that a few hundred entities are scored.
    const model = new WebModel({ ...WEB_PRESETS.tiny, seed: 23, geo: { hostRate: 0.5, maxAddresses: 6 } });
    await exportTruth(model, join(tmp, 'truth'), { port: 8080 });
    const truth = await readTruth(join(tmp, 'truth'));
    const byPage = new Map<number, { key: string; target: number }[]>();
    for (const e of await truth.entities()) {
      const list = byPage.get(e.page) ?? [];
      list.push({ key: addressKey(e), target: idx(`${e.city}, ${e.state}`) });
      byPage.set(e.page, list);
    }
    const total = { tp: 0, fp: 0, fn: 0 };
    let entities = 0;
    for (let g = 0; g < model.pageCount; g++) {
      if (!servesContent(model.pageKind[g] as number)) continue;
      const { body, contentType } = encodePage(model, g, 8080);
      const text = parseHtml(decodeHtml(body, detectCharset(body, contentType).charset), model.url(g, 8080)).visibleText;
      const found = find(text);
      const expected = byPage.get(g) ?? [];
      entities += expected.length;
      const s = score(
        found.map(addressKey),
        expected.map((e) => e.key),
      );
      total.tp += s.tp;
      total.fp += s.fp;
      total.fn += s.fn;
      for (const a of found) {
        const e = expected.find((x) => x.key === addressKey(a));
        if (e !== undefined) assert.equal(a.target, e.target, `page ${g}: ${a.number} ${a.street}`);
      }
    }
    assert.ok(entities >= 300, `only ${entities} entities: the web is too small to measure`);
    const precision = total.tp / (total.tp + total.fp);
    const recall = total.tp / (total.tp + total.fn);
    assert.ok(precision >= 0.99, `precision ${precision} (${total.fp} false)`);
    assert.ok(recall >= 0.99, `recall ${recall} (${total.fn} missed)`);
  });
});
