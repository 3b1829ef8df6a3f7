// HAProxy's interpolated request rate as a limiter model (src/ratelimit/limiters/interpolated-window.ts),
// what the fleet simulator replays HAProxy's stick tables with and the probe's virtual-clock tests
// play HAProxy with (virtual-limit.ts: haproxyRate): hand-worked cases of freq_ctr.c's arithmetic.

import { describe, expect, it } from 'vitest';
import { createLimiter, type SlidingWindowModel } from '../../src/ratelimit/limiters/index.js';

const model = (limit: number, countsRefused: boolean): SlidingWindowModel => ({
  kind: 'sliding-window',
  limit,
  period_s: 1,
  counts_refused: countsRefused,
  counter: 'interpolated',
});
const admitted = (m: SlidingWindowModel, times: number[]) => {
  const limiter = createLimiter(m);
  return times.map((t) => limiter.take(t).ok);
};

describe('interpolated sliding window (HAProxy http_req_rate)', () => {
  it('weighs the previous period by what is left of the current one, rounded down', () => {
    // 4 admitted in the period that opened at 0. At 1,250 the previous 4 weigh floor(4 × 0.75) = 3,
    // so one more passes; at 1,500 floor(4 × 0.5) = 2 plus the 1 counted: one more; then full.
    expect(admitted(model(4, false), [0, 10, 20, 30, 40, 1_250, 1_250, 1_500, 1_500])).toEqual([
      true,
      true,
      true,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('still weighs a burst a whole period later, when a sliding log of the same limit has forgotten it', () => {
    // The period opened with the burst at 990. At 1,995 the next period (from 1,990) has barely
    // begun, so the burst's 4 weigh floor(4 × 0.995) = 3: one passes, the next does not. A log
    // dropped all four at 1,990.
    const times = [990, 991, 992, 993, 1_995, 1_996];
    const log = createLimiter({ kind: 'sliding-window', limit: 4, period_s: 1, counts_refused: false });
    expect(times.map((t) => log.take(t).ok)).toEqual([true, true, true, true, true, true]);
    expect(admitted(model(4, false), times)).toEqual([true, true, true, true, true, false]);
  });

  it('counts refused requests in the every-request recipe, so knocking keeps the rate up', () => {
    const every100 = Array.from({ length: 30 }, (_, i) => i * 100);
    const onlyAdmitted = admitted(model(3, false), every100).filter(Boolean).length;
    const allCounted = admitted(model(3, true), every100).filter(Boolean).length;
    expect(allCounted).toBeLessThan(onlyAdmitted);
  });

  it('starts afresh after two idle periods', () => {
    expect(admitted(model(2, true), [0, 1, 2, 2_500, 2_501, 2_502])).toEqual([true, true, false, true, true, false]);
  });
});
