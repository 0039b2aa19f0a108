/**
 * The MaxMind DB locator on MaxMind's own test databases (test/fixtures/geo/README.md): the City
 * test database has one US record, 216.160.83.56/29 → Milton, WA, and records in GB, SE, CN, BT and
 * JP, some without a city.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { IpLocatorError } from '../../../src/geo/ip-locator.js';
import { MmdbIpLocator, usPlaceOfRecord } from '../../../src/geo/ip-mmdb.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`../../fixtures/geo/${name}`, import.meta.url));
const CITY_TEST = fixture('GeoIP2-City-Test.mmdb');
const MILTON = { city: 'Milton', state: 'WA' };

describe('MmdbIpLocator', () => {
  const db = new MmdbIpLocator(CITY_TEST, 'GeoIP2-City-Test.mmdb');

  it('locates the addresses of a US record, at both ends of its network and not beyond', () => {
    assert.deepEqual(db.locate('216.160.83.56'), MILTON);
    assert.deepEqual(db.locate('216.160.83.60'), MILTON);
    assert.deepEqual(db.locate('216.160.83.63'), MILTON);
    assert.equal(db.locate('216.160.83.55'), null);
    assert.equal(db.locate('216.160.83.64'), null);
  });

  it('locates an IPv4 address written as IPv6 (mapped, bracketed) like the IPv4 one', () => {
    assert.deepEqual(db.locate('::ffff:216.160.83.57'), MILTON);
    assert.deepEqual(db.locate('[::ffff:d8a0:533a]'), MILTON);
    // The IPv4 subtree of an IPv6 database is ::/96: the IPv4-compatible form reaches it too.
    assert.deepEqual(db.locate('::216.160.83.56'), MILTON);
  });

  it('gives null outside the US, without a city, and for unknown addresses', () => {
    assert.equal(db.locate('81.2.69.142'), null, 'London, GB');
    assert.equal(db.locate('89.160.20.112'), null, 'Linköping, SE');
    assert.equal(db.locate('67.43.156.1'), null, 'Bhutan, no city');
    assert.equal(db.locate('2001:218::1'), null, 'Japan, no city');
    assert.equal(db.locate('127.0.0.1'), null);
    assert.equal(db.locate('1.1.1.1'), null);
  });

  it('never throws on a bad address', () => {
    for (const bad of ['', 'not an ip', '216.160.83', '216.160.83.56.1', '999.1.1.1', '::g', '1::2::3']) {
      assert.equal(db.locate(bad), null, bad);
    }
    assert.equal(db.locate(null as unknown as string), null);
  });

  it('names its database in its spec, the SHA-256 of the file among it', () => {
    assert.equal(db.spec.id, 'ip-mmdb');
    assert.equal(db.databaseType, 'GeoIP2-City');
    assert.deepEqual(db.spec.params, {
      databaseType: 'GeoIP2-City',
      buildEpochSeconds: 1458070720,
      ipVersion: 6,
      digest: createHash('sha256').update(CITY_TEST).digest('hex'),
    });
  });

  it('takes any Uint8Array, not only a Buffer', () => {
    const copy = new Uint8Array(new ArrayBuffer(CITY_TEST.length + 8), 8, CITY_TEST.length);
    copy.set(CITY_TEST);
    assert.deepEqual(new MmdbIpLocator(copy).locate('216.160.83.56'), MILTON);
  });

  it('refuses bytes that are not a MaxMind DB, and a database with no cities', () => {
    assert.throws(
      () => new MmdbIpLocator(Buffer.from('start_ip,end_ip,city,state\n'), 'cities.mmdb'),
      (err: unknown) => err instanceof IpLocatorError && /^cities\.mmdb: not a MaxMind DB file/.test(err.message),
    );
    assert.throws(
      () => new MmdbIpLocator(fixture('MaxMind-DB-test-ipv4-24.mmdb'), 'ipv4-24.mmdb'),
      (err: unknown) => err instanceof IpLocatorError && /^ipv4-24\.mmdb: a Test database has no cities/.test(err.message),
    );
  });
});

describe('usPlaceOfRecord', () => {
  const us = { iso_code: 'US' };
  it('takes the English city name and the state code of the first subdivision', () => {
    assert.deepEqual(
      usPlaceOfRecord({ country: us, city: { names: { en: 'Houston', de: 'Houston' } }, subdivisions: [{ iso_code: 'TX' }] }),
      {
        city: 'Houston',
        state: 'TX',
      },
    );
    assert.deepEqual(usPlaceOfRecord({ country: us, city: { names: { en: ' Austin ' } }, subdivisions: [{ iso_code: 'US-TX' }] }), {
      city: 'Austin',
      state: 'TX',
    });
  });

  it('reads the state from its English name when the code is missing (DB-IP Lite) or unknown', () => {
    assert.deepEqual(usPlaceOfRecord({ country: us, city: { names: { en: 'Denver' } }, subdivisions: [{ names: { en: 'Colorado' } }] }), {
      city: 'Denver',
      state: 'CO',
    });
    assert.deepEqual(
      usPlaceOfRecord({
        country: us,
        city: { names: { en: 'Washington' } },
        subdivisions: [{ iso_code: '11', names: { en: 'District of Columbia' } }],
      }),
      { city: 'Washington', state: 'DC' },
    );
  });

  it('gives null outside the US or without a city or a state', () => {
    const city = { names: { en: 'Houston' } };
    const subdivisions = [{ iso_code: 'TX' }];
    assert.equal(usPlaceOfRecord({ country: { iso_code: 'CA' }, city, subdivisions }), null);
    assert.equal(usPlaceOfRecord({ registered_country: us, city, subdivisions }), null, 'registered_country is not where the server is');
    assert.equal(usPlaceOfRecord({ country: us, subdivisions }), null);
    assert.equal(usPlaceOfRecord({ country: us, city: { names: { de: 'Houston' } }, subdivisions }), null);
    assert.equal(usPlaceOfRecord({ country: us, city: { names: { en: '' } }, subdivisions }), null);
    assert.equal(usPlaceOfRecord({ country: us, city }), null);
    assert.equal(usPlaceOfRecord({ country: us, city, subdivisions: [] }), null);
    assert.equal(usPlaceOfRecord({ country: us, city, subdivisions: [{ iso_code: 'ZZ', names: { en: 'Nowhere' } }] }), null);
    for (const junk of [null, undefined, 'US', 7, []]) assert.equal(usPlaceOfRecord(junk), null);
  });
});
