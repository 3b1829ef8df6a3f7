// The spec's terms that more than one part of the harness reads (checks, rate-limit sizing, the
// k6 scenarios): one parser each, so they cannot disagree.

import { describe, expect, it } from 'vitest';
import { retryAfterMs } from '../../src/http/retry-after.js';
import { BUSINESS_ENDPOINTS, isRateLimitEndpoint, RATE_LIMIT_ENDPOINTS } from '../../src/spec/endpoints.js';
import { errorTextOf } from '../../src/spec/error-body.js';
import { epochSeconds } from '../../src/spec/expires-at.js';
import { isLimitLike } from '../../src/spec/limit-statuses.js';
import { retryAfterDelayMs, retryAfterSeconds } from '../../src/spec/retry-after.js';

describe('expires_at (§2: epoch seconds)', () => {
  it.each([
    [1_795_000_000, 1_795_000_000],
    // Milliseconds and digit strings are read as the instant they mean; the checks judge the form.
    [1_795_000_000_000, 1_795_000_000],
    ['1795000000', 1_795_000_000],
    [' 1795000000.5 ', 1_795_000_000.5],
    ['2026-11-22T10:00:00Z', undefined],
    [0, undefined],
    [-5, undefined],
    [Number.NaN, undefined],
    [null, undefined],
    [undefined, undefined],
  ])('%j → %j', (value, seconds) => {
    expect(epochSeconds(value)).toBe(seconds);
  });
});

describe('Retry-After (RFC 9110 §10.2.3), and how much of it the client honours', () => {
  const now = Date.UTC(2026, 10, 22, 10, 0, 0);
  // value, what it asks for (ms), what the client waits (src/http/retry-after.ts caps it at 2 min).
  it.each([
    ['3', 3000, 3000],
    [' 0 ', 0, 0],
    // The parser has no ceiling: the rate-limit probe reports what the service asked for, however long.
    ['600', 600_000, undefined],
    // A hostile service's 10^9 s (and more digits than a number holds) is never waited for; the
    // latter reads as the largest exact number, not Infinity (which JSON writes as null).
    ['1000000000', 1e12, undefined],
    ['9'.repeat(400), Number.MAX_SAFE_INTEGER, undefined],
    ['Sun, 22 Nov 2026 10:00:07 GMT', 7000, 7000],
    ['Sun, 22 Nov 2026 09:59:00 GMT', 0, 0],
    // The obsolete forms a recipient must still accept (RFC 9110 §5.6.7).
    ['Sunday, 22-Nov-26 10:00:07 GMT', 7000, 7000],
    ['Sun Nov 22 10:00:07 2026', 7000, 7000],
    // Neither form: invalid, so no wait is announced (Date.parse alone reads these as past dates).
    ['-1', undefined, undefined],
    ['1.5', undefined, undefined],
    ['1 2', undefined, undefined],
    ['soon', undefined, undefined],
    ['', undefined, undefined],
    [undefined, undefined, undefined],
  ])('%j → %j ms asked, %j ms honoured', (value, asked, honoured) => {
    expect(retryAfterDelayMs(value, now)).toBe(asked);
    expect(retryAfterSeconds(value, now)).toBe(asked === undefined ? undefined : asked / 1000);
    expect(retryAfterMs(value, now)).toBe(honoured);
  });
});

describe('limit statuses (§7, §8)', () => {
  it('counts 429 and the statuses limiters answer instead as the limit, nothing else', () => {
    expect([429, 503, 509, 420].filter(isLimitLike)).toEqual([429, 503, 509, 420]);
    expect([0, 200, 401, 403, 404, 500, 502].filter(isLimitLike)).toEqual([]);
  });
});

describe('endpoints (§4)', () => {
  it('names the business endpoints and the ones a rate limit can be probed on', () => {
    expect(BUSINESS_ENDPOINTS).toEqual(['evaluation', 'ach_transactions']);
    expect(RATE_LIMIT_ENDPOINTS.filter(isRateLimitEndpoint)).toEqual(RATE_LIMIT_ENDPOINTS);
    expect(['tokens.health_check', 'evaluation', ''].filter(isRateLimitEndpoint)).toEqual([]);
  });
});

describe('error body (§7: a JSON object with a string `error`)', () => {
  it.each([
    [{ error: 'unauthorized' }, 'unauthorized'],
    [{ error: 'rate_limited', detail: 1 }, 'rate_limited'],
    [{ error: 401 }, undefined],
    [{ message: 'nope' }, undefined],
    [['error'], undefined],
    ['unauthorized', undefined],
    [null, undefined],
    [undefined, undefined],
  ])('%j → %j', (body, text) => {
    expect(errorTextOf(body)).toBe(text);
  });
});

describe('token fingerprint', () => {
  it('is tk_ and the first 8 hex digits of SHA-256, the one name Node and k6 both give a token', async () => {
    const { fingerprint } = await import('../../src/http/redact/fingerprint.js');
    const { fingerprintOfSha256, TOKEN_FINGERPRINT } = await import('../../src/spec/token-fingerprint.js');
    // SHA-256("abc") = ba7816bf 8f01cfea …
    expect(fingerprint('abc')).toBe('tk_ba7816bf');
    expect(fingerprintOfSha256('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')).toBe('tk_ba7816bf');
    expect(TOKEN_FINGERPRINT.test(fingerprint('any token at all'))).toBe(true);
  });
});
