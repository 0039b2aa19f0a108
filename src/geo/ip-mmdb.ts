/**
 * `ip-mmdb`: an IP locator over a MaxMind DB file (`.mmdb`) of the city kind: MaxMind's GeoLite2-City
 * and GeoIP2-City, DB-IP's City Lite (CC-BY 4.0), and any file written to the same record layout.
 * The file is read by `mmdb-lib` (the reader behind the `maxmind` package) from a Buffer the caller
 * loaded; a lookup walks the file's binary search tree, O(address bits).
 *
 * A record becomes a place ({@link usPlaceOfRecord}) only when its `country.iso_code` is `US` and it
 * names both a city (`city.names.en`) and a state: the first subdivision's `iso_code` (GeoIP2 writes
 * `TX`), or, when a database leaves the code out (DB-IP Lite writes only names), the state's English
 * name (`subdivisions[0].names.en`, "Texas"). The crawl's targets are US cities (SPEC §4.3); a
 * server elsewhere is simply not located. `country` is where the network is, which is what locating
 * a server asks; `registered_country` (who holds the block) is not used.
 */
import { createHash } from 'node:crypto';
import { Reader, type CityResponse } from 'mmdb-lib';
import { US_STATES } from './data/us-cities.js';
import { formatIp, parseRecordedIp } from './ip-address.js';
import { IpLocatorError, type IpLocator, type IpLocatorSpec, type IpPlace } from './ip-locator.js';

/** State name in lower case → USPS code, for databases that name subdivisions without a code. */
const STATE_BY_NAME = new Map(Object.entries(US_STATES).map(([code, name]) => [name.toLowerCase(), code]));

/** The US state code of a subdivision record: its ISO code (`TX` or `US-TX`) or its English name; null when neither says. */
function stateOf(sub: unknown): string | null {
  if (sub === null || typeof sub !== 'object') return null;
  const { iso_code: iso, names } = sub as { iso_code?: unknown; names?: { en?: unknown } };
  if (typeof iso === 'string') {
    const code = iso.toUpperCase().replace(/^US-/, '');
    if (Object.hasOwn(US_STATES, code)) return code;
  }
  const name = names?.en;
  return typeof name === 'string' ? (STATE_BY_NAME.get(name.trim().toLowerCase()) ?? null) : null;
}

/**
 * The US city and state a City database record names, or null (a record outside the US, or one
 * without a city or a state). Exported for tests and for other readers of the same layout.
 */
export function usPlaceOfRecord(record: unknown): IpPlace | null {
  if (record === null || typeof record !== 'object') return null;
  const r = record as CityResponse;
  if (r.country?.iso_code !== 'US') return null;
  const city = r.city?.names?.en;
  if (typeof city !== 'string' || city.trim() === '') return null;
  const state = stateOf(r.subdivisions?.[0]);
  return state === null ? null : { city: city.trim(), state };
}

/** Locates addresses with a MaxMind DB of the city kind; see the file comment. */
export class MmdbIpLocator implements IpLocator {
  readonly spec: IpLocatorSpec;
  /** The database's own name for its kind (`GeoLite2-City`, `DBIP-City-Lite`, ...). */
  readonly databaseType: string;
  readonly #reader: Reader<CityResponse>;
  readonly #isIpv4Only: boolean;
  readonly #origin: string;

  /**
   * Opens the database in `bytes` (the file `origin`, named in errors).
   *
   * @throws IpLocatorError when the bytes are not a MaxMind DB, or the database is not of the city
   *   kind (a country or ASN database would locate nothing, silently).
   */
  constructor(bytes: Uint8Array, origin = 'MaxMind DB') {
    const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let reader: Reader<CityResponse>;
    try {
      reader = new Reader<CityResponse>(buffer);
    } catch (err) {
      throw new IpLocatorError(`${origin}: not a MaxMind DB file (${(err as Error).message})`, { cause: err });
    }
    const meta = reader.metadata;
    if (!/city/i.test(meta.databaseType)) {
      throw new IpLocatorError(
        `${origin}: a ${meta.databaseType} database has no cities: use a City database (GeoLite2-City, DB-IP City Lite)`,
      );
    }
    this.#reader = reader;
    this.#isIpv4Only = meta.ipVersion === 4;
    this.#origin = origin;
    this.databaseType = meta.databaseType;
    this.spec = Object.freeze({
      id: 'ip-mmdb',
      params: Object.freeze({
        databaseType: meta.databaseType,
        buildEpochSeconds: Math.floor(meta.buildEpoch.getTime() / 1000),
        ipVersion: meta.ipVersion,
        digest: createHash('sha256').update(buffer).digest('hex'),
      }),
    });
  }

  locate(ip: string): IpPlace | null {
    const address = typeof ip === 'string' ? parseRecordedIp(ip) : null;
    if (address === null || (address.version === 6 && this.#isIpv4Only)) return null;
    let record: CityResponse | null;
    try {
      record = this.#reader.get(formatIp(address));
    } catch (err) {
      // Only a damaged file gets here: the address was checked above (see the Contract).
      throw new IpLocatorError(`${this.#origin}: the record of ${ip} cannot be read (${(err as Error).message})`, { cause: err });
    }
    return usPlaceOfRecord(record);
  }
}
