import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../src/core/errors.js';
import { HostsMap, canonicalHostName } from '../../../src/dns/hosts-map.js';

describe('HostsMap', () => {
  it('maps exact names case-insensitively, with or without a trailing dot', () => {
    const m = HostsMap.fromEntries(['a.test=127.0.1.2', 'B.Test=127.0.1.3']);
    assert.deepEqual(m.lookup('a.test'), { ip: '127.0.1.2', family: 4 });
    assert.deepEqual(m.lookup('A.TEST.'), { ip: '127.0.1.2', family: 4 });
    assert.deepEqual(m.lookup('b.test'), { ip: '127.0.1.3', family: 4 });
    assert.equal(m.lookup('c.test'), undefined);
  });

  it('prefers exact names, then the longest wildcard suffix; * matches everything', () => {
    const m = HostsMap.fromEntries(['*.test=127.0.0.1', '*.a.test=127.0.0.2', 'x.a.test=127.0.0.3']);
    assert.equal(m.lookup('x.a.test')?.ip, '127.0.0.3');
    assert.equal(m.lookup('y.a.test')?.ip, '127.0.0.2');
    assert.equal(m.lookup('deep.y.a.test')?.ip, '127.0.0.2');
    assert.equal(m.lookup('b.test')?.ip, '127.0.0.1');
    assert.equal(m.lookup('test'), undefined, 'a wildcard needs at least one more label');
    assert.equal(m.lookup('example.org'), undefined);
    const all = HostsMap.fromEntries(['*=::1']);
    assert.deepEqual(all.lookup('anything.example'), { ip: '::1', family: 6 });
  });

  it('accepts IPv6 in brackets and Unicode names (stored as punycode)', () => {
    const m = HostsMap.fromEntries(['bücher.test=[::1]']);
    assert.deepEqual(m.lookup('xn--bcher-kva.test'), { ip: '::1', family: 6 });
    assert.deepEqual(m.lookup('BÜCHER.test'), { ip: '::1', family: 6 });
    assert.equal(canonicalHostName('BÜCHER.test.'), 'xn--bcher-kva.test');
  });

  it('a later entry replaces an earlier one', () => {
    const m = HostsMap.fromEntries(['a.test=127.0.0.1', 'a.test=127.0.0.9', '*.test=127.0.0.1', '*.test=127.0.0.8']);
    assert.equal(m.lookup('a.test')?.ip, '127.0.0.9');
    assert.equal(m.lookup('b.test')?.ip, '127.0.0.8');
    assert.equal(m.size, 2);
  });

  it('reports every bad entry with its position', () => {
    assert.throws(
      () => HostsMap.fromEntries(['ok.test=127.0.0.1', 'nope', 'x.test=999.1.1.1', '=127.0.0.1']),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.deepEqual(
          e.issues.map((i) => i.path),
          ['resolve[1]', 'resolve[2]', 'resolve[3]'],
        );
        return true;
      },
    );
  });

  it('reads the /etc/hosts format, comments and several names per line', () => {
    const m = HostsMap.fromHostsFile('# test web\n127.0.1.1 a.test b.test\n\n  ::1\tc.test # six\r\n');
    assert.equal(m.lookup('a.test')?.ip, '127.0.1.1');
    assert.equal(m.lookup('b.test')?.ip, '127.0.1.1');
    assert.deepEqual(m.lookup('c.test'), { ip: '::1', family: 6 });
    assert.throws(
      () => HostsMap.fromHostsFile('127.0.0.1\nbad line\n'),
      (e: unknown) => e instanceof ConfigError && e.issues.map((i) => i.path).join(',') === 'hosts-file:1,hosts-file:2',
    );
  });
});
