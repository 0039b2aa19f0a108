/**
 * `ip-range-table`: an IP locator over a CSV table of address ranges, one located range a line:
 *
 * ```
 * # comments and blank lines are skipped; the header line is optional
 * start_ip,end_ip,city,state
 * 127.0.1.1,127.0.1.1,Houston,TX
 * 2001:db8::,2001:db8::ffff,"Winston-Salem",NC
 * ```
 *
 * Bounds are inclusive, IPv4 or IPv6 (both bounds of one version; an IPv4-mapped IPv6 bound is
 * IPv4), `state` is a 2-letter code. Fields may be double-quoted (`""` for a quote inside); outside
 * quotes a `#` starts a comment. Ranges may come in any order but must not overlap: an overlap is an
 * error naming both lines, since which of two rows a crawl would take is nothing a table should
 * leave to chance. A lookup is a binary search over the ranges sorted by start, O(log n).
 *
 * The test web writes its own table (`ip-cities.csv`, src/web/ip-cities.ts) with
 * {@link formatIpRangeTable}, so a crawl can use the `ip` strategy with no outside database.
 */
import { createHash } from 'node:crypto';
import { parseIp, parseRecordedIp, type IpVersion } from './ip-address.js';
import { IpLocatorError, type IpLocator, type IpLocatorSpec, type IpPlace } from './ip-locator.js';

/** The columns of a range table, in order (also its optional header line). */
export const RANGE_TABLE_COLUMNS = ['start_ip', 'end_ip', 'city', 'state'] as const;

/** One row of a range table as written. */
export interface IpRange {
  /** First address of the range (inclusive). */
  readonly start: string;
  /** Last address of the range (inclusive). */
  readonly end: string;
  readonly city: string;
  /** 2-letter code. */
  readonly state: string;
}

/** A parsed row: its bounds as numbers and the line it came from. */
interface Row {
  readonly version: IpVersion;
  readonly start: bigint;
  readonly end: bigint;
  readonly place: IpPlace;
  readonly line: number;
  /** `start–end` as written, for messages. */
  readonly text: string;
}

/** The ranges of one IP version, sorted by start, in parallel arrays. */
interface RangeIndex {
  readonly starts: readonly bigint[];
  readonly ends: readonly bigint[];
  readonly places: readonly IpPlace[];
}

/** Splits a CSV line into trimmed fields (quotes honoured, `#` outside quotes ends the line); null for a blank or comment line. */
function splitLine(line: string, where: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let isQuoted = false;
  let wasQuoted = false;
  let i = 0;
  const push = (): void => {
    fields.push(wasQuoted ? field : field.trim());
    field = '';
    wasQuoted = false;
  };
  for (; i < line.length; i++) {
    const ch = line[i] as string;
    if (isQuoted) {
      if (ch !== '"') field += ch;
      else if (line[i + 1] === '"') field += line[++i];
      else isQuoted = false;
    } else if (ch === ',') {
      push();
    } else if (ch === '#') {
      break;
    } else if (wasQuoted) {
      if (ch.trim() !== '') throw new IpLocatorError(`${where}: text after a closing quote`);
    } else if (ch === '"' && field.trim() === '') {
      isQuoted = true;
      wasQuoted = true;
      field = '';
    } else {
      field += ch;
    }
  }
  if (isQuoted) throw new IpLocatorError(`${where}: unterminated quote`);
  if (fields.length === 0 && !wasQuoted && field.trim() === '') return null;
  push();
  return fields;
}

/** Parses and checks one data line. */
function parseRow(fields: readonly string[], line: number, where: string): Row {
  if (fields.length !== RANGE_TABLE_COLUMNS.length) {
    throw new IpLocatorError(
      `${where}: expected ${RANGE_TABLE_COLUMNS.length} fields (${RANGE_TABLE_COLUMNS.join(',')}), got ${fields.length}`,
    );
  }
  const [startText, endText, city, stateText] = fields as [string, string, string, string];
  const start = parseIp(startText);
  if (start === null) throw new IpLocatorError(`${where}: start_ip ${JSON.stringify(startText)} is not an IPv4 or IPv6 address`);
  const end = parseIp(endText);
  if (end === null) throw new IpLocatorError(`${where}: end_ip ${JSON.stringify(endText)} is not an IPv4 or IPv6 address`);
  if (start.version !== end.version) {
    throw new IpLocatorError(`${where}: start_ip ${startText} is IPv${start.version} but end_ip ${endText} is IPv${end.version}`);
  }
  if (start.value > end.value) throw new IpLocatorError(`${where}: start_ip ${startText} comes after end_ip ${endText}`);
  if (city === '') throw new IpLocatorError(`${where}: the city is empty`);
  if (!/^[A-Za-z]{2}$/.test(stateText)) throw new IpLocatorError(`${where}: state ${JSON.stringify(stateText)} is not a 2-letter code`);
  return {
    version: start.version,
    start: start.value,
    end: end.value,
    place: Object.freeze({ city, state: stateText.toUpperCase() }),
    line,
    text: `${startText}–${endText}`,
  };
}

