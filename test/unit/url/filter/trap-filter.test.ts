/**
 * The trap heuristics (src/url/filter/trap-filter.ts), rule by rule: each limit at its edge, the
 * look-alikes each rule must leave alone, turning rules off, and bad options. The test web's four
 * trap kinds are walked end to end in test/integration/url/test-web-traps.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../../src/core/errors.js';
import { TRAP_DEFAULTS, TrapFilter, type TrapFilterOptions } from '../../../../src/url/filter/trap-filter.js';

const YEAR = 2025;

function verdictOf(target: string, options: Partial<TrapFilterOptions> = {}): string {
  const f = new TrapFilter({ currentYear: YEAR, ...options });
  const v = f.check({ url: `http://example.com${target}`, host: 'example.com', depth: 3 });
  return v.isAccepted ? 'ok' : v.reason;
}

/** Asserts each target's verdict (`ok` or a reason) under `options`. */
function expectAll(cases: readonly (readonly [string, string])[], options: Partial<TrapFilterOptions> = {}): void {
  for (const [target, expected] of cases) assert.equal(verdictOf(target, options), expected, target);
}

const params = (n: number): string => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&');
const path = (n: number): string => Array.from({ length: n }, (_, i) => `/d${i}`).join('') + '/';

describe('defaults', () => {
  test('are the documented ones', () => {
    const f = new TrapFilter({ currentYear: YEAR });
    assert.deepEqual(f.spec, {
      id: 'trap',
      params: {
        currentYear: 2025,
        maxQueryParams: 10,
        maxPathDepth: 16,
        maxSegmentRepeats: 3,
        maxSequenceRepeats: 2,
        calendarPastYears: 2,
        calendarFutureYears: 1,
        sessionMarkers: [...TRAP_DEFAULTS.sessionMarkers],
      },
    });
  });

  test('ordinary URLs pass', () => {
    expectAll([
      ['/', 'ok'],
      ['/a/b/c.html', 'ok'],
      ['/search?q=shoal&page=2', 'ok'],
      ['/2019/05/14/my-post/', 'ok'],
      ['/blog/2024/05/', 'ok'],
      ['/products/1234/5', 'ok'],
      ['/go/2005/1', 'ok'],
      ['/t/some-topic/2001/3', 'ok'],
      ['/s/about/', 'ok'],
      ['/s/', 'ok'],
      ['/session/12/', 'ok'],
      ['/users/5c6422be/', 'ok'],
      ['/docs/en/docs/', 'ok'],
      ['/a/b/a/b/', 'ok'],
      ['/2019/', 'ok'],
      ['/index.php?option=com_content&view=article&id=5', 'ok'],
      ['/(info)/page', 'ok'],
    ]);
  });
});

describe('query parameters', () => {
  test('more than maxQueryParams parameters are a trap', () => {
    expectAll([
      [`/search?${params(10)}`, 'ok'],
      [`/search?${params(11)}`, 'trap-query-params'],
    ]);
    expectAll(
      [
        [`/s?${params(3)}`, 'ok'],
        [`/s?${params(4)}`, 'trap-query-params'],
      ],
      { maxQueryParams: 3 },
    );
    expectAll([[`/s?${params(500)}`, 'ok']], { maxQueryParams: Infinity });
  });

  test('empty parameters do not count', () => {
    expectAll([
      [`/s?${params(10)}&&&`, 'ok'],
      ['/s?', 'ok'],
    ]);
  });
});

describe('path depth', () => {
  test('more than maxPathDepth segments are a trap; empty segments do not count', () => {
    expectAll([
      [path(16), 'ok'],
      [path(17), 'trap-path-depth'],
      [`${path(16)}/x`.replace(/\/+/g, '//'), 'trap-path-depth'],
    ]);
    expectAll([[`/${'/'.repeat(40)}a/b`, 'ok']]);
    expectAll(
      [
        [path(4), 'ok'],
        [path(5), 'trap-path-depth'],
      ],
      { maxPathDepth: 4 },
    );
    expectAll([[path(200), 'ok']], { maxPathDepth: Infinity });
  });
});

