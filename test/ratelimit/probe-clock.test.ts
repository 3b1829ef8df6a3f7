// The stacked inference replays the probe's reading on the probe's own clock (stacked-inference.ts
// onProbeClock): the detectors place a window's edges on Unix time, and a probe begun 7.4 s past the
// minute saw the emulator's 1 s windows turn 0.6 s into each of its seconds, not 0.003 s in (bench,
// 30 Nov: replayed 0.6 s off, the window of 600 per 60 s was fitted at 540 and 619 claimed).

import { describe, expect, it } from 'vitest';
import { onProbeClock } from '../../src/ratelimit/stacked-inference.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';

const fixed = (phase_s: number, window_s = 1): Extract<LimiterModel, { kind: 'fixed-window' }> => ({
  kind: 'fixed-window',
  limit: 30,
  window_s,
  phase_s,
  counts_refused: false,
});

describe("the probe's reading on the probe's clock", () => {
  it('moves a window on the clock by the probe start, modulo the window', () => {
    expect(onProbeClock(fixed(0.003), 1_764_500_007.4)).toMatchObject({ phase_s: 0.603 });
    expect(onProbeClock(fixed(0, 60), 1_764_500_047.4)).toMatchObject({ phase_s: 52.6 });
  });

  it("moves httprate's counter windows, which sit on the clock too", () => {
    const counter: LimiterModel = {
      kind: 'sliding-counter',
      limit: 100,
      window_s: 10,
      phase_s: 0,
      counts_refused: false,
    };
    expect(onProbeClock(counter, 1_764_500_003.25)).toMatchObject({ phase_s: 6.75 });
  });

  it('leaves what has no edges on the clock, and everything when the clock is not known', () => {
    const opened: LimiterModel = { ...fixed(0.5), edges: 'first-request' };
    const bucket: LimiterModel = { kind: 'bucket', rate_rps: 30, burst: 30 };
    expect(onProbeClock(opened, 1_764_500_007.4)).toEqual(opened);
    expect(onProbeClock(bucket, 1_764_500_007.4)).toEqual(bucket);
    expect(onProbeClock(fixed(0.003), undefined)).toEqual(fixed(0.003));
  });
});
