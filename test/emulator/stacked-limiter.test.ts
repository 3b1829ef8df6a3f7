// The emulator running several limits at once (`serve --limiter bucket:…+fixed:…`): a per-second
// bucket with a per-minute window, on the emulator's own (test) clock, announced as an IETF list,
// in Kong's per-unit fields, or not at all.

import { afterEach, describe, expect, it } from 'vitest';
import { limitsFromFlags } from '../../src/emulator/limiter-choice.js';
import { HarnessError } from '../../src/errors.js';
import type { Limits } from '../../src/ratelimit/limiters/index.js';
import type { ProfileName } from '../../src/emulator/profiles/index.js';
import { start, T0, type Running } from './support/client.js';

const open: Running[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

const flags = { rps: 50, burst: 50, windowS: 1, countsRefused: false };

describe('limitsFromFlags (serve --limiter)', () => {
  it('keeps the one-kind form as it was, flags and all', () => {
    expect(limitsFromFlags(['bucket'], flags)).toEqual({ kind: 'bucket', rate_rps: 50, burst: 50 });
    expect(limitsFromFlags(['fixed'], { ...flags, windowS: 2, countsRefused: true })).toEqual({
      kind: 'fixed-window',
      limit: 100,
      window_s: 2,
      phase_s: 0,
      counts_refused: true,
    });
    expect(limitsFromFlags(['bucket'], { ...flags, rps: 0 })).toBeNull();
  });

  it('reads several limits, repeated or joined by +, each with its own settings', () => {
    const set: Limits = [
      { kind: 'bucket', rate_rps: 10, burst: 10 },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ];
    expect(limitsFromFlags(['bucket:rate=10,burst=10+fixed:limit=600,window=60'], flags)).toEqual(set);
    expect(limitsFromFlags(['bucket:rate=10,burst=10', 'fixed:limit=600,window=60'], flags)).toEqual(set);
    expect(limitsFromFlags(['fixed:limit=30,window=1', 'fixed:rate=10,window=60,counts-refused'], flags)).toEqual([
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: true },
    ]);
  });

  it.each([
    ['bucket+leaky', /--limiter leaky is not a limiter the emulator runs/],
    ['bucket:rate=ten', /--limiter bucket:rate=ten: rate wants a number of requests per second/],
    ['fixed:size=3', /unknown key "size"/],
    ['bucket:limit=3', /a bucket has no limit per window/],
    ['bucket:rate=0+fixed', /admits no request at rate 0/],
    ['bucket+', /--limiter wants a kind/],
  ])('refuses %s as a usage error naming the fix', (word, line) => {
    expect(() => limitsFromFlags([word], flags)).toThrow(HarnessError);
    expect(() => limitsFromFlags([word], flags)).toThrow(line);
  });
});

describe('the emulator with a per-second bucket and a per-minute window', () => {
  const limiter: Limits = [
    { kind: 'bucket', rate_rps: 2, burst: 2 },
    { kind: 'fixed-window', limit: 5, window_s: 60, phase_s: 0, counts_refused: false },
  ];
  const validate = (r: Running, bearer: string) => r.call('GET', '/tokens/validate', { bearer });

  async function running(profiles: ProfileName[]) {
    const r = await start({ limiter, profiles, tokenTtlS: 3_600 });
    open.push(r);
    const token = (((await r.issue()).json ?? {}) as { token?: string }).token ?? '';
    return { r, token };
  }

  it('refuses past the bucket, then past the minute, and opens at the minute’s edge', async () => {
    const { r, token } = await running([]);
    // The POST /tokens took one token of the bucket and one of the minute's five.
    expect((await validate(r, token)).status).toBe(200);
    expect((await validate(r, token)).status).toBe(429);
    const statuses: number[] = [];
    for (const at of [500, 1_000, 1_500, 3_000]) {
      r.clock.set(T0 + at);
      statuses.push((await validate(r, token)).status);
    }
    // The minute's five are spent at 1.5 s; at 3 s the bucket is full again, the minute is not.
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await validate(r, token);
    // T0 is 10:00:00.250: the minute ends 56.75 s after 3.25 s; the wait is the minute's, not the bucket's.
    expect(refused.headers['retry-after']).toBe('57');
    r.clock.set(T0 + 59_749);
    expect((await validate(r, token)).status).toBe(429);
    r.clock.set(T0 + 59_750);
    expect((await validate(r, token)).status).toBe(200);
  });

  it('announces both limits as an IETF list, in Kong’s fields, or says nothing', async () => {
    const ietf = await running(['ratelimit-headers']);
    const a = await validate(ietf.r, ietf.token);
    expect(a.headers['ratelimit-policy']).toBe('"second";q=2;w=1, "minute";q=5;w=60');
    expect(a.headers['ratelimit']).toBe('"second";r=0;t=1, "minute";r=3;t=60');

    const kong = await running(['ratelimit-headers-kong']);
    const k = await validate(kong.r, kong.token);
    expect(k.headers).toMatchObject({
      'x-ratelimit-limit-second': '2',
      'x-ratelimit-remaining-second': '0',
      'x-ratelimit-limit-minute': '5',
      'x-ratelimit-remaining-minute': '3',
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
    });
    expect(k.headers['ratelimit-policy']).toBeUndefined();

    const silent = await running([]);
    const s = await validate(silent.r, silent.token);
    expect(Object.keys(s.headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
  });
});
