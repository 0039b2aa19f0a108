/**
 * Host blocklist (seed 001: "remove blacklisted sites"; SPEC §2.3). Two lists:
 * - `hosts` block exactly the host named (`ads.example.com` blocks that host, not `example.com`);
 * - `domains` block the name and every host below it on a label boundary, so a registrable domain
 *   (`example.co.uk`) blocks all of its hosts, and a public suffix (`zip`) a whole top-level domain.
 *   `badexample.com` is not below `example.com`.
 *
 * Entries are written as users think of them and compared as the normalizer writes hosts: case,
 * a trailing dot and a leading dot are ignored and Unicode names become punycode
 * (`caffè.test` ≡ `xn--caff-8oa.test`). Lookups walk the host's labels through a hash set, so the
 * cost does not grow with the length of the lists.
 */
import { ConfigError, type ConfigIssue } from '../../core/errors.js';
import { normalizeUrl } from '../normalize.js';
import {
  ACCEPTED,
  RejectReason,
  rejected,
  type CandidateUrl,
  type FilterVerdict,
  type UrlFilter,
  type UrlFilterSpec,
} from './url-filter.js';

/** Options of {@link HostFilter}. */
export interface HostFilterOptions {
  /** Hosts blocked exactly (default `[]`). */
  readonly hosts?: readonly string[];
  /** Domains blocked with every host below them (default `[]`). */
  readonly domains?: readonly string[];
}

/**
 * A host or domain name as `normalizeUrl` writes hosts (lower case, punycode, no trailing dot), or
 * null when `entry` is not a bare name: empty, or with a scheme, port, path or user (IPv6
 * addresses are written in brackets, as in URLs: `[::1]`).
 * A leading dot (`.example.com`, the cookie-domain habit) is dropped.
 */
export function hostNameOf(entry: string): string | null {
  const name = entry.trim().replace(/^\./, '');
  if (name === '' || /[/?#@\s\\]/.test(name) || (name.includes(':') && !name.startsWith('['))) return null;
  const r = normalizeUrl(`http://${name}/`);
  if (r.kind !== 'ok' || r.url !== `http://${r.host}/`) return null;
  return r.host;
}

/**
 * Whether `host` is one of `domains` or below one of them on a label boundary. Walks the host's
 * dot positions: one set lookup per label, no allocation beyond the suffix strings.
 */
export function isInDomainSet(host: string, domains: ReadonlySet<string>): boolean {
  if (domains.size === 0) return false;
  if (domains.has(host)) return true;
  for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) {
    if (domains.has(host.slice(dot + 1))) return true;
  }
  return false;
}

/** Canonical names of `entries`; bad entries become issues under `path[i]`. */
export function hostNamesOf(entries: readonly string[], path: string, issues: ConfigIssue[]): Set<string> {
  const out = new Set<string>();
  entries.forEach((e, i) => {
    const name = hostNameOf(e);
    if (name === null) issues.push({ path: `${path}[${i}]`, message: `'${e}' is not a host name` });
    else out.add(name);
  });
  return out;
}

/** Rejects, with reason `host-blocked`, URLs of blocked hosts and of hosts in blocked domains. */
export class HostFilter implements UrlFilter {
  readonly spec: UrlFilterSpec;
  private readonly hosts: ReadonlySet<string>;
  private readonly domains: ReadonlySet<string>;

  constructor(options: HostFilterOptions = {}) {
    const issues: ConfigIssue[] = [];
    this.hosts = hostNamesOf(options.hosts ?? [], 'hosts', issues);
    this.domains = hostNamesOf(options.domains ?? [], 'domains', issues);
    if (issues.length > 0) throw new ConfigError(issues);
    this.spec = Object.freeze({
      id: 'host',
      params: Object.freeze({ hosts: Object.freeze([...this.hosts]), domains: Object.freeze([...this.domains]) }),
    });
  }

  check(candidate: CandidateUrl): FilterVerdict {
    const host = candidate.host;
    return this.hosts.has(host) || isInDomainSet(host, this.domains) ? rejected(RejectReason.hostBlocked) : ACCEPTED;
  }
}
