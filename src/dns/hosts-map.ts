/**
 * Fixed host -> IP answers that take precedence over DNS: `--resolve HOST=IP` entries (HOST may be
 * a wildcard such as `*.test`) and files in the /etc/hosts format, such as the one the test web
 * writes. This is how a crawl reaches synthetic host names on loopback addresses.
 */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { ConfigError, type ConfigIssue } from '../core/errors.js';

/** One answer of a hosts map. */
export interface HostsMapAnswer {
  readonly ip: string;
  readonly family: 4 | 6;
}

/** Lowercase ASCII (punycode) form of a host name, without a trailing dot; '' when invalid. */
export function canonicalHostName(name: string): string {
  const trimmed = name.trim().replace(/\.$/, '');
  if (trimmed === '') return '';
  return domainToASCII(trimmed.toLowerCase());
}

/**
 * Host names mapped to addresses. Exact names win over wildcards; among wildcards the longest
 * suffix wins (`*.a.test` before `*.test`); `*` alone matches every name.
 */
export class HostsMap {
  private readonly exact = new Map<string, HostsMapAnswer>();
  /** Wildcard suffixes (with their leading dot, '' for `*`), longest first. */
  private readonly wildcards: { readonly suffix: string; readonly answer: HostsMapAnswer }[] = [];

  /** Number of entries (exact names and wildcards). */
  get size(): number {
    return this.exact.size + this.wildcards.length;
  }

  /**
   * Parses `HOST=IP` entries (as given to `--resolve`). Every bad entry is reported, with the path
   * `<label>[i]`, in one {@link ConfigError}.
   */
  static fromEntries(entries: readonly string[], label = 'resolve'): HostsMap {
    const map = new HostsMap();
    const issues: ConfigIssue[] = [];
    entries.forEach((entry, i) => {
      const eq = entry.indexOf('=');
      if (eq < 0) {
        issues.push({ path: `${label}[${i}]`, message: `expected HOST=IP, got ${JSON.stringify(entry)}` });
        return;
      }
      const problem = map.add(entry.slice(0, eq), entry.slice(eq + 1));
      if (problem !== null) issues.push({ path: `${label}[${i}]`, message: problem });
    });
    if (issues.length > 0) throw new ConfigError(issues);
    return map;
  }

  /**
   * Parses a file in the /etc/hosts format: `IP name [name...]` per line, `#` comments. Bad lines
   * are reported with the path `<label>:<line>`.
   */
  static fromHostsFile(text: string, label = 'hosts-file'): HostsMap {
    const map = new HostsMap();
    const issues: ConfigIssue[] = [];
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') return;
      const [ip, ...names] = line.split(/\s+/);
      if (names.length === 0) {
        issues.push({ path: `${label}:${i + 1}`, message: `expected "IP name", got ${JSON.stringify(raw)}` });
        return;
      }
      for (const name of names) {
        const problem = map.add(name, ip ?? '');
        if (problem !== null) issues.push({ path: `${label}:${i + 1}`, message: problem });
      }
    });
    if (issues.length > 0) throw new ConfigError(issues);
    return map;
  }

  /** Adds one mapping; returns what is wrong with it, or null. A later entry replaces an earlier one. */
  add(host: string, ip: string): string | null {
    const address = ip.trim().replace(/^\[(.*)\]$/, '$1');
    const family = isIP(address);
    if (family === 0) return `not an IP address: ${JSON.stringify(ip)}`;
    const answer: HostsMapAnswer = { ip: address, family: family as 4 | 6 };
    const name = host.trim();
    if (name === '*') return this.addWildcard('', answer);
    if (name.startsWith('*.')) {
      const suffix = canonicalHostName(name.slice(2));
      if (suffix === '') return `not a host name: ${JSON.stringify(host)}`;
      return this.addWildcard(`.${suffix}`, answer);
    }
    const canonical = canonicalHostName(name);
    if (canonical === '' || canonical.includes('*')) return `not a host name: ${JSON.stringify(host)}`;
    this.exact.set(canonical, answer);
    return null;
  }

  /** The address of `host` (any case, trailing dot allowed), or undefined when no entry covers it. */
  lookup(host: string): HostsMapAnswer | undefined {
    const name = canonicalHostName(host);
    const hit = this.exact.get(name);
    if (hit !== undefined) return hit;
    for (const w of this.wildcards) {
      if (w.suffix === '' || (name.endsWith(w.suffix) && name.length > w.suffix.length)) return w.answer;
    }
    return undefined;
  }

  private addWildcard(suffix: string, answer: HostsMapAnswer): null {
    const existing = this.wildcards.findIndex((w) => w.suffix === suffix);
    if (existing >= 0) this.wildcards.splice(existing, 1);
    this.wildcards.push({ suffix, answer });
    this.wildcards.sort((a, b) => b.suffix.length - a.suffix.length);
    return null;
  }
}
