// A sliding log on a window of seconds whose refusals say when to come back (Retry-After, or a
// RateLimit reset): express-style "20 per 10 s" kept as a log of request times. The probe waits for
// the reset the refusal names, finds the limit whole again there, and a period after the request
// that passed at that edge only that request's slot frees: a sliding log, not a fixed window. Read
// as a fixed window 19 per 11.2 s (15 % slow) or, within run's 30 s budget, "not lifted for 20.1 s"
// (it had lifted twice) before it was. Whole probe on the virtual clock.

import { describe, expect, it } from 'vitest';
import type { Limits } from '../../src/ratelimit/limiters/index.js';
import { advertising, discoverVirtual, fromModel } from './virtual-limit.js';

const log = (limit: number, periodS: number): Limits => ({
  kind: 'sliding-window',
  limit,
  period_s: periodS,
  counts_refused: false,
});

describe('a sliding log whose refusals name the reset', () => {
  it.each([
    { limit: 20, periodS: 10, capS: 30 },
    { limit: 20, periodS: 10, capS: 60 },
    { limit: 50, periodS: 10, capS: 60 },
    { limit: 30, periodS: 6, capS: 30 },
  ])(
    '$limit per $periodS s, Retry-After, budget $capS s: a sliding log, its rate within 1 %',
    async ({ limit, periodS, capS }) => {
      const e = await discoverVirtual(
        { limiter: () => fromModel(log(limit, periodS)), status: 429, announces: 'retry-after' },
        { maxDurationS: capS },
      );
      expect(e.limiter, JSON.stringify(e.notes)).toMatchObject({ kind: 'sliding-window', limit });
      expect(e.sustained_rps! / (limit / periodS)).toBeCloseTo(1, 2);
    },
  );

  it('announced as RateLimit-Policy 20;w=10: measured a sliding log, and the announcement agrees', async () => {
    const e = await discoverVirtual(
      { limiter: () => advertising(log(20, 10)), status: 429, announces: 'reset' },
      { maxDurationS: 30 },
    );
    expect(e.limiter, JSON.stringify(e.notes)).toMatchObject({ kind: 'sliding-window', limit: 20 });
    expect(e.advertised).toMatchObject({ limit: 20, window_s: 10, agrees: true });
  });
});
