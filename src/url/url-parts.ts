/**
 * The parts of a normalized URL the node keys things by, cut with string operations (a normalized
 * URL is always `scheme://[userinfo@]host[:port]/path[?query]`, see url/normalize.ts).
 */

/** Keys of one normalized URL. */
export interface UrlParts {
  /** `scheme://host[:port]`: the key of robots.txt rules (RFC 9309 §2.3: per scheme, host and port). */
  readonly origin: string;
  /** `host[:port]`, without userinfo: the frontier's politeness key. */
  readonly hostKey: string;
  /** Path and query, what robots.txt rules match. */
  readonly pathAndQuery: string;
}

/** Host name (no port) of a politeness key (`host[:port]`, IPv6 in brackets), as normalization names hosts. */
export function hostnameOfKey(hostKey: string): string {
  return hostKey.replace(/:\d+$/, '');
}

/** `host[:port]` of a normalized absolute URL, without userinfo: {@link urlParts}'s `hostKey` alone, for loops over many links. */
export function hostKeyOf(url: string): string {
  const start = url.indexOf('://') + 3;
  let end = url.indexOf('/', start);
  if (end < 0) end = url.length;
  const at = url.lastIndexOf('@', end - 1);
  return url.slice(at < start ? start : at + 1, end);
}

/** Splits a normalized absolute URL. */
export function urlParts(url: string): UrlParts {
  const schemeEnd = url.indexOf('://');
  const hostKey = hostKeyOf(url);
  const pathStart = url.indexOf('/', schemeEnd + 3);
  return { origin: `${url.slice(0, schemeEnd)}://${hostKey}`, hostKey, pathAndQuery: pathStart < 0 ? '/' : url.slice(pathStart) };
}
