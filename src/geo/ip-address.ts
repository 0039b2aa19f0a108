/**
 * IP addresses as numbers, for the IP locators (ip-locator.ts): IPv4 as a 32-bit value, IPv6 as a
 * 128-bit value, both as `bigint` so one comparison serves both.
 *
 * Parsing is strict where a file is read (a range table names its bounds exactly) and the same
 * where a crawler asks: dotted quads without leading zeros, RFC 4291 IPv6 text (one `::` at most, an
 * IPv4 tail allowed). An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack socket
 * reports for an IPv4 peer) is the IPv4 address it maps, so a crawler that records either form
 * locates the same server.
 */

/** 4 or 6. */
export type IpVersion = 4 | 6;

/** A parsed address. */
export interface IpAddress {
  readonly version: IpVersion;
  /** 0 .. 2^32 − 1 for IPv4, 0 .. 2^128 − 1 for IPv6. */
  readonly value: bigint;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const MAPPED_PREFIX = 0xffffn;

/** The 32-bit value of a dotted quad, or null (no leading zeros: `010` could be read as octal). */
function parseIpv4(text: string): bigint | null {
  const m = IPV4.exec(text);
  if (m === null) return null;
  let value = 0n;
  for (let i = 1; i <= 4; i++) {
    const part = m[i] as string;
    if (part.length > 1 && part.startsWith('0')) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

/** The 16-bit groups of one side of `::`, an IPv4 tail counting as two; null when malformed. */
function groupsOf(side: string, mayEndInIpv4: boolean): number[] | null {
  if (side === '') return [];
  const parts = side.split(':');
  const out: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (i === parts.length - 1 && mayEndInIpv4 && part.includes('.')) {
      const v4 = parseIpv4(part);
      if (v4 === null) return null;
      out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (HEX_GROUP.test(part)) {
      out.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return out;
}

/** The 128-bit value of an IPv6 address, or null. */
function parseIpv6(text: string): bigint | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  let groups: number[];
  if (halves.length === 1) {
    const all = groupsOf(text, true);
    if (all === null || all.length !== 8) return null;
    groups = all;
  } else {
    const head = groupsOf(halves[0] as string, false);
    const tail = groupsOf(halves[1] as string, true);
    if (head === null || tail === null || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** Parses an IPv4 or IPv6 address (see the file comment); null when `text` is not one. */
export function parseIp(text: string): IpAddress | null {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    if (value === null) return null;
    return value >> 32n === MAPPED_PREFIX ? { version: 4, value: value & 0xffffffffn } : { version: 6, value };
  }
  const value = parseIpv4(text);
  return value === null ? null : { version: 4, value };
}

/**
 * Parses an address as a crawler may have recorded it: surrounding spaces, URL brackets (`[::1]`)
 * and an IPv6 zone (`fe80::1%eth0`) are dropped first. Null when what is left is not an address.
 */
export function parseRecordedIp(text: string): IpAddress | null {
  let t = text.trim();
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  const zone = t.indexOf('%');
  if (zone >= 0 && t.includes(':')) t = t.slice(0, zone);
  return parseIp(t);
}

/** Dotted quad of an IPv4 address, eight full hex groups of an IPv6 one (a form every parser reads). */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) {
    const v = Number(ip.value);
    return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
  }
  const groups: string[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(((ip.value >> shift) & 0xffffn).toString(16));
  return groups.join(':');
}