describe('repeated segments', () => {
  test('one segment more than maxSegmentRepeats times, anywhere in the path', () => {
    expectAll([
      ['/archive/archive/archive/', 'ok'],
      ['/archive/archive/archive/archive/', 'trap-repeated-segments'],
      ['/a/x/a/y/a/z/', 'ok'],
      ['/a/x/a/y/a/z/a', 'trap-repeated-segments'],
      ['/1/1/1/1', 'trap-repeated-segments'],
    ]);
    expectAll(
      [
        ['/a/a/', 'ok'],
        ['/a/a/a/', 'trap-repeated-segments'],
      ],
      { maxSegmentRepeats: 2 },
    );
  });

  test('a run of two or more segments repeated back to back more than maxSequenceRepeats times', () => {
    expectAll([
      ['/a/b/a/b/', 'ok'],
      ['/a/b/a/b/a/b/', 'trap-repeated-segments'],
      ['/x/a/b/a/b/a/b/y.html', 'trap-repeated-segments'],
      ['/p/q/r/p/q/r/', 'ok'],
      ['/p/q/r/p/q/r/p/q/r', 'trap-repeated-segments'],
      ['/a/b/c/a/b/d/a/b/e/', 'ok'],
    ]);
    expectAll(
      [
        ['/a/b/a/b/a/b/', 'ok'],
        ['/a/b/a/b/a/b/a/b/', 'trap-repeated-segments'],
      ],
      { maxSequenceRepeats: 3 },
    );
    expectAll([['/a/b/a/b/a/b/a/b/a/b/', 'ok']], { maxSequenceRepeats: Infinity, maxSegmentRepeats: Infinity });
  });
});

describe('session ids in the path', () => {
  test('a token after a marker segment, as name=token, or ASP.NET cookieless state', () => {
    expectAll([
      ['/s/5c6422be/', 'trap-session'],
      ['/s/5C6422BE/page.html', 'trap-session'],
      ['/sid/0a1b2c/', 'trap-session'],
      ['/app/SESSION/abcdef0123456789abcdef/', 'trap-session'],
      ['/session/Ab3dE6gH9jK2mN5p/', 'trap-session'],
      ['/shop/sid=0123456789abcdef/cart', 'trap-session'],
      ['/(S(lit3py55t21z5v55vlm25s55))/default.aspx', 'trap-session'],
      ['/(X(1)S(lit3py55t21z5v55vlm25s55))/a', 'trap-session'],
    ]);
  });

  test('a marker followed by a word, a short hex or a short mixed token is a page', () => {
    expectAll([
      ['/s/about/', 'ok'],
      ['/s/5c642/', 'ok'],
      ['/session/keynote-2/', 'ok'],
      ['/session/Ab3dE6gH9jK2/', 'ok'],
      ['/s/abcdefghijklmnopqrst/', 'ok'],
      ['/sid=abc/', 'ok'],
      ['/users/5c6422be/', 'ok'],
      ['/(S(x))y/', 'ok'],
    ]);
  });

  test('markers are configurable; [] turns the rule off', () => {
    expectAll(
      [
        ['/s/5c6422be/', 'ok'],
        ['/visit/5c6422be/', 'trap-session'],
        ['/VISIT/5c6422be/', 'trap-session'],
      ],
      { sessionMarkers: ['Visit'] },
    );
    expectAll(
      [
        ['/s/5c6422be/', 'ok'],
        ['/(S(lit3py55t21z5v55vlm25s55))/a', 'ok'],
      ],
      { sessionMarkers: [] },
    );
  });
});

