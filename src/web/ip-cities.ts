/**
 * Where the test web's servers stand: the IP → city table of its own hosts (`ip-cities.csv`), so a
 * crawl can use the `ip` geo strategy (SPEC §4.3; seed 003 §3.4.5) with no outside database. The
 * table is a range table (src/geo/ip-range-table.ts), one `/32` range per located address, and a
 * deterministic function of (seed, configuration): same web, same bytes.
 *
 * A city is a property of a server, not of a host: several hosts share each loopback address (like
 * shared hosting), and a crawler sees only the address it fetched from. So each address that holds
 * at least one city-local host is placed once, on its own random stream (`Purpose.ipCity`, keyed by
 * the address):
 * - with probability `geo.ipCityRate` in the city of one of its city-local hosts, picked uniformly
 *   (the server is hosted at home);
 * - otherwise in a target city that none of its city-local hosts is local to, picked uniformly (the
 *   server is hosted elsewhere); an address whose local hosts already cover every target gets no
 *   row.
 * An address holding no city-local host gets no row: a locator answers null for it, and the pages
 * it serves have no place.
 *
 * Every host on a placed address is located there, the non-local ones too, and a city-local host
 * that shares its address with a host of another city may be located in that city even when the
 * draw was "at home". So the share of city-local hosts located in their own city is `ipCityRate`
 * when no two of them share an address, and less as they crowd onto fewer addresses: with the
 * defaults (seed 1: 200 hosts on 61 addresses, 33 city-local hosts on 29 of them) 18 of the 33 are
 * located in their own city and 83 of the 167 other hosts in some city; a 1,000-host web on 64
 * addresses locates 31 of its 226 city-local hosts at home. The truth's hosts.tsv (`ip`, `city`) and
 * this table give every host's exact answer.
 */
import { Purpose, Rng } from '../core/prng.js';
import type { UsCity } from '../geo/data/us-cities.js';
import { formatIpRangeTable } from '../geo/ip-range-table.js';
import type { WebConfig } from './config.js';
import { ipToInt, type HostInfo } from './hosts.js';

/** What the table is computed from (a `WebModel` is one). */
export interface IpCitySource {
  readonly config: WebConfig;
  readonly hosts: readonly HostInfo[];
  readonly cities: readonly UsCity[];
}

/** A located server: one address of the test web and the target city it stands in. */
export interface ServerPlace {
  readonly ip: string;
  /** Index into the target cities. */
  readonly city: number;
  /** Whether `city` is the city of one of the address's city-local hosts (drawn with `geo.ipCityRate`). */
  readonly isHome: boolean;
}

/** Every located address in ascending address order (see the file comment for the rules). */
export function serverPlaces(web: IpCitySource): ServerPlace[] {
  const { config, hosts, cities } = web;
  const byIp = new Map<string, HostInfo[]>();
  for (const h of hosts) {
    const group = byIp.get(h.ip);
    if (group === undefined) byIp.set(h.ip, [h]);
    else group.push(h);
  }
  const out: ServerPlace[] = [];
  for (const ip of [...byIp.keys()].sort((a, b) => ipToInt(a) - ipToInt(b))) {
    const local = (byIp.get(ip) as HostInfo[]).filter((h) => h.city >= 0);
    if (local.length === 0) continue;
    const rng = new Rng(config.seed, Purpose.ipCity, ipToInt(ip));
    if (rng.chance(config.geo.ipCityRate)) {
      out.push({ ip, city: rng.pick(local).city, isHome: true });
      continue;
    }
    const own = new Set(local.map((h) => h.city));
    const elsewhere = cities.map((_, i) => i).filter((i) => !own.has(i));
    if (elsewhere.length > 0) out.push({ ip, city: rng.pick(elsewhere), isHome: false });
  }
  return out;
}

/** The text of `ip-cities.csv`: a range table (src/geo/ip-range-table.ts) of {@link serverPlaces}. */
export function ipCitiesCsv(web: IpCitySource): string {
  const places = serverPlaces(web);
  const homes = places.filter((p) => p.isHome).length;
  return formatIpRangeTable(
    places.map((p) => {
      const city = web.cities[p.city] as UsCity;
      return { start: p.ip, end: p.ip, city: city.name, state: city.state };
    }),
    [
      `shoal test web (seed ${web.config.seed}): where the server at each address stands, for the ip geo strategy`,
      `${places.length} located addresses (${homes} in a city of their own local hosts, geo.ipCityRate ${web.config.geo.ipCityRate});`,
      'an address with no city-local host is not listed',
    ],
  );
}
