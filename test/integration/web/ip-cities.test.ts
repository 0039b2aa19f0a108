/**
 * The test web's IP → city table (`ip-cities.csv`, src/web/ip-cities.ts), as the truth export and a
 * started web write it: it parses as a range table, and every host is located where the rules say,
 * checked against the truth's hosts.tsv (which hosts share an address, which are city-local).
 *
 * The rules, per address: no city-local host → no row; else, with probability geo.ipCityRate, the
 * city of one of its city-local hosts, otherwise a target city none of them is local to.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Gazetteer } from '../../../src/geo/gazetteer.js';
import type { IpPlace } from '../../../src/geo/ip-locator.js';
import { RangeTableIpLocator } from '../../../src/geo/ip-range-table.js';
import { webConfigSchema, type WebConfigInput } from '../../../src/web/config.js';
import { ipCitiesCsv } from '../../../src/web/ip-cities.js';
import { WebModel } from '../../../src/web/model.js';
import { startTestWeb } from '../../../src/web/start.js';
import { ensureTruth } from '../../../src/web/truth/ensure.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { IP_CITIES_FILE, MANIFEST_FILE, cityLabel, type TruthHost } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';
import { withDir } from '../../helpers/scratch.js';

/** Many addresses, so most city-local hosts have an address of their own and the rate shows plainly. */
const SPREAD: WebConfigInput = { seed: 11, hosts: 400, pages: 800, server: { addressCount: 2000 }, geo: { hostRate: 0.5 } };

interface Census {
  /** Addresses holding city-local hosts of one city only, and how many of them are located in it. */
  readonly soleCity: { readonly addresses: number; readonly home: number };
  /** City-local hosts located in their own city, in another city, nowhere. */
  readonly local: { readonly own: number; readonly other: number; readonly none: number; readonly total: number };
  /** Addresses holding city-local hosts of several cities whose place is one of those cities. */
  readonly mixedHome: number;
  readonly mixed: number;
}

/** `"Name, ST"` of a located place, as hosts.tsv names cities; '' for none. */
function labelOf(place: IpPlace | null): string {
  return place === null ? '' : cityLabel({ name: place.city, state: place.state });
}

/** Exports the truth of `config` and returns it with the locator of its ip-cities.csv and the file's text. */
async function exported(config: WebConfigInput, dir: string): Promise<{ truth: Truth; locator: RangeTableIpLocator; text: string }> {
  await exportTruth(new WebModel(config), dir);
  const truth = await readTruth(dir);
  assert.ok(truth.manifest.files[IP_CITIES_FILE] !== undefined, 'the manifest lists ip-cities.csv');
  assert.ok(truth.manifest.columns[IP_CITIES_FILE] !== undefined, 'and documents its columns');
  const text = await readFile(join(dir, IP_CITIES_FILE), 'utf8');
  return { truth, locator: new RangeTableIpLocator(text, IP_CITIES_FILE), text };
}

/** Checks the rules on every address and counts how hosts are located. */
function census(truth: Truth, locator: RangeTableIpLocator): Census {
  const labels = new Set(truth.manifest.cities.map(cityLabel));
  const byIp = new Map<string, TruthHost[]>();
  for (const h of truth.hosts) byIp.set(h.ip, [...(byIp.get(h.ip) ?? []), h]);
  let soleAddresses = 0;
  let soleHome = 0;
  let mixed = 0;
  let mixedHome = 0;
  for (const [ip, group] of byIp) {
    const place = locator.locate(ip);
    const localCities = new Set(group.filter((h) => h.city !== '').map((h) => h.city));
    if (localCities.size === 0) {
      assert.equal(place, null, `${ip} holds no city-local host: no row`);
      continue;
    }
    assert.ok(place !== null, `${ip} holds city-local hosts: it has a place`);
    const label = labelOf(place);
    assert.ok(labels.has(label), `${ip}: ${label} is a target city`);
    const isHome = localCities.has(label);
    if (localCities.size === 1) {
      soleAddresses++;
      if (isHome) soleHome++;
    } else {
      mixed++;
      if (isHome) mixedHome++;
    }
  }
  let own = 0;
  let other = 0;
  let none = 0;
  const local = truth.hosts.filter((h) => h.city !== '');
  for (const h of local) {
    const place = locator.locate(h.ip);
    if (place === null) none++;
    else if (labelOf(place) === h.city) own++;
    else other++;
  }
  return { soleCity: { addresses: soleAddresses, home: soleHome }, local: { own, other, none, total: local.length }, mixed, mixedHome };
}

