/**
 * The hostile behaviours in the model, without sockets: how drip pages, pagination traps and
 * refusing hosts are drawn and listed, that turning them on leaves every other draw alone, how
 * listed hosts and pages are checked, where refusing hosts' addresses come from, and the `hostile`
 * preset.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../src/core/errors.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { addressPool, refusingAddressPool, type HostInfo } from '../../../src/web/hosts.js';
import { hostileParts } from '../../../src/web/hostile.js';
import { pageLinks } from '../../../src/web/links.js';
import { PageKind, WebModel, finalStatus, parseWebConfig } from '../../../src/web/model.js';
import { WEB_PRESETS } from '../../../src/web/presets.js';

const BASE = { seed: 9, hosts: 40, pages: 2000 } satisfies WebConfigInput;

/** A host without the fields the hostile knobs may change. */
function rest(h: HostInfo): Partial<HostInfo> {
  const others: Partial<HostInfo> = { ...h };
  for (const key of ['ip', 'isRefusing', 'trap', 'robotsBlocksTrap'] as const) delete others[key];
  return others;
}

/** The issue paths of the ConfigError `fn` throws. */
function issuePaths(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.issues.map((i) => i.path);
  }
  assert.fail('no ConfigError');
}

describe('drawing the hostile behaviours', () => {
  const plain = new WebModel(BASE);

  test('are off by default: no drip page, no refusing host', () => {
    const parts = hostileParts(plain);
    assert.deepEqual([parts.dripPages, parts.refusingHosts], [[], []]);
  });

  test('refusing hosts and listed traps change those hosts alone', () => {
    const hostile = new WebModel({
      ...BASE,
      faults: { refusingHostRate: 0.3, refusingHosts: [0] },
      traps: { hosts: [{ host: 5, kind: 'pagination' }] },
    });
    const refusing = hostileParts(hostile).refusingHosts;
    assert.ok(refusing.includes(0) && refusing.length > 5 && refusing.length < 30, `${refusing.length} refusing hosts`);
    hostile.hosts.forEach((h, i) => {
      const p = plain.hosts[i] as HostInfo;
      assert.deepEqual(rest(h), rest(p), h.name);
      if (!h.isRefusing) assert.equal(h.ip, p.ip, h.name);
      if (i !== 5) assert.deepEqual([h.trap, h.robotsBlocksTrap], [p.trap, p.robotsBlocksTrap], h.name);
    });
    assert.equal(hostile.hosts[5]?.trap, 'pagination');
    // Pages of a trap host draw whether they link into the trap, so host 5's pages are drawn anew.
    const h5 = hostile.hosts[5] as HostInfo;
    const outside = (a: Uint8Array): number[] => [...a].filter((_, g) => g < h5.firstPage || g >= h5.firstPage + h5.pageCount);
    assert.deepEqual(outside(hostile.pageKind), outside(plain.pageKind));
    assert.deepEqual(outside(hostile.pageFlags), outside(plain.pageFlags));
    for (const i of refusing) {
      const h = hostile.hosts[i] as HostInfo;
      assert.equal(finalStatus(hostile, h.firstPage), 0);
    }
    const seedHosts = hostile.seedPages().map((g) => hostile.pageHost[g] as number);
    assert.ok(seedHosts.length > 0 && seedHosts.every((i) => !refusing.includes(i)));
  });

  test('traps.kinds chooses the kind, not which hosts hold a trap', () => {
    const many = { ...BASE, traps: { hostRate: 0.5 } };
    const all = new WebModel(many);
    const only = new WebModel({ ...many, traps: { ...many.traps, kinds: ['pagination'] } });
    assert.deepEqual(
      only.hosts.map((h) => h.trap !== null),
      all.hosts.map((h) => h.trap !== null),
    );
    assert.ok(only.hosts.every((h) => h.trap === null || h.trap === 'pagination'));
    const kinds = new Set(all.hosts.map((h) => h.trap).filter((k) => k !== null));
    assert.deepEqual([...kinds].sort(), ['calendar', 'pagination', 'query', 'repeat', 'session']);
  });

  test('dripRate draws drip pages among the non-home pages, with links, not serving content to reach', () => {
    const m = new WebModel({ ...BASE, faults: { dripRate: 0.1 } });
    const drips = hostileParts(m).dripPages;
    assert.ok(drips.length > 100 && drips.length < 300, `${drips.length} drips`);
    assert.ok(drips.every((g) => m.localId(g) > 0));
    assert.ok(
      drips.some((g) => pageLinks(m, g).length > 0),
      'a drip body carries its links',
    );
    assert.ok(drips.every((g) => finalStatus(m, g) === 200));
  });

  test('hostileParts lists hosts by what they hold', () => {
    const m = new WebModel({
      ...BASE,
      faults: { dripPages: [{ host: 1, page: 2 }], refusingHosts: [3, 4] },
      traps: {
        hostRate: 0,
        hosts: [
          { host: 4, kind: 'query' },
          { host: 6, kind: 'pagination' },
        ],
      },
    });
    const parts = hostileParts(m);
    assert.deepEqual(parts.dripPages, [(m.hosts[1] as HostInfo).firstPage + 2]);
    assert.deepEqual(parts.trapHosts, { calendar: [], session: [], repeat: [], query: [4], pagination: [6] });
    assert.deepEqual(parts.refusingHosts, [3, 4]);
    // Host 4 holds a trap but answers nothing: it serves no hostile URL.
    assert.deepEqual(parts.hostileHosts, [1, 6]);
  });
});

