import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { IpLocatorError } from '../../../src/geo/ip-locator.js';
import { ipLocatorOf } from '../../../src/geo/ip-locators.js';
import { MmdbIpLocator } from '../../../src/geo/ip-mmdb.js';
import { RangeTableIpLocator } from '../../../src/geo/ip-range-table.js';

const CITY_TEST = readFileSync(new URL('../../fixtures/geo/GeoIP2-City-Test.mmdb', import.meta.url));
const TABLE = Buffer.from('start_ip,end_ip,city,state\n127.0.1.1,127.0.1.1,Houston,TX\n');

/** Asserts that `fn` throws an IpLocatorError whose message matches. */
function throwsLocatorError(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof IpLocatorError && message.test(err.message));
}

describe('ipLocatorOf', () => {
  it('opens a .csv file as a range table and a .mmdb file as a MaxMind DB, any case, any folder', () => {
    const table = ipLocatorOf('/data/web/ip-cities.csv', TABLE);
    assert.ok(table instanceof RangeTableIpLocator);
    assert.equal(table.spec.id, 'ip-range-table');
    assert.deepEqual(table.locate('127.0.1.1'), { city: 'Houston', state: 'TX' });
    assert.ok(ipLocatorOf('C:\\geo\\CITIES.CSV', TABLE) instanceof RangeTableIpLocator);
    const db = ipLocatorOf('geo/GeoLite2-City.mmdb', CITY_TEST);
    assert.ok(db instanceof MmdbIpLocator);
    assert.deepEqual(db.locate('216.160.83.56'), { city: 'Milton', state: 'WA' });
    assert.ok(ipLocatorOf('x.MMDB', CITY_TEST) instanceof MmdbIpLocator);
  });

  it('refuses a file whose name says neither, naming the kinds it knows', () => {
    for (const path of ['cities.txt', 'cities', 'geo.csv/cities', '.csv', 'cities.csv.gz', 'GeoLite2-City.mmdb.tar.gz']) {
      throwsLocatorError(
        () => ipLocatorOf(path, TABLE),
        /cannot tell what kind of IP database this is from its name: expected \.csv or \.mmdb/,
      );
    }
  });

  it('names the file when its content is not of the kind its name says', () => {
    throwsLocatorError(() => ipLocatorOf('geo/cities.mmdb', TABLE), /^geo\/cities\.mmdb: not a MaxMind DB file/);
    throwsLocatorError(() => ipLocatorOf('geo/cities.csv', CITY_TEST), /^geo\/cities\.csv: /);
    throwsLocatorError(
      () => ipLocatorOf('geo/cities.csv', Buffer.from('1.1.1.1,1.1.1.1,A,AL\n1.1.1.2')),
      /^geo\/cities\.csv line 2: expected 4 fields/,
    );
    throwsLocatorError(() => ipLocatorOf('latin1.csv', Buffer.from([0x31, 0x2c, 0xe9, 0x0a])), /^latin1\.csv: .*(encoded|utf-8)/i);
  });
});
