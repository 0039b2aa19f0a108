/**
 * The URL filter chain of a crawl, from its `filter` and `scope` sections (SPEC §2 items 1 and 3):
 * cheap and selective filters first, each URL counted under the first reason that rejects it.
 *
 *     scheme → blocked hosts → length → extension → scope → traps → dynamic paths → include/exclude
 *
 * Part of the composition root (`build-node.ts` calls it); the filters themselves live in
 * `src/url/filter/` and `src/url/scope.ts`.
 */
import type { CrawlConfig } from '../../config/crawl-config.js';
import type { Seeds } from './seeds.js';
import { ConfigError } from '../../core/errors.js';
import { DynamicPathFilter } from '../../url/filter/dynamic-path-filter.js';
import { ExtensionFilter } from '../../url/filter/extension-filter.js';
import { HostFilter } from '../../url/filter/host-filter.js';
import { LengthFilter } from '../../url/filter/length-filter.js';
import { RegexFilter } from '../../url/filter/regex-filter.js';
import { SchemeFilter } from '../../url/filter/scheme-filter.js';
import { TrapFilter } from '../../url/filter/trap-filter.js';
import { composeFilters, type UrlFilter } from '../../url/filter/url-filter.js';
import { scopeFilter, type CrawlScope } from '../../url/scope.js';

const off = (v: number | null): number => v ?? Number.POSITIVE_INFINITY;

/** Builds one filter, reporting its problems under `path` of the crawl configuration (its option names renamed by `names`). */
function under<T>(path: string, build: () => T, names: Readonly<Record<string, string>> = {}): T {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    throw new ConfigError(
      err.issues.map((i) => {
        const [head = '', ...rest] = i.path.replace(/\[(\d+)\]/g, '.$1').split('.');
        return { path: [path, names[head] ?? head, ...rest].filter((x) => x !== '').join('.'), message: i.message };
      }),
      { cause: err },
    );
  }
}

/** The scope of the configuration, as `scopeFilter` takes it. */
function scopeOf(scope: CrawlConfig['scope'], seeds: Pick<Seeds, 'hostUrls'>): CrawlScope {
  return {
    ...(scope.hosts.length > 0 ? { hosts: scope.hosts } : {}),
    ...(scope.domains.length > 0 ? { domains: scope.domains } : {}),
    ...(scope.suffixes.length > 0 ? { suffixes: scope.suffixes } : {}),
    ...(scope.seedsOnly === 'off' ? {} : { seeds: { urls: seeds.hostUrls, match: scope.seedsOnly } }),
    maxDepth: off(scope.maxDepth),
    maxPathDepth: off(scope.maxPathDepth),
  };
}

/**
 * The chain for `config`; `currentYear` centres the calendar-trap window (filters never read the clock).
 * @throws ConfigError naming the options of every filter that cannot be built (a bad regular expression, ...).
 */
export function urlFilterChain(config: CrawlConfig, seeds: Pick<Seeds, 'hostUrls'>, currentYear: number): UrlFilter {
  const f = config.filter;
  const t = f.traps;
  const filters: UrlFilter[] = [
    under('filter.schemes', () => new SchemeFilter({ schemes: f.schemes })),
    under('filter', () => new HostFilter({ hosts: f.blockedHosts, domains: f.blockedDomains }), {
      hosts: 'blockedHosts',
      domains: 'blockedDomains',
    }),
    under('filter.maxUrlLength', () => new LengthFilter({ maxLength: f.maxUrlLength })),
    under('filter.blockedExtensions', () => new ExtensionFilter({ extensions: f.blockedExtensions })),
    under('scope', () => scopeFilter(scopeOf(config.scope, seeds))),
    under(
      'filter.traps',
      () =>
        new TrapFilter({
          currentYear,
          maxQueryParams: off(t.maxQueryParams),
          maxPathDepth: off(t.maxPathDepth),
          maxSegmentRepeats: off(t.maxSegmentRepeats),
          maxSequenceRepeats: off(t.maxSequenceRepeats),
          calendarPastYears: off(t.calendarPastYears),
          calendarFutureYears: off(t.calendarFutureYears),
          sessionMarkers: t.sessionMarkers,
        }),
    ),
  ];
  if (f.isDynamicPathBlocked) filters.push(new DynamicPathFilter());
  if (f.include.length > 0 || f.exclude.length > 0)
    filters.push(under('filter', () => new RegexFilter({ include: f.include, exclude: f.exclude })));
  return composeFilters(filters);
}
