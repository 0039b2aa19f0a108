import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Rng } from '../../../src/core/prng.js';
import { IpLocatorError } from '../../../src/geo/ip-locator.js';
import { RangeTableIpLocator, formatIpRangeTable, type IpRange } from '../../../src/geo/ip-range-table.js';

const TABLE = [
  '# the test web: loopback servers',
  'start_ip,end_ip,city,state',
  '',
  '127.0.1.1,127.0.1.1,Houston,TX',
  '127.0.2.0 , 127.0.2.255 , "San Antonio" , tx   # a whole /24',
  '127.0.3.0,127.0.3.9,"Winston-Salem",NC',
  '127.0.3.10,127.0.3.20,Chicago,IL',
  '0.0.0.0,0.0.0.0,Zero,KS',
  '255.255.255.255,255.255.255.255,Top,ME',
  '2001:db8::,2001:db8::ffff,Seattle,WA',
  '2001:db8::1:0,2001:db8::1:0,Portland,OR',
  'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,Last,AK',
].join('\n');

/** The error a table gives, or fails the test if it parses. */
function errorOf(text: string): IpLocatorError {
  try {
    new RangeTableIpLocator(text, 'cities.csv');
  } catch (err) {
    assert.ok(err instanceof IpLocatorError, String(err));
    return err;
  }
  assert.fail(`parsed: ${JSON.stringify(text)}`);
}

