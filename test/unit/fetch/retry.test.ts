/**
 * Which fetch outcomes are worth retrying, and how long to wait: exponential backoff with jitter
 * from a caller-drawn random number, Retry-After as a lower bound, everything under a cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRetryable, parseRetryAfter, retryDelayMs, type FetchOutcome } from '../../../src/fetch/fetcher.js';

const timings = { dnsMs: 0, totalMs: 1 };
const base = { url: 'http://a.test/', ip: '127.0.0.1', timings };
const head = (status: number) => ({ status, statusText: '', headers: {}, raw: Buffer.from(`HTTP/1.1 ${status} \r\n\r\n`) });
const wire = (status: number) => ({ ...base, request: Buffer.from('GET / HTTP/1.1\r\n\r\n'), response: head(status) });

function httpError(status: number, retryAfterMs: number | null = null): FetchOutcome {
  return { kind: 'http-error', ...wire(status), body: Buffer.alloc(0), rawBody: Buffer.alloc(0), isBodyTruncated: false, retryAfterMs };
}

const samples: Record<string, FetchOutcome> = {
  ok: {
    kind: 'ok',
    ...wire(200),
    body: Buffer.alloc(0),
    rawBody: Buffer.alloc(0),
    contentType: 'text/html',
    charset: null,
    contentEncodings: [],
  },
  notModified: { kind: 'not-modified', ...wire(304) },
  redirect: { kind: 'redirect', ...wire(301), location: 'http://a.test/b', rawBody: Buffer.alloc(0) },
  timeoutConnect: { kind: 'timeout', ...base, phase: 'connect', request: null, response: null },
  timeoutBody: { kind: 'timeout', ...base, phase: 'body', request: Buffer.alloc(0), response: head(200) },
  reset: { kind: 'reset', ...base, code: 'ECONNRESET', message: 'reset', request: Buffer.alloc(0), response: null },
  connectError: { kind: 'connect-error', ...base, code: 'ECONNREFUSED', message: 'refused' },
  dnsNotFound: { kind: 'dns-error', ...base, ip: null, host: 'a.test', code: 'ENOTFOUND', message: 'no such name' },
  dnsServerFailure: { kind: 'dns-error', ...base, ip: null, host: 'a.test', code: 'ESERVFAIL', message: 'server failure' },
  denied: { kind: 'address-denied', ...base, host: 'a.test', reason: 'loopback' },
  tooLarge: { kind: 'too-large', ...wire(200), limit: 'decoded', limitBytes: 10 },
  tooSlow: {
    kind: 'too-slow',
    ...wire(200),
    bodyBytes: 12,
    bodyMs: 10_000,
    windowBytes: 10,
    windowMs: 10_000,
    minBytesPerSecond: 1000,
    minRateWindowMs: 10_000,
  },
  encoding: { kind: 'unsupported-encoding', ...wire(200), encoding: 'zstd', rawBody: Buffer.alloc(0) },
  protocol: { kind: 'protocol-error', ...base, code: 'HPE_INVALID_CONSTANT', message: 'bad', request: null, response: null },
  aborted: { kind: 'aborted', ...base, reason: 'closed' },
};

describe('isRetryable', () => {
  it('retries 5xx, 429 and 408, never other 4xx', () => {
    for (const s of [500, 502, 503, 504, 599, 429, 408]) assert.equal(isRetryable(httpError(s)), true, `${s}`);
    for (const s of [400, 401, 403, 404, 410, 451]) assert.equal(isRetryable(httpError(s)), false, `${s}`);
  });

  it('retries timeouts of every phase, resets, connect errors and DNS server failures', () => {
    for (const k of ['timeoutConnect', 'timeoutBody', 'reset', 'connectError', 'dnsServerFailure']) {
      assert.equal(isRetryable(samples[k] as FetchOutcome), true, k);
    }
  });

  it('does not retry a connection refused for its TLS certificate (the same certificate fails again)', () => {
    const connect = samples['connectError'] as Extract<FetchOutcome, { kind: 'connect-error' }>;
    for (const code of [
      'CERT_HAS_EXPIRED',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
    ]) {
      assert.equal(isRetryable({ ...connect, code }), false, code);
    }
    assert.equal(isRetryable({ ...connect, code: 'ECONNREFUSED' }), true);
  });

  it('does not retry what would repeat identically (a body that trickled too), nor a call the caller abandoned', () => {
    for (const k of ['ok', 'notModified', 'redirect', 'dnsNotFound', 'denied', 'tooLarge', 'tooSlow', 'encoding', 'protocol', 'aborted']) {
      assert.equal(isRetryable(samples[k] as FetchOutcome), false, k);
    }
  });
});

describe('retryDelayMs', () => {
  const reset = samples['reset'] as FetchOutcome;

  it('doubles per attempt, with jitter between half and all of the step', () => {
    const opts = { baseDelayMs: 1000, maxDelayMs: 1_000_000 };
    assert.equal(retryDelayMs(reset, 1, { ...opts, random: 0 }), 500);
    assert.equal(retryDelayMs(reset, 1, { ...opts, random: 0.999999 }), 1000);
    assert.equal(retryDelayMs(reset, 2, { ...opts, random: 0 }), 1000);
    assert.equal(retryDelayMs(reset, 3, { ...opts, random: 0.5 }), 3000);
    assert.equal(retryDelayMs(reset, 5, { ...opts, random: 0 }), 8000);
  });

  it('is pure: the same arguments give the same delay', () => {
    const a = retryDelayMs(reset, 4, { random: 0.37 });
    assert.equal(retryDelayMs(reset, 4, { random: 0.37 }), a);
    assert.notEqual(retryDelayMs(reset, 4, { random: 0.9 }), a, 'the random number matters');
  });

  it('is capped, however many attempts', () => {
    assert.equal(retryDelayMs(reset, 40, { baseDelayMs: 1000, maxDelayMs: 60_000, random: 0.999999 }), 60_000);
    assert.equal(retryDelayMs(reset, 5000, { baseDelayMs: 1000, maxDelayMs: 60_000, random: 0 }), 30_000);
  });

  it('honours Retry-After as a lower bound, under the cap', () => {
    const opts = { baseDelayMs: 1000, maxDelayMs: 120_000, random: 0 };
    assert.equal(retryDelayMs(httpError(503, 30_000), 1, opts), 30_000);
    assert.equal(retryDelayMs(httpError(503, 100), 3, opts), 2000, 'backoff wins when longer');
    assert.equal(retryDelayMs(httpError(429, 86_400_000), 1, opts), 120_000, 'a day is capped');
    assert.equal(retryDelayMs(httpError(503, null), 1, opts), 500);
  });

  it('uses 1 s and 10 min by default', () => {
    assert.equal(retryDelayMs(reset, 1, { random: 0 }), 500);
    assert.equal(retryDelayMs(reset, 30, { random: 0.999999 }), 600_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  it('reads delay-seconds', () => {
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
  });

  it('reads an HTTP-date relative to now; a past date means now', () => {
    assert.equal(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Tue, 31 Dec 2024 12:00:00 GMT', now), 0);
  });

  it('ignores what is neither', () => {
    for (const v of [undefined, '', '-5', '1.5', 'soon', '2025-01-01', 'later, maybe'])
      assert.equal(parseRetryAfter(v, now), null, String(v));
  });
});
