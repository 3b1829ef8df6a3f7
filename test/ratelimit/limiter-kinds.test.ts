// The sliding-window counter (go-chi/httprate v0.16.1, limiter.go) and the bucket refilled by a
// timer in batches (Envoy's token_bucket fill_interval): hand-worked cases of their arithmetic,
// as the emulator enforces them and the fleet simulator replays them (both go through createLimiter).

import { describe, expect, it } from 'vitest';
import { createLimiter, type LimiterModel } from '../../src/ratelimit/limiters/index.js';

const counter = (limit: number, phaseS = 0, countsRefused = false): LimiterModel => ({
  kind: 'sliding-counter',
  limit,
  window_s: 1,
  phase_s: phaseS,
  counts_refused: countsRefused,
});
const admitted = (model: LimiterModel, times: number[]) => {
  const limiter = createLimiter(model);
  return times.map((t) => limiter.take(t).ok);
};

describe('sliding-window counter (go-chi/httprate)', () => {
  it.each([
    // 4 admitted in [0, 1000). At 1,250 the previous 4 weigh 3, room for one; at 1,251 they weigh
    // 2.996 plus 1, rounded 4: full; at 1,500 2 + 1: room for one more.
    {
      name: 'weighs the previous window by what is left of this one, rounded',
      model: counter(4),
      times: [0, 1, 2, 3, 4, 1_250, 1_251, 1_500, 1_501],
      want: [true, true, true, true, false, true, false, true, false],
    },
    // 4 × 0.9 = 3.6 rounds to 4 (HAProxy's counter rounds down to 3 and lets one in).
    {
      name: 'rounds to the nearest, not down',
      model: counter(4),
      times: [0, 1, 2, 3, 1_100],
      want: [true, true, true, true, false],
    },
    // Windows from the limiter's start (phase 0.5 s): the burst at 0 is in [-500, 500), so at 1,000
    // it weighs half; on epoch-aligned windows it is still the current window's count.
    {
      name: 'keeps its windows at the phase',
      model: counter(4, 0.5),
      times: [0, 1, 2, 3, 1_000, 1_001, 1_002],
      want: [true, true, true, true, true, true, false],
    },
    {
      name: 'epoch-aligned windows (phase 0) for the same times',
      model: counter(4, 0),
      times: [0, 1, 2, 3, 1_000],
      want: [true, true, true, true, false],
    },
    // Two windows idle: the previous count is forgotten.
    {
      name: 'starts afresh after a whole idle window',
      model: counter(2),
      times: [0, 1, 2, 2_000, 2_001, 2_002],
      want: [true, true, false, true, true, false],
    },
  ])('$name', ({ model, times, want }) => {
    expect(admitted(model, times)).toEqual(want);
  });

  it('counts only admitted requests unless told to, so a knocking client is let in as the weight fades', () => {
    const every50 = Array.from({ length: 60 }, (_, i) => i * 50);
    const onlyAdmitted = admitted(counter(3), every50).filter(Boolean).length;
    const allCounted = admitted(counter(3, 0, true), every50).filter(Boolean).length;
    expect(allCounted).toBeLessThan(onlyAdmitted);
  });

  it('says Retry-After: one window, as httprate does', () => {
    const limiter = createLimiter({
      kind: 'sliding-counter',
      limit: 1,
      window_s: 10,
      phase_s: 0,
      counts_refused: false,
    });
    limiter.take(9_000);
    expect(limiter.take(9_500)).toEqual({ ok: false, retryAfterS: 10 });
  });
});

describe('bucket refilled in batches (Envoy fill_interval)', () => {
  const batch: LimiterModel = { kind: 'bucket', rate_rps: 20, burst: 30, fill_interval_s: 0.5 };

  it('drains its capacity, then gives a whole batch back at each tick and nothing between', () => {
    const limiter = createLimiter(batch);
    const burst = Array.from({ length: 31 }, (_, i) => limiter.take(i).ok);
    expect(burst.filter(Boolean)).toHaveLength(30);
    // A lazily refilled bucket at 20/s would have 9 back by 499 ms.
    expect(limiter.take(499)).toEqual({ ok: false, retryAfterS: 1 });
    const tick = Array.from({ length: 11 }, (_, i) => limiter.take(500 + i).ok);
    expect(tick).toEqual([...Array(10).fill(true), false]);
  });

  it('never holds more than its capacity, however long it idled', () => {
    const limiter = createLimiter(batch);
    limiter.take(0);
    const after = Array.from({ length: 31 }, (_, i) => limiter.take(60_000 + i).ok);
    expect(after.filter(Boolean)).toHaveLength(30);
  });

  it('admits the same long-run rate as the lazily refilled bucket', () => {
    const count = (model: LimiterModel) =>
      admitted(
        model,
        Array.from({ length: 2_000 }, (_, i) => i * 5),
      ).filter(Boolean).length;
    // 10 s of a request every 5 ms: 30 + the 19 batches of 10 at 0.5 s, 1 s, … 9.5 s; the lazy
    // bucket has its 200 in by 9.995 s but the last batch's worth still dripping: within one batch.
    expect(count(batch)).toBe(220);
    expect(Math.abs(count({ kind: 'bucket', rate_rps: 20, burst: 30 }) - 220)).toBeLessThanOrEqual(10);
  });
});
