/**
 * Location ordering IL(u) (seed 004 §2 item 5, §4: the location metric can order URLs directly,
 * since it reads only the URL; SPEC §3 "IL(u) ... configurable rules"):
 *
 *     IL(u) = slashWeight · slashes(u) + Σ { w_s : host of u ends with suffix s } + Σ { w_k : u contains keyword k }
 *
 * - `slashes(u)`: the `/` characters of the path (`/` is 1, `/a/b.html` is 2). A negative weight
 *   (default −1) puts shallow pages first, the paper's "fewer slashes" rule.
 * - Suffixes match the host name by whole labels (`com` matches `www.example.com`, `stanford.edu`
 *   matches `cs.stanford.edu`, not `notstanford.edu`); a leading dot is optional. Every matching
 *   suffix adds its weight. Default: `com` → 1.
 * - Keywords are substrings of the URL after its scheme, lowercased and percent-decoded (`home`,
 *   `index`); each present keyword adds its weight once. Default: `home` → 1, `index` → 1.
 *
 * A URL's value never changes, so the policy keeps no state and never re-prioritizes (`needs.ids`
 * false); it needs URL strings. Cost: O(|u| · rules) per URL. A URL that cannot be read (empty, no
 * host) scores by whatever rules still apply, never throws.
 *
 * Departures: none in the rules; their weights are configuration, the paper gives none.
 */
import { numberParam, OrderParamError } from './order-params.js';
import {
  NO_PRIORITY_CHANGES,
  type DiscoveredUrl,
  type FetchedPage,
  type OrderingPolicy,
  type OrderingPolicySpec,
  type PolicyNeeds,
  type PriorityChanges,
} from './policy.js';
import { urlText } from './terms.js';

/** Options of {@link LocationPolicy}; every weight is a finite number in [−1e9, 1e9]. */
export interface LocationPolicyOptions {
  /** Added per `/` of the path. Default −1 (fewer slashes first). */
  readonly slashWeight?: number;
  /** Host suffix → weight. Default `{ com: 1 }`. */
  readonly suffixWeights?: Readonly<Record<string, number>>;
  /** URL substring → weight. Default `{ home: 1, index: 1 }`. */
  readonly keywordWeights?: Readonly<Record<string, number>>;
}

/** Default weight per path slash. */
export const DEFAULT_SLASH_WEIGHT = -1;
/** Default host-suffix weights. */
export const DEFAULT_SUFFIX_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({ com: 1 });
/** Default keyword weights. */
export const DEFAULT_KEYWORD_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({ home: 1, index: 1 });

const MAX_WEIGHT = 1e9;

/** Location ordering IL(u); see the file comment. */
export class LocationPolicy implements OrderingPolicy {
  /** `{ id: 'location', params: { slashWeight, suffixWeights: ['com=1'], keywordWeights: [...] } }`. */
  readonly spec: OrderingPolicySpec;
  /** URL strings only; no per-URL state. */
  readonly needs: PolicyNeeds = Object.freeze({ ids: false, urls: true, anchors: false, text: false });
  private readonly slashWeight: number;
  private readonly suffixes: readonly (readonly [string, number])[];
  private readonly keywords: readonly (readonly [string, number])[];

  /** @throws OrderParamError on a non-finite or huge weight, or an empty suffix or keyword. */
  constructor(options: LocationPolicyOptions = {}) {
    this.slashWeight = numberParam('slashWeight', options.slashWeight ?? DEFAULT_SLASH_WEIGHT, -MAX_WEIGHT, MAX_WEIGHT);
    this.suffixes = rules('suffixWeights', options.suffixWeights ?? DEFAULT_SUFFIX_WEIGHTS, (s) => s.toLowerCase().replace(/^\.+/, ''));
    this.keywords = rules('keywordWeights', options.keywordWeights ?? DEFAULT_KEYWORD_WEIGHTS, (k) => k.toLowerCase());
    this.spec = Object.freeze({
      id: 'location',
      params: Object.freeze({
        slashWeight: this.slashWeight,
        suffixWeights: Object.freeze(this.suffixes.map(([s, w]) => `${s}=${w}`)),
        keywordWeights: Object.freeze(this.keywords.map(([k, w]) => `${k}=${w}`)),
      }),
    });
  }

  /** IL(u) of the URL string. */
  prioritize(url: DiscoveredUrl): number {
    return this.score(url.url);
  }

  /** A URL's location never changes: no changes. */
  observe(_page: FetchedPage): PriorityChanges {
    return NO_PRIORITY_CHANGES;
  }

  /** IL of a URL string; 0 if the rules sum to a non-finite value. */
  score(url: string): number {
    const { host, path } = split(url);
    let value = 0;
    if (this.slashWeight !== 0) {
      let slashes = 0;
      for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 0x2f) slashes++;
      value += this.slashWeight * slashes;
    }
    for (const [suffix, w] of this.suffixes) {
      if (host === suffix || host.endsWith(`.${suffix}`)) value += w;
    }
    if (this.keywords.length > 0) {
      const text = urlText(url);
      for (const [keyword, w] of this.keywords) if (text.includes(keyword)) value += w;
    }
    return Number.isFinite(value) ? value : 0;
  }
}

/** Validated (key, weight) rules in the given order; keys normalized by `norm`. */
function rules(param: string, weights: Readonly<Record<string, number>>, norm: (key: string) => string): (readonly [string, number])[] {
  return Object.entries(weights).map(([key, w]) => {
    const k = norm(key);
    if (k === '') throw new OrderParamError(param, `an empty rule key (${JSON.stringify(key)}) matches everything; remove it`);
    return [k, numberParam(`${param}.${key}`, w, -MAX_WEIGHT, MAX_WEIGHT)] as const;
  });
}

/** Lowercase host (no user info, no port) and path (no query, no fragment) of a URL string. */
function split(url: string): { host: string; path: string } {
  const schemeEnd = url.indexOf('://');
  const start = schemeEnd >= 0 ? schemeEnd + 3 : 0;
  let hostEnd = url.length;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      hostEnd = i;
      break;
    }
  }
  let host = url.slice(start, hostEnd).toLowerCase();
  host = host.slice(host.lastIndexOf('@') + 1);
  const port = /:\d*$/.exec(host);
  if (port !== null && !host.endsWith(']')) host = host.slice(0, port.index);
  let pathEnd = url.length;
  for (let i = hostEnd; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x3f || c === 0x23) {
      pathEnd = i;
      break;
    }
  }
  return { host, path: url.slice(hostEnd, pathEnd) };
}