describe('calendars', () => {
  test('a date-only path outside [currentYear - 2, currentYear + 1] is a trap', () => {
    expectAll([
      ['/calendar/2023/1/', 'ok'],
      ['/calendar/2026/12/', 'ok'],
      ['/calendar/2022/12/', 'trap-calendar'],
      ['/calendar/2027/1/', 'trap-calendar'],
      ['/calendar/2023/1/15/', 'ok'],
      ['/calendar/2017/4/15/', 'trap-calendar'],
      ['/2019/05/', 'trap-calendar'],
      ['/2019/05', 'trap-calendar'],
      ['/events/2030/07', 'trap-calendar'],
      ['/events/2030/12/01', 'trap-calendar'],
      ['/day/1999-12-31', 'trap-calendar'],
      ['/month/2031-1/', 'trap-calendar'],
      ['/day/2025-06-30', 'ok'],
      ['/calendar/1900/1/', 'trap-calendar'],
      ['/calendar/2199/1/', 'trap-calendar'],
    ]);
  });

  test('dates in the query: YYYY-MM[-DD] values, and year with month', () => {
    expectAll([
      ['/events?date=2019-05-14', 'trap-calendar'],
      ['/events?date=2025-05-14', 'ok'],
      ['/events?month=2040-02&view=grid', 'trap-calendar'],
      ['/cal?year=2019&month=5', 'trap-calendar'],
      ['/cal?MONTH=5&Year=2031', 'trap-calendar'],
      ['/cal?year=2025&month=5', 'ok'],
      ['/stats?year=1990', 'ok'],
      ['/q?id=2019-05-14x', 'ok'],
    ]);
  });

  test('dated documents and numeric ids are not calendars', () => {
    expectAll([
      ['/2019/05/14/my-post/', 'ok'],
      ['/2019/05/14/my-post.html', 'ok'],
      ['/go/2005/1', 'ok'],
      ['/t/x/2010/12', 'ok'],
      ['/item/2019/13/', 'ok'],
      ['/item/2019/5/32/', 'ok'],
      ['/calendar/1066/10/', 'ok'],
      ['/calendar/2300/1/', 'ok'],
      ['/v/12345/06/', 'ok'],
    ]);
  });

  test('the window is configurable and follows currentYear', () => {
    expectAll(
      [
        ['/2015/05/', 'ok'],
        ['/2014/05/', 'trap-calendar'],
        ['/2026/05/', 'trap-calendar'],
      ],
      { calendarPastYears: 10, calendarFutureYears: 0 },
    );
    expectAll(
      [
        ['/2015/05/', 'ok'],
        ['/1901/05/', 'ok'],
        ['/2199/05/', 'ok'],
      ],
      { calendarPastYears: Infinity, calendarFutureYears: Infinity },
    );
    expectAll(
      [
        ['/2015/05/', 'ok'],
        ['/2017/05/', 'trap-calendar'],
      ],
      { currentYear: 2015 },
    );
  });
});

describe('options', () => {
  test('every bad option is listed', () => {
    const bad = {
      currentYear: 25,
      maxQueryParams: -1,
      maxPathDepth: 2.5,
      maxSegmentRepeats: 0,
      maxSequenceRepeats: Number.NaN,
      calendarPastYears: -2,
      sessionMarkers: ['ok', '', 'a/b'],
    };
    assert.throws(
      () => new TrapFilter(bad),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.deepEqual(
          err.issues.map((i) => i.path),
          [
            'currentYear',
            'maxQueryParams',
            'maxPathDepth',
            'maxSequenceRepeats',
            'calendarPastYears',
            'maxSegmentRepeats',
            'sessionMarkers[1]',
            'sessionMarkers[2]',
          ],
        );
        return true;
      },
    );
  });

  test('undefined options keep their defaults', () => {
    const f = new TrapFilter({ currentYear: YEAR, maxQueryParams: undefined, sessionMarkers: undefined });
    assert.equal(f.spec.params.maxQueryParams, 10);
    assert.deepEqual(f.spec.params.sessionMarkers, [...TRAP_DEFAULTS.sessionMarkers]);
  });
});