describe('listed hosts and pages', () => {
  test('must exist', () => {
    assert.deepEqual(
      issuePaths(
        () =>
          new WebModel({
            ...BASE,
            faults: { refusingHosts: [40], dripPages: [{ host: 41, page: 1 }] },
            traps: { hosts: [{ host: 99, kind: 'query' }] },
          }),
      ),
      ['faults.dripPages.0.host', 'faults.refusingHosts.0', 'traps.hosts.0.host'],
    );
    const pages = (new WebModel(BASE).hosts[7] as HostInfo).pageCount;
    assert.deepEqual(
      issuePaths(() => new WebModel({ ...BASE, faults: { dripPages: [{ host: 7, page: pages }] } })),
      ['faults.dripPages.0.page'],
    );
    assert.deepEqual(
      issuePaths(() => new WebModel({ ...BASE, faults: { dripPages: [{ host: 7, page: 0 }] } })),
      ['faults.dripPages.0.page'],
    );
  });

  test('must not be mirrors, nor be listed twice for a trap, nor be asked of the community model', () => {
    const mirrors = { ...BASE, duplicates: { mirrorHostRate: 1 } };
    assert.equal(new WebModel(mirrors).hosts[3]?.mirrorOf, 0);
    assert.throws(() => new WebModel({ ...mirrors, traps: { hosts: [{ host: 3, kind: 'session' }] } }), /host 3 mirrors host 0/);
    assert.throws(() => new WebModel({ ...mirrors, faults: { dripPages: [{ host: 3, page: 1 }] } }), /host 3 mirrors host 0/);
    assert.deepEqual(
      issuePaths(
        () =>
          new WebModel({
            ...BASE,
            traps: {
              hosts: [
                { host: 1, kind: 'query' },
                { host: 1, kind: 'repeat' },
              ],
            },
          }),
      ),
      ['traps.hosts.1.host'],
    );
    assert.deepEqual(
      issuePaths(() => new WebModel({ links: { model: 'community' }, faults: { refusingHosts: [0] } })),
      ['faults.refusingHosts.0'],
    );
    assert.deepEqual(
      issuePaths(() => new WebModel({ ...BASE, traps: { kinds: [] } })),
      ['traps.kinds'],
    );
    assert.deepEqual(
      issuePaths(() => new WebModel({ ...BASE, traps: { kinds: ['maze' as 'query'] } })),
      ['traps.kinds.0'],
    );
  });
});

describe('refusing addresses', () => {
  test('follow the pool, as many as it has, and skip the proxy address', () => {
    const c = parseWebConfig({});
    const pool = refusingAddressPool(c);
    assert.equal(pool.length, 64);
    assert.deepEqual([pool[0], pool[63]], ['127.0.1.65', '127.0.1.128']);
    const skip = refusingAddressPool(parseWebConfig({ server: { addressBase: '127.0.0.1', addressCount: 2, proxyAddress: '127.0.0.3' } }));
    assert.deepEqual(skip, ['127.0.0.4', '127.0.0.5']);
  });

  test('come from before the pool when it ends 127.0.0.0/8, never overlapping it', () => {
    const c = parseWebConfig({ server: { addressBase: '127.255.255.250', addressCount: 5 } });
    assert.deepEqual(addressPool(c).at(-1), '127.255.255.254');
    assert.deepEqual(refusingAddressPool(c), [
      '127.255.255.249',
      '127.255.255.248',
      '127.255.255.247',
      '127.255.255.246',
      '127.255.255.245',
    ]);
    const split = refusingAddressPool(parseWebConfig({ server: { addressBase: '127.255.255.200', addressCount: 50 } }));
    assert.equal(split.length, 50);
    assert.ok(
      split.every((ip) => !addressPool(parseWebConfig({ server: { addressBase: '127.255.255.200', addressCount: 50 } })).includes(ip)),
    );
  });
});

describe('the hostile preset', () => {
  test('has two drip pages, an open pagination trap and a refusing host, for every seed', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const m = new WebModel({ ...WEB_PRESETS.hostile, seed });
      const parts = hostileParts(m);
      assert.equal(parts.dripPages.length, 2, `seed ${seed}`);
      assert.deepEqual(
        [parts.trapHosts.pagination, parts.blockedTrapHosts, parts.refusingHosts, parts.hostileHosts],
        [[2], [], [3], [1, 2]],
        `seed ${seed}`,
      );
      const seedHosts = m.seedPages().map((g) => m.pageHost[g]);
      assert.equal(seedHosts.length, 2);
      assert.ok(!seedHosts.includes(2) && !seedHosts.includes(3));
      let linksToRefusing = 0;
      for (let g = 0; g < m.pageCount; g++) {
        if (m.pageHost[g] !== 3) linksToRefusing += pageLinks(m, g).filter((l) => m.pageHost[l.target] === 3).length;
      }
      assert.ok(linksToRefusing > 0, `seed ${seed}: other hosts link to the refusing host`);
      assert.ok(m.pageKind.every((k, g) => k !== PageKind.drip || m.pageHost[g] === 1));
    }
  });
});
