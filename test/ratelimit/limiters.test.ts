// The three limiter shapes as pure functions of a given clock: what each admits, and the
// Retry-After each would truthfully send.

import { describe, expect, it } from 'vitest';
import {
  burstSize,
  createLimiter,
  describeLimiter,
  sustainedRate,
  type LimiterModel,
} from '../../src/ratelimit/limiters/index.js';

const admitted = (model: LimiterModel, times: number[]) => {
  const limiter = createLimiter(model);
  return times.map((t) => limiter.take(t).ok);
};

describe('fixed window', () => {
  const model = { kind: 'fixed-window', limit: 3, window_s: 1, phase_s: 0.25, counts_refused: false } as const;

  it('admits the limit per window and resets at the edge, wherever the phase puts it', () => {
    expect(admitted(model, [300, 310, 320, 330, 1_249, 1_250, 1_251, 1_252, 1_253])).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });

  it('says the whole seconds to the next edge', () => {
    const limiter = createLimiter({ ...model, window_s: 10, phase_s: 0 });
    for (let i = 0; i < 3; i++) limiter.take(1_000);
    expect(limiter.take(1_000)).toEqual({ ok: false, retryAfterS: 9 });
    expect(limiter.take(9_999)).toEqual({ ok: false, retryAfterS: 1 });
    expect(limiter.take(10_000).ok).toBe(true);
  });

  it('counting refused requests changes nothing within a window: the reset forgives them', () => {
    const times = [0, 1, 2, 3, 4, 5, 1_000, 1_001];
    expect(admitted({ ...model, phase_s: 0, counts_refused: true }, times)).toEqual(
      admitted({ ...model, phase_s: 0 }, times),
    );
  });

  it('with edges at the first request (rate-limiter-flexible): a window opens at the first request after the last one ended', () => {
    const opened = { ...model, phase_s: 0, edges: 'first-request' } as const;
    // Opened at 300: full until 1 300, not at the clock's 1 000 (phase 0); the next opens at 1 700, not 2 300.
    expect(
      admitted(opened, [300, 310, 320, 330, 1_000, 1_299, 1_300, 1_301, 1_302, 1_303, 2_299, 2_300, 2_301]),
    ).toEqual([true, true, true, false, false, false, true, true, true, false, false, true, true]);
    const limiter = createLimiter({ ...opened, window_s: 10 });
    for (let i = 0; i < 3; i++) limiter.take(4_000);
    expect(limiter.take(4_500)).toEqual({ ok: false, retryAfterS: 10 });
    expect(describeLimiter(opened)).toBe(
      'fixed window 3 per 1 s, each starting at the first request after a window ends',
    );
  });
});

describe('sliding window', () => {
  const model = { kind: 'sliding-window', limit: 3, period_s: 1, counts_refused: false } as const;

  it('admits at most the limit in any period', () => {
    expect(admitted(model, [0, 100, 200, 300, 999, 1_000, 1_050, 1_100, 1_200, 1_300])).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      false,
      true,
      true,
      false,
    ]);
  });

  it('with refused requests counted, a client that keeps asking stays locked out', () => {
    // One request every 200 ms: only admitted ones logged → 3 of every 5; all logged → the log never empties.
    const every200 = Array.from({ length: 25 }, (_, i) => i * 200);
    const onlyAdmitted = admitted(model, every200).filter(Boolean).length;
    const allCounted = admitted({ ...model, counts_refused: true }, every200).filter(Boolean).length;
    expect(onlyAdmitted).toBe(15);
    expect(allCounted).toBe(3);
  });

  it('says when the oldest counted request leaves the window', () => {
    const limiter = createLimiter({ ...model, period_s: 5 });
    limiter.take(0);
    limiter.take(2_000);
    limiter.take(2_500);
    expect(limiter.take(2_600)).toEqual({ ok: false, retryAfterS: 3 });
    expect(limiter.take(4_999).ok).toBe(false);
    expect(limiter.take(5_000).ok).toBe(true);
  });

  it('keeps memory bounded under a flood', () => {
    const limiter = createLimiter({ ...model, counts_refused: true, limit: 10 });
    for (let i = 0; i < 200_000; i++) limiter.take(i);
    expect(limiter.take(1_000_000).ok).toBe(true);
  });
});

describe('bucket', () => {
  it('admits the burst, then the rate', () => {
    const times = [0, 0, 0, 0, 499, 500, 501, 1_000];
    expect(admitted({ kind: 'bucket', rate_rps: 2, burst: 3 }, times)).toEqual([
      true,
      true,
      true,
      false,
      false,
      true,
      false,
      true,
    ]);
  });
});

describe('figures of a model', () => {
  it('sustained rate, burst and a line a person reads', () => {
    const fixed = { kind: 'fixed-window', limit: 100, window_s: 10, phase_s: 0, counts_refused: true } as const;
    expect(sustainedRate(fixed)).toBe(10);
    expect(burstSize(fixed)).toBe(100);
    expect(describeLimiter(fixed)).toBe('fixed window 100 per 10 s, refused requests count');
    expect(sustainedRate({ kind: 'sliding-window', limit: 50, period_s: 2, counts_refused: false })).toBe(25);
    expect(describeLimiter({ kind: 'bucket', rate_rps: 50, burst: 20 })).toBe('token bucket 50 req/s, burst 20');
  });

  it('a log the probe could not tell from a window opened at the first request says both, never the log alone', () => {
    const untold = {
      kind: 'sliding-window',
      limit: 50,
      period_s: 0.991,
      counts_refused: false,
      or_opened_window: true,
    } as const;
    expect(describeLimiter(untold)).toBe(
      'sliding window 50 per 0.991 s, or a fixed window opened at the first request (the two not told apart)',
    );
    expect(sustainedRate(untold)).toBeCloseTo(50 / 0.991, 6);
  });
});
