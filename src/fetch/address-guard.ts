/**
 * Which addresses the fetcher may connect to. A crawler follows links written by strangers: without
 * a guard, a page could point it at the machine's own services (loopback), the local network or a
 * cloud metadata endpoint (link-local). By default only public addresses are allowed; tests and
 * the test web allow loopback explicitly (`--allow-loopback`), private networks need
 * `--allow-private`. The check runs on the resolved IP, after DNS, so a public name that resolves
 * to a private address is refused too.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** What kind of address an IP is (the refusal reason in the crawl log). */
export const AddressKind = {
  public: 'public',
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  reserved: 'reserved',
  invalid: 'invalid',
} as const;
export type AddressKind = (typeof AddressKind)[keyof typeof AddressKind];

/** What the crawl allows besides public addresses. */
export interface AddressPolicy {
  readonly allowLoopback: boolean;
  readonly allowPrivate: boolean;
}

/** Kinds never allowed, whatever the policy: nothing legitimate is served there. */
const ALWAYS_REFUSED: ReadonlySet<AddressKind> = new Set([
  AddressKind.unspecified,
  AddressKind.multicast,
  AddressKind.reserved,
  AddressKind.invalid,
  AddressKind.linkLocal,
]);

/** IPv4 ranges by kind: [first address as uint32, prefix length, kind]. */
const V4_RANGES: readonly (readonly [number, number, AddressKind])[] = [
  [v4('0.0.0.0'), 8, AddressKind.unspecified],
  [v4('127.0.0.0'), 8, AddressKind.loopback],
  [v4('10.0.0.0'), 8, AddressKind.private],
  [v4('172.16.0.0'), 12, AddressKind.private],
  [v4('192.168.0.0'), 16, AddressKind.private],
  [v4('100.64.0.0'), 10, AddressKind.private], // carrier-grade NAT (RFC 6598)
  [v4('169.254.0.0'), 16, AddressKind.linkLocal], // includes cloud metadata endpoints
  [v4('192.0.0.0'), 24, AddressKind.reserved], // IETF protocol assignments
  [v4('198.18.0.0'), 15, AddressKind.reserved], // benchmarking
  [v4('224.0.0.0'), 4, AddressKind.multicast],
  [v4('240.0.0.0'), 4, AddressKind.reserved], // includes 255.255.255.255
];

function v4(text: string): number {
  return text.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

function classifyV4(n: number): AddressKind {
  for (const [base, bits, kind] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === base) return kind;
  }
  return AddressKind.public;
}

/** The eight 16-bit groups of an IPv6 address (valid input assumed), with an embedded IPv4 tail expanded. */
function v6Groups(ip: string): number[] {
  let text = ip.split('%')[0] as string; // zone index
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail !== null) {
    const n = v4(tail[1] as string);
    text = `${text.slice(0, tail.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** What kind of address `ip` (an IPv4 or IPv6 literal, brackets allowed) is. */
export function classifyAddress(ip: string): AddressKind {
  const text = ip.replace(/^\[(.*)\]$/, '$1');
  if (isIPv4(text)) return classifyV4(v4(text));
  if (!isIPv6(text)) return AddressKind.invalid;
  const g = v6Groups(text);
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h = 0, i = 0] = g;
  const isZeroPrefix = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible forms carry an IPv4 address: judge that one.
  if (isZeroPrefix && f === 0xffff) return classifyV4(((h << 16) | i) >>> 0);
  if (isZeroPrefix && f === 0) {
    if (h === 0 && i === 0) return AddressKind.unspecified;
    if (h === 0 && i === 1) return AddressKind.loopback;
    return classifyV4(((h << 16) | i) >>> 0); // deprecated IPv4-compatible form ::a.b.c.d
  }
  if ((a & 0xfe00) === 0xfc00) return AddressKind.private; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return AddressKind.linkLocal; // fe80::/10
  if ((a & 0xff00) === 0xff00) return AddressKind.multicast;
  if (a === 0x64 && b === 0xff9b) return classifyV4(((h << 16) | i) >>> 0); // NAT64 64:ff9b::/96
  if (a === 0x2001 && b === 0x0db8) return AddressKind.reserved; // documentation
  return AddressKind.public;
}

/** Whether the fetcher may connect to `ip`; when not, why. */
export function checkAddress(
  ip: string,
  policy: AddressPolicy,
): { readonly isAllowed: true } | { readonly isAllowed: false; readonly reason: AddressKind } {
  const kind = classifyAddress(ip);
  if (kind === AddressKind.public) return { isAllowed: true };
  if (ALWAYS_REFUSED.has(kind)) return { isAllowed: false, reason: kind };
  if (kind === AddressKind.loopback && policy.allowLoopback) return { isAllowed: true };
  if (kind === AddressKind.private && policy.allowPrivate) return { isAllowed: true };
  return { isAllowed: false, reason: kind };
}