/** Sorts one version's rows by start and checks that no two overlap. */
function indexRows(rows: Row[], origin: string): RangeIndex {
  rows.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.line - b.line));
  for (let i = 1; i < rows.length; i++) {
    const prev = rows[i - 1] as Row;
    const cur = rows[i] as Row;
    if (cur.start <= prev.end) {
      const [first, second] = prev.line < cur.line ? [prev, cur] : [cur, prev];
      throw new IpLocatorError(`${origin} line ${second.line}: range ${second.text} overlaps line ${first.line} (${first.text})`);
    }
  }
  return { starts: rows.map((r) => r.start), ends: rows.map((r) => r.end), places: rows.map((r) => r.place) };
}

/** The place of `value` in `index`, or null: the last range starting at or before it, if it reaches it. */
function lookup(index: RangeIndex, value: bigint): IpPlace | null {
  let lo = 0;
  let hi = index.starts.length; // first range starting after value
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((index.starts[mid] as bigint) <= value) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  return i >= 0 && value <= (index.ends[i] as bigint) ? (index.places[i] as IpPlace) : null;
}

/** Locates addresses with a CSV range table; see the file comment. */
export class RangeTableIpLocator implements IpLocator {
  readonly spec: IpLocatorSpec;
  /** Number of ranges in the table. */
  readonly size: number;
  readonly #v4: RangeIndex;
  readonly #v6: RangeIndex;

  /**
   * Parses `text` (from the file `origin`, named in errors).
   *
   * @throws IpLocatorError naming the line: a malformed row, an unknown address, a range running
   *   backwards, a bad state code, two overlapping ranges (both lines named), or a table with no row.
   */
  constructor(text: string, origin = 'IP range table') {
    const v4: Row[] = [];
    const v6: Row[] = [];
    let isFirst = true;
    text
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .forEach((raw, i) => {
        const where = `${origin} line ${i + 1}`;
        const fields = splitLine(raw, where);
        if (fields === null) return;
        const isHeader = isFirst && fields.map((f) => f.toLowerCase()).join(',') === RANGE_TABLE_COLUMNS.join(',');
        isFirst = false;
        if (isHeader) return;
        const row = parseRow(fields, i + 1, where);
        (row.version === 4 ? v4 : v6).push(row);
      });
    if (v4.length + v6.length === 0) throw new IpLocatorError(`${origin}: the table holds no range`);
    this.#v4 = indexRows(v4, origin);
    this.#v6 = indexRows(v6, origin);
    this.size = v4.length + v6.length;
    this.spec = Object.freeze({
      id: 'ip-range-table',
      params: Object.freeze({ ranges: this.size, digest: createHash('sha256').update(text, 'utf8').digest('hex') }),
    });
  }

  locate(ip: string): IpPlace | null {
    const address = typeof ip === 'string' ? parseRecordedIp(ip) : null;
    if (address === null) return null;
    return lookup(address.version === 4 ? this.#v4 : this.#v6, address.value);
  }
}

/** A field as CSV writes it: quoted when it holds a comma, a quote, a `#` or edge spaces. */
function csvField(value: string): string {
  if (/[\r\n]/.test(value)) throw new IpLocatorError(`a range table field cannot hold a line break: ${JSON.stringify(value)}`);
  return /[",#]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Writes a range table: `comments` as `# ` lines, the header, then one line per range in the
 * order given. What it writes {@link RangeTableIpLocator} reads back (given non-overlapping ranges).
 */
export function formatIpRangeTable(ranges: readonly IpRange[], comments: readonly string[] = []): string {
  const lines = comments.flatMap((c) => c.split(/\r?\n/)).map((c) => (c === '' ? '#' : `# ${c}`));
  lines.push(RANGE_TABLE_COLUMNS.join(','));
  for (const r of ranges) lines.push([r.start, r.end, r.city, r.state].map(csvField).join(','));
  return `${lines.join('\n')}\n`;
}