describe('ip-cities.csv', () => {
  it('defaults geo.ipCityRate to 0.5', () => {
    assert.equal(webConfigSchema.parse({}).geo.ipCityRate, 0.5);
  });

  it('locates the servers of city-local hosts at home at about geo.ipCityRate, elsewhere otherwise', async () => {
    await withDir('shoal-ip-cities-', async (dir) => {
      const { truth, locator } = await exported(SPREAD, dir);
      const c = census(truth, locator);
      // Binomial(n, 0.5): within 4 standard deviations (deterministic for this seed).
      const n = c.soleCity.addresses;
      assert.ok(n >= 150, `enough single-city addresses to measure (${n})`);
      const sd = Math.sqrt(n * 0.25);
      assert.ok(Math.abs(c.soleCity.home - n / 2) <= 4 * sd, `${c.soleCity.home} of ${n} addresses at home`);
      // A host alone with its city's hosts is at home exactly when its address is; every other is located somewhere.
      assert.equal(c.local.none, 0);
      assert.equal(c.local.own + c.local.other, c.local.total);
      const ownShare = c.local.own / c.local.total;
      assert.ok(Math.abs(ownShare - 0.5) < 0.12, `share of city-local hosts located in their own city: ${ownShare.toFixed(3)}`);
    });
  });

  it('puts every server at home with ipCityRate 1 and none with 0, exactly', async () => {
    await withDir('shoal-ip-cities-', async (dir) => {
      const one = await exported({ ...SPREAD, geo: { ...SPREAD.geo, ipCityRate: 1 } }, join(dir, 'one'));
      const everyHome = census(one.truth, one.locator);
      assert.equal(everyHome.soleCity.home, everyHome.soleCity.addresses);
      assert.equal(everyHome.mixedHome, everyHome.mixed);
      assert.ok(everyHome.mixed > 0, 'some addresses hold hosts of two cities');
      // Every host whose address holds no other city's local host is at home; of the others, only some.
      const hosts = one.truth.hosts;
      const soleHosts = hosts.filter((h) => h.city !== '' && hosts.every((o) => o.ip !== h.ip || o.city === '' || o.city === h.city));
      assert.ok(everyHome.local.own >= soleHosts.length && everyHome.local.own < everyHome.local.total, JSON.stringify(everyHome));
      for (const h of soleHosts) assert.equal(labelOf(one.locator.locate(h.ip)), h.city, h.name);

      const zero = await exported({ ...SPREAD, geo: { ...SPREAD.geo, ipCityRate: 0 } }, join(dir, 'zero'));
      const nowhereHome = census(zero.truth, zero.locator);
      assert.equal(nowhereHome.soleCity.home, 0);
      assert.equal(nowhereHome.mixedHome, 0);
      assert.equal(nowhereHome.local.own, 0);
      assert.equal(nowhereHome.local.other, nowhereHome.local.total);
    });
  });

  it('is a function of seed and configuration: the started web writes the bytes the truth export writes', async () => {
    await withDir('shoal-ip-cities-', async (dir) => {
      const config: WebConfigInput = { seed: 5, hosts: 60, pages: 300, server: { addressCount: 16 }, geo: { hostRate: 0.4 } };
      const { truth, locator, text } = await exported(config, join(dir, 'truth'));
      const web = await startTestWeb({ ...config, outDir: join(dir, 'served') });
      try {
        assert.equal(web.ipCitiesFile, join(dir, 'served', IP_CITIES_FILE));
        assert.equal(readFileSync(web.ipCitiesFile, 'utf8'), text);
      } finally {
        await web.close();
      }
      // Sixteen shared addresses: the rules hold there too.
      const c = census(truth, locator);
      assert.ok(c.local.total > 0 && c.local.own > 0 && c.local.other > 0, JSON.stringify(c));
      assert.equal(ipCitiesCsv(new WebModel(config)), text, 'same seed and config, same table');
      assert.notEqual(ipCitiesCsv(new WebModel({ ...config, seed: 6 })), text, 'another seed, another table');
      assert.match(text, /^# shoal test web \(seed 5\)/);
      // What the ip strategy does with an answer: the gazetteer of the same targets knows every city.
      const gazetteer = Gazetteer.usTop(truth.manifest.cities.length);
      for (const h of truth.hosts) {
        const place = locator.locate(h.ip);
        if (place !== null) assert.ok(gazetteer.targetIn(place.city, place.state) >= 0, `${h.ip}: ${labelOf(place)}`);
      }
    });
  });

  it('replaces a cached truth export from before the table (ensureTruth)', async () => {
    await withDir('shoal-ip-cities-', async (dir) => {
      const small: WebConfigInput = { seed: 3, hosts: 5, pages: 100 };
      assert.deepEqual(await ensureTruth(small, dir), { isCached: false });
      assert.deepEqual(await ensureTruth(small, dir), { isCached: true });
      const path = join(dir, MANIFEST_FILE);
      const manifest = JSON.parse(await readFile(path, 'utf8')) as { files: Record<string, unknown> };
      delete manifest.files[IP_CITIES_FILE];
      await writeFile(path, JSON.stringify(manifest));
      await rm(join(dir, IP_CITIES_FILE));
      await assert.rejects(readTruth(dir), /lists no ip-cities\.csv/);
      assert.deepEqual(await ensureTruth(small, dir), { isCached: false });
      assert.ok((await readTruth(dir)).manifest.files[IP_CITIES_FILE] !== undefined);
    });
  });
});
