/**
 * The IpLocator extension point (SPEC §4.3, the `ip` strategy; seed 003 §3.4.5): the (city, state)
 * where the server behind an IP address stands. A geographically focused crawl locates the address
 * a page was fetched from and sends the page's links to the node owning that city.
 *
 * Implementations, one file each: `ip-range-table.ts` (a CSV table of address ranges: the test
 * web publishes its own, `ip-cities.csv`) and `ip-mmdb.ts` (a MaxMind DB file, such as GeoLite2-City
 * or DB-IP City Lite). `ip-locators.ts` picks one by file name. The caller reads the file: these
 * modules take bytes or text.
 *
 * **Contract**
 * - `locate(ip)` is a pure lookup: no I/O, no clock, no state carried from one call to the next,
 *   safe to call from any number of callers in any order.
 * - It never throws on its argument: an address that does not parse, an address the database does
 *   not know, an IPv6 address in an IPv4-only database, or a place the database cannot name as a
 *   US city and state, all give null. (A damaged database may still throw when a lookup reaches the
 *   damage: that is infrastructure, not an answer.)
 * - IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are located as the IPv4 address; brackets and an
 *   IPv6 zone are ignored (ip-address.ts `parseRecordedIp`).
 * - An answer's `state` is the 2-letter USPS code and `city` the city's name as the database
 *   writes it; `Gazetteer.targetIn(city, state)` turns it into a target (or −1).
 * - Deterministic: the same database and address give the same answer on every node. `spec.params`
 *   carries the database's SHA-256 (`digest`) so nodes of one crawl can check they locate alike.
 * - Constructors validate the whole database they can and throw an {@link IpLocatorError} naming
 *   the file (and line, for a table) at fault; they never fall back to an empty locator.
 *
 * **Sources**: seed 003 §3.4.5 (IP-address-based collaboration: the crawler maps the address it
 * fetched a page from to a city with an IP mapping service, and routes the page's links to that
 * city's node).
 */

/** What a locator is, exactly: an id (its file name) and the parameters naming its database. */
export interface IpLocatorSpec {
  readonly id: string;
  readonly params: Readonly<Record<string, string | number>>;
}

/** A located server: a US city and its state. */
export interface IpPlace {
  readonly city: string;
  /** 2-letter USPS code, upper case. */
  readonly state: string;
}

/** The IP locator extension point; see the file comment for the Contract. */
export interface IpLocator {
  readonly spec: IpLocatorSpec;
  locate(ip: string): IpPlace | null;
}

/** A database that cannot be used; the message names the file, and the line where there is one. */
export class IpLocatorError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IpLocatorError';
  }
}
