// A limiter that is a set of limits (Kong's second and minute, two nginx zones): traces on a given
// clock of what the set admits, how each limit counts a request another refused, and the figures
// (sustained rate, burst) read off the set rather than off one of its limits.

import { describe, expect, it } from 'vitest';
import {
  burstSize,
  createLimiter,
  describeLimiter,
  sustainedRate,
  type LimiterModel,
  type LimiterSet,
  type Limits,
} from '../../src/ratelimit/limiters/index.js';

const admitted = (limits: Limits, times: readonly number[]) => {
  const limiter = createLimiter(limits);
  return times.map((t) => limiter.take(t).ok);
};

const bucket = (rate_rps: number, burst: number): LimiterModel => ({ kind: 'bucket', rate_rps, burst });
const fixed = (limit: number, window_s: number, counts_refused = false): LimiterModel => ({
  kind: 'fixed-window',
  limit,
  window_s,
  phase_s: 0,
  counts_refused,
});

describe('a set of limits', () => {
  const perSecondAndMinute: LimiterSet = [bucket(5, 5), fixed(20, 60)];

  it('admits a request only when every limit does: the bucket refuses the burst, the minute the rest', () => {
    // Five at once (the bucket's burst), then one every 200 ms (the bucket's rate) until the
    // minute's 20 are spent: 5 + 15 = 20 by t = 3 s, and nothing more before the minute ends.
    const times = [0, 0, 0, 0, 0, 0, ...Array.from({ length: 20 }, (_, i) => 200 * (i + 1)), 59_999, 60_000];
    const got = admitted(perSecondAndMinute, times);
    expect(got.slice(0, 6)).toEqual([true, true, true, true, true, false]);
    expect(got.slice(6, 21)).toEqual(Array(15).fill(true));
    expect(got.slice(21, 26)).toEqual(Array(5).fill(false));
    expect(got.slice(26)).toEqual([false, true]);
  });

  it('paces a client by its slowest limit, and bursts what passes from idle before the first refusal', () => {
    expect(sustainedRate(perSecondAndMinute)).toBeCloseTo(20 / 60, 9);
    expect(burstSize(perSecondAndMinute)).toBe(5);
    expect(burstSize([bucket(50, 50), fixed(4, 1)])).toBe(4);
    // Replayed, not the smallest burst taken on trust: a bucket of capacity 0.5 still lets one through.
    expect(burstSize([bucket(2, 0.5), fixed(5, 1)])).toBe(1);
    expect(describeLimiter(perSecondAndMinute)).toBe('token bucket 5 req/s, burst 5 and fixed window 20 per 60 s');
  });

  it('a limit that counts refused requests counts the ones another limit refused; one that does not, not', () => {
    // A 1/s bucket refuses the requests at 100 and 200 ms; a window of 3 per 10 s counting every
    // request is full by then, and refuses the one at 1 s the bucket would have admitted.
    const times = [0, 100, 200, 1_000, 2_000, 3_000, 10_000];
    expect(admitted([bucket(1, 1), fixed(3, 10, true)], times)).toEqual([
      true,
      false,
      false,
      false,
      false,
      false,
      true,
    ]);
    expect(admitted([bucket(1, 1), fixed(3, 10, false)], times)).toEqual([true, false, false, true, true, false, true]);
  });

  it('says the longest wait among the limits that refused as Retry-After', () => {
    const limiter = createLimiter([bucket(1, 1), fixed(1, 10)]);
    expect(limiter.take(0).ok).toBe(true);
    // Both refuse: the bucket for a second, the window until its edge at 10 s.
    expect(limiter.take(500)).toEqual({ ok: false, retryAfterS: 10 });
  });

  it('a set of one is that limit, exactly', () => {
    const times = [0, 0, 0, 10, 20, 400, 900, 1_000, 1_001, 1_002, 2_500];
    for (const model of [bucket(2, 2), fixed(2, 1), fixed(2, 1, true)])
      expect(admitted([model], times)).toEqual(admitted(model, times));
  });

  it('announces every limit it has, and as one quota the one nearest to refusing', () => {
    const limiter = createLimiter([fixed(10, 1), fixed(25, 60)]);
    for (let i = 0; i < 4; i++) limiter.take(0);
    expect(limiter.quotas?.(0)?.map((q) => [q.limit, q.windowS, q.remaining])).toEqual([
      [10, 1, 6],
      [25, 60, 21],
    ]);
    for (let i = 0; i < 4; i++) limiter.take(1_000);
    for (let i = 0; i < 20; i++) limiter.take(2_000);
    // At 2 s the second is spent (10 of 20 tries passed, the 10 refused counted by neither) and the
    // minute has 25 − 4 − 4 − 10 = 7 left; a second later the second is whole and the minute nearest.
    expect(limiter.quota?.(2_000)).toMatchObject({ limit: 10, remaining: 0 });
    expect(limiter.quota?.(3_000)).toMatchObject({ limit: 25, remaining: 7 });
  });
});

describe('a queue in a set', () => {
  it('holds an admitted answer as long as its queue says; a refusal by the other limit waits for nothing', () => {
    // nginx's rate=2r/s burst=2 (no nodelay) behind a window of 3 per 10 s: from idle the first
    // passes at once, the next two wait their turn (0.5 s, 1 s), the fourth is the window's refusal.
    const set = createLimiter([{ kind: 'queue', rate_rps: 2, burst: 2, delay: 0 }, fixed(3, 10)]);
    const answers = [0, 0, 0, 0].map((t) => set.take(t));
    expect(answers.map((d) => (d.ok ? (d.delayMs ?? 0) : 'refused'))).toEqual([0, 500, 1000, 'refused']);
  });
});

describe('test: a look that counts nothing', () => {
  const kinds: LimiterModel[] = [
    bucket(3, 2),
    { kind: 'bucket', rate_rps: 4, burst: 2, fill_interval_s: 0.5 },
    fixed(3, 1),
    fixed(3, 1, true),
    { kind: 'fixed-window', limit: 2, window_s: 1, phase_s: 0, counts_refused: false, edges: 'first-request' },
    { kind: 'sliding-window', limit: 3, period_s: 1, counts_refused: true },
    { kind: 'sliding-window', limit: 3, period_s: 1, counts_refused: false, counter: 'interpolated' },
    { kind: 'sliding-window', limit: 3, period_s: 1, counts_refused: true, counter: 'interpolated' },
    { kind: 'sliding-counter', limit: 3, window_s: 1, phase_s: 0, counts_refused: false },
    { kind: 'queue', rate_rps: 3, burst: 2, delay: 1 },
  ];
  const times = [0, 50, 100, 150, 200, 700, 1_100, 1_150, 1_300, 2_050, 2_100, 4_500, 4_600, 4_700, 4_800, 5_400];

  it.each(kinds)('$kind (%#) answers take alike, with as many looks in between as anyone likes', (model) => {
    const looked = createLimiter(model);
    const got = times.map((t, i) => {
      // A look between requests (a period opened by a look would move) and two just before one.
      looked.test(((times[i - 1] ?? 0) + t) / 2);
      looked.test(t);
      const said = looked.test(t);
      const taken = looked.take(t);
      expect(said.ok).toBe(taken.ok);
      return taken.ok;
    });
    expect(got).toEqual(admitted(model, times));
    expect(got).toContain(false);
  });
});
