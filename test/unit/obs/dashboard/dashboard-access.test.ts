/** Who may read the dashboard (src/obs/dashboard/dashboard-access.ts): the rule, without sockets. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dashboardAccess, isLoopbackHost, refusal } from '../../../../src/obs/dashboard/dashboard-access.js';

describe('dashboard access', () => {
  test('loopback addresses need no token', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '192.168.1.2', 'example.org', '128.0.0.1', '::ffff:10.0.0.1'])
      assert.equal(isLoopbackHost(host), false, host);
    assert.deepEqual(dashboardAccess('127.0.0.1', null), { token: null, isGenerated: false });
  });

  test('any other address without a token gets a generated one, 24 random bytes', () => {
    const a = dashboardAccess('0.0.0.0', null);
    assert.equal(a.isGenerated, true);
    assert.match(a.token ?? '', /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(dashboardAccess('0.0.0.0', null).token, a.token, 'a new one each time');
    assert.deepEqual(
      dashboardAccess('10.0.0.5', null, (n) => Buffer.alloc(n, 1)),
      { token: Buffer.alloc(24, 1).toString('base64url'), isGenerated: true },
    );
  });

  test('a token given is used as it is, on loopback too', () => {
    assert.deepEqual(dashboardAccess('0.0.0.0', 'a-token-of-sixteen'), { token: 'a-token-of-sixteen', isGenerated: false });
    assert.deepEqual(dashboardAccess('127.0.0.1', 'a-token-of-sixteen'), { token: 'a-token-of-sixteen', isGenerated: false });
  });

  test('with a token: the right one in the query or as a bearer, else 401', () => {
    const access = { token: 'right-token-right-token', isGenerated: false };
    const ask = (queryToken?: string, authorization?: string) => refusal(access, { queryToken, authorization, host: 'example.org:80' });
    assert.equal(ask('right-token-right-token'), null);
    assert.equal(ask(undefined, 'Bearer right-token-right-token'), null);
    assert.equal(ask(undefined, 'bearer  right-token-right-token '), null);
    assert.equal(ask(), 401);
    assert.equal(ask('wrong-token-wrong-token'), 401);
    assert.equal(ask('right-token-right-toke'), 401, 'a prefix is not the token');
    assert.equal(ask(undefined, 'Basic right-token-right-token'), 401);
    assert.equal(ask('wrong', 'Bearer right-token-right-token'), 401, 'the query token, when given, is the one checked');
  });

  test('without a token: only a loopback Host header (no DNS rebinding)', () => {
    const access = { token: null, isGenerated: false };
    const ask = (host: string | undefined) => refusal(access, { queryToken: undefined, authorization: undefined, host });
    assert.equal(ask('127.0.0.1:8080'), null);
    assert.equal(ask('localhost:8080'), null);
    assert.equal(ask('[::1]:8080'), null);
    assert.equal(ask('evil.example:8080'), 403);
    assert.equal(ask(undefined), 403);
  });
});
