// A counter counting every request is claimed near its window bracket's long end, so its rate is
// never read faster than the limiter's; the precision the report states must then reach the
// bracket's short end, or the truth lies outside "rate ± precision" (real HAProxy 50 per 10 s on a
// loaded machine: 10.00–10.19 s left, 10.156 s claimed, stated ±1.5 % while 5 req/s lay 1.6 %
// above the 4.92 read).

import { describe, expect, it } from 'vitest';
import { claimPrecision } from '../../src/ratelimit/probe/crossings.js';
import { PERIOD_PRECISION } from '../../src/ratelimit/probe/period-bracket.js';

describe('claimPrecision', () => {
  it("reaches the bracket's far end from the claim", () => {
    const p = claimPrecision(50, 10.156, { lo: 10_000, hi: 10_190 });
    // From 4.92 req/s as reported (4.923 unrounded) to the 5 of a 10 s window.
    expect(p).toBe(0.0163);
    // Every window the bracket holds is within the stated share of the rate reported.
    for (const w of [10_000, 10_100, 10_190]) expect(Math.abs(50_000 / w / 4.92 - 1)).toBeLessThanOrEqual(p);
  });

  it('is never less than a period’s own precision', () => {
    expect(claimPrecision(50, 10.0, { lo: 9_990, hi: 10_010 })).toBe(PERIOD_PRECISION);
  });

  it('covers a claim at the short end as well', () => {
    // 5.1 req/s reported (5.102 unrounded), 5 at the long end.
    expect(claimPrecision(50, 9.8, { lo: 9_800, hi: 10_000 })).toBe(0.0197);
  });
});