describe('RangeTableIpLocator', () => {
  const table = new RangeTableIpLocator(TABLE, 'cities.csv');

  it('reads comments, an optional header, blank lines, spaces, quotes and trailing comments', () => {
    assert.equal(table.size, 9);
    assert.deepEqual(table.locate('127.0.2.7'), { city: 'San Antonio', state: 'TX' });
    assert.deepEqual(table.locate('127.0.3.5'), { city: 'Winston-Salem', state: 'NC' });
    const headless = new RangeTableIpLocator('127.0.1.1,127.0.1.1,Houston,TX\r\n', 'x.csv');
    assert.deepEqual(headless.locate('127.0.1.1'), { city: 'Houston', state: 'TX' });
    assert.equal(new RangeTableIpLocator('\uFEFFstart_ip,end_ip,city,state\n1.1.1.1,1.1.1.1,A,AL\n').size, 1);
  });

  it('answers at both edges of a range and not one address beyond', () => {
    assert.deepEqual(table.locate('127.0.1.1'), { city: 'Houston', state: 'TX' });
    assert.equal(table.locate('127.0.1.0'), null);
    assert.equal(table.locate('127.0.1.2'), null);
    assert.deepEqual(table.locate('127.0.2.0'), { city: 'San Antonio', state: 'TX' });
    assert.deepEqual(table.locate('127.0.2.255'), { city: 'San Antonio', state: 'TX' });
    assert.equal(table.locate('127.0.1.255'), null);
    assert.equal(table.locate('127.0.3.21'), null);
    // Adjacent ranges: the last address of one, the first of the next.
    assert.deepEqual(table.locate('127.0.3.9'), { city: 'Winston-Salem', state: 'NC' });
    assert.deepEqual(table.locate('127.0.3.10'), { city: 'Chicago', state: 'IL' });
    assert.deepEqual(table.locate('0.0.0.0'), { city: 'Zero', state: 'KS' });
    assert.deepEqual(table.locate('255.255.255.255'), { city: 'Top', state: 'ME' });
    assert.equal(table.locate('0.0.0.1'), null);
    assert.equal(table.locate('255.255.255.254'), null);
  });

  it('locates IPv6 addresses in IPv6 ranges only, and IPv4-mapped ones as IPv4', () => {
    assert.deepEqual(table.locate('2001:db8::'), { city: 'Seattle', state: 'WA' });
    assert.deepEqual(table.locate('2001:db8::ffff'), { city: 'Seattle', state: 'WA' });
    assert.deepEqual(table.locate('[2001:db8::1]'), { city: 'Seattle', state: 'WA' });
    assert.deepEqual(table.locate('2001:db8::1%eth0'), { city: 'Seattle', state: 'WA' });
    assert.deepEqual(table.locate('2001:0db8:0000:0000:0000:0000:0001:0000'), { city: 'Portland', state: 'OR' });
    assert.equal(table.locate('2001:db8::1:1'), null);
    assert.equal(table.locate('2001:db7:ffff:ffff:ffff:ffff:ffff:ffff'), null);
    assert.deepEqual(table.locate('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), { city: 'Last', state: 'AK' });
    assert.deepEqual(table.locate('::ffff:127.0.1.1'), { city: 'Houston', state: 'TX' });
    assert.equal(table.locate('::127.0.1.1'), null, 'an IPv4-compatible address is IPv6');
    assert.equal(table.locate('::'), null, 'IPv6 :: is not IPv4 0.0.0.0');
  });

  it('never throws on what it is asked: a bad address gives null', () => {
    for (const bad of ['', 'localhost', '127.0.1', '127.0.1.1.1', '300.0.0.1', '127.000.1.1', ':::', '1::2::3', '127.0.1.1/32']) {
      assert.equal(table.locate(bad), null, bad);
    }
    assert.equal(table.locate(undefined as unknown as string), null);
    assert.equal(table.locate(2130706689 as unknown as string), null);
  });

  it('finds what a linear scan finds, over a random table', () => {
    const rng = new Rng(42, 1, 2);
    const rows: IpRange[] = [];
    const ranges: [number, number, string][] = [];
    let at = 0;
    for (let i = 0; i < 300; i++) {
      at += rng.int(50);
      const end = at + rng.int(20);
      const ip = (n: number): string => `10.0.${n >>> 8}.${n & 255}`;
      ranges.push([at, end, `C${i}`]);
      rows.push({ start: ip(at), end: ip(end), city: `C${i}`, state: 'CA' });
      at = end + 1;
    }
    // Shuffled: the order of the rows does not matter.
    for (let i = rows.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [rows[i], rows[j]] = [rows[j] as IpRange, rows[i] as IpRange];
    }
    const random = new RangeTableIpLocator(formatIpRangeTable(rows));
    for (let n = 0; n <= at + 5; n++) {
      const expected = ranges.find(([s, e]) => s <= n && n <= e)?.[2] ?? null;
      assert.equal(random.locate(`10.0.${n >>> 8}.${n & 255}`)?.city ?? null, expected, `address ${n}`);
    }
  });

  it('names its database in its spec: id, ranges and the SHA-256 of the text', () => {
    assert.equal(table.spec.id, 'ip-range-table');
    assert.equal(table.spec.params.ranges, 9);
    assert.match(String(table.spec.params.digest), /^[0-9a-f]{64}$/);
    assert.notEqual(new RangeTableIpLocator(`${TABLE}\n# more`).spec.params.digest, table.spec.params.digest);
    assert.equal(new RangeTableIpLocator(TABLE).spec.params.digest, table.spec.params.digest);
  });
});

describe('RangeTableIpLocator errors', () => {
  it('name the file and line of a malformed row', () => {
    const cases: [string, RegExp][] = [
      ['# c\n1.1.1.1,1.1.1.1,A', /^cities\.csv line 2: expected 4 fields \(start_ip,end_ip,city,state\), got 3$/],
      ['1.1.1.1,1.1.1.1,A,AL,extra', /^cities\.csv line 1: expected 4 fields .*got 5$/],
      ['\n\n1.1.1,1.1.1.1,A,AL', /^cities\.csv line 3: start_ip "1\.1\.1" is not an IPv4 or IPv6 address$/],
      ['1.1.1.1,1.1.1.256,A,AL', /^cities\.csv line 1: end_ip "1\.1\.1\.256" is not an IPv4 or IPv6 address$/],
      ['1.1.1.1,::1,A,AL', /^cities\.csv line 1: start_ip 1\.1\.1\.1 is IPv4 but end_ip ::1 is IPv6$/],
      ['1.1.1.9,1.1.1.1,A,AL', /^cities\.csv line 1: start_ip 1\.1\.1\.9 comes after end_ip 1\.1\.1\.1$/],
      ['1.1.1.1,1.1.1.1,,AL', /^cities\.csv line 1: the city is empty$/],
      ['1.1.1.1,1.1.1.1,A,Alabama', /^cities\.csv line 1: state "Alabama" is not a 2-letter code$/],
      ['1.1.1.1,1.1.1.1,"A,AL', /^cities\.csv line 1: unterminated quote$/],
      ['1.1.1.1,1.1.1.1,"A" B,AL', /^cities\.csv line 1: text after a closing quote$/],
      ['1.1.1.1,1.1.1.1,A,AL\nstart_ip,end_ip,city,state', /^cities\.csv line 2: start_ip "start_ip" is not/],
      ['# only comments\n\n', /^cities\.csv: the table holds no range$/],
      ['start_ip,end_ip,city,state\n', /^cities\.csv: the table holds no range$/],
    ];
    for (const [text, message] of cases) assert.match(errorOf(text).message, message, text);
  });

  it('name both lines of two overlapping ranges, whatever their order', () => {
    const rows = ['10.0.0.0,10.0.0.255,A,AL', '10.0.1.0,10.0.1.255,B,AK', '# gap', '10.0.0.200,10.0.1.3,C,AZ'];
    assert.equal(errorOf(rows.join('\n')).message, 'cities.csv line 4: range 10.0.0.200–10.0.1.3 overlaps line 1 (10.0.0.0–10.0.0.255)');
    assert.equal(
      errorOf([rows[3], rows[1], rows[0]].join('\n')).message,
      'cities.csv line 3: range 10.0.0.0–10.0.0.255 overlaps line 1 (10.0.0.200–10.0.1.3)',
    );
    assert.match(errorOf('1.1.1.1,1.1.1.1,A,AL\n1.1.1.1,1.1.1.1,A,AL').message, /line 2: range 1\.1\.1\.1–1\.1\.1\.1 overlaps line 1/);
    // One range inside another.
    assert.match(errorOf('::1,::ff,A,AL\n::5,::6,B,AK').message, /line 2: range ::5–::6 overlaps line 1 \(::1–::ff\)/);
    // Ranges of the two versions never overlap each other, even over the same numbers.
    assert.equal(new RangeTableIpLocator('0.0.0.0,0.0.0.255,A,AL\n::,::ff,B,AK').size, 2);
  });
});

describe('formatIpRangeTable', () => {
  it('writes comments, the header and quoted fields that the locator reads back', () => {
    const rows: IpRange[] = [
      { start: '127.0.0.1', end: '127.0.0.1', city: 'Comma, Town', state: 'TX' },
      { start: '127.0.0.2', end: '127.0.0.3', city: 'The "Quoted" City', state: 'CA' },
      { start: '::2', end: '::2', city: '#1 City', state: 'NY' },
      { start: '127.0.0.4', end: '127.0.0.4', city: ' Padded ', state: 'WA' },
    ];
    const text = formatIpRangeTable(rows, ['made by a test', '', 'second line']);
    assert.equal(
      text,
      [
        '# made by a test',
        '#',
        '# second line',
        'start_ip,end_ip,city,state',
        '127.0.0.1,127.0.0.1,"Comma, Town",TX',
        '127.0.0.2,127.0.0.3,"The ""Quoted"" City",CA',
        '::2,::2,"#1 City",NY',
        '127.0.0.4,127.0.0.4," Padded ",WA',
        '',
      ].join('\n'),
    );
    const back = new RangeTableIpLocator(text);
    assert.deepEqual(back.locate('127.0.0.1'), { city: 'Comma, Town', state: 'TX' });
    assert.deepEqual(back.locate('127.0.0.3'), { city: 'The "Quoted" City', state: 'CA' });
    assert.deepEqual(back.locate('::2'), { city: '#1 City', state: 'NY' });
    assert.deepEqual(back.locate('127.0.0.4'), { city: ' Padded ', state: 'WA' });
  });

  it('refuses a field with a line break', () => {
    assert.throws(() => formatIpRangeTable([{ start: '1.1.1.1', end: '1.1.1.1', city: 'A\nB', state: 'AL' }]), IpLocatorError);
  });
});
