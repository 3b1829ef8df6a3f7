// §7, §8: a token bucket per client; over the limit 429 with a truthful Retry-After.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/emulator/rate-limiter.js';
import { start, tokenOf, type Running } from './support/client.js';

describe('RateLimiter', () => {
  it('admits a burst, then refills at rps without timers', () => {
    const limiter = RateLimiter.bucket(2, 3);
    const t = 1_000_000;
    expect([1, 2, 3].map(() => limiter.take('a', t).ok)).toEqual([true, true, true]);
    expect(limiter.take('a', t)).toEqual({ ok: false, retryAfterS: 1 });
    expect(limiter.take('a', t + 499).ok).toBe(false);
    expect(limiter.take('a', t + 500).ok).toBe(true);
    // Other keys have their own bucket.
    expect(limiter.take('b', t).ok).toBe(true);
  });

  it('says how many whole seconds until one request fits, at least 1', () => {
    const slow = RateLimiter.bucket(0.25, 1);
    expect(slow.take('a', 0).ok).toBe(true);
    expect(slow.take('a', 0)).toEqual({ ok: false, retryAfterS: 4 });
    expect(slow.take('a', 1_000)).toEqual({ ok: false, retryAfterS: 3 });
    expect(slow.take('a', 3_999).ok).toBe(false);
    expect(slow.take('a', 4_000).ok).toBe(true);
  });

  it('never holds more than the burst, and survives a clock going backwards', () => {
    const limiter = RateLimiter.bucket(10, 2);
    limiter.take('a', 0);
    const afterIdle = [0, 1, 2].map(() => limiter.take('a', 1_000_000).ok);
    expect(afterIdle).toEqual([true, true, false]);
    expect(limiter.take('a', 0).ok).toBe(false);
  });

  it('is off with rps 0', () => {
    const off = RateLimiter.bucket(0, 0);
    for (let i = 0; i < 1_000; i++) expect(off.take('a', 0).ok).toBe(true);
  });
});

describe('over HTTPS', () => {
  let s: Running;
  beforeAll(async () => {
    s = await start({ rateLimit: { rps: 2, burst: 5 } });
  });
  afterAll(() => s.close());

  it('answers 429 rate_limit_exceeded with Retry-After after the burst, then recovers', async () => {
    s.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await s.call('POST', '/tokens/health_check')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await s.call('POST', '/tokens/health_check');
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ error: 'rate_limit_exceeded' });
    expect(limited.headers['content-type']).toBe('application/json');
    expect(limited.headers['retry-after']).toBe('1');
    s.clock.advance(499);
    expect((await s.call('POST', '/tokens/health_check')).status).toBe(429);
    s.clock.advance(1);
    expect((await s.call('POST', '/tokens/health_check')).status).toBe(200);
  });

  it('keys POST /tokens by client_id and bearer calls by the token owner, not the address', async () => {
    s.clock.advance(60_000);
    // Exhaust the address bucket with anonymous calls…
    for (let i = 0; i < 5; i++) await s.call('POST', '/tokens/health_check');
    expect((await s.call('POST', '/tokens/health_check')).status).toBe(429);
    // …the client's own bucket is untouched, for the token endpoint and for its bearer calls.
    const { token } = tokenOf(await s.issue());
    expect((await s.call('GET', '/tokens/validate', { bearer: token })).status).toBe(200);
    for (let i = 0; i < 3; i++) await s.call('POST', '/v1/evaluation', { bearer: token, json: {} });
    // issue + validate + 3 business = 5: the client's bucket is now empty, on every endpoint.
    expect((await s.issue()).status).toBe(429);
    expect((await s.call('POST', '/v1/evaluation', { bearer: token, json: {} })).status).toBe(429);
  });

  it('limits every endpoint, unknown paths included', async () => {
    s.clock.advance(60_000);
    for (let i = 0; i < 5; i++) expect((await s.call('GET', '/nowhere')).status).toBe(404);
    expect((await s.call('GET', '/nowhere')).status).toBe(429);
  });
});
