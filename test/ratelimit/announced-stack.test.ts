// Issue 35 items 2 and 4: a per-second and a per-minute limit, both announced (an IETF
// RateLimit-Policy list, or Kong's X-RateLimit-Limit-Second and -Minute). Under `ratelimit`'s
// budget the announced minute is verified, not taken on trust: the headline is the set's sustained
// rate (10 req/s, what holds), both limits identified. The minute's edge falls anywhere in the probe.

import { describe, expect, it } from 'vitest';
import { describeLimiter, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { probeBudgetS, DEFAULT_HORIZON_S } from '../../src/ratelimit/horizon.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { kongHeaders } from '../../src/spec/ratelimit-fields.js';
import { verificationNeedS } from '../../src/ratelimit/probe/announced-stack.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { advertising, discoverVirtual } from './virtual-limit.js';

const stack = (phaseS: number): LimiterSet => [
  { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
  { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: phaseS, counts_refused: false },
];

/** The two ways a gateway announces both limits, each with the minute's phases tried. */
const ANNOUNCED_AS = [
  { said: 'an IETF RateLimit-Policy list', fields: undefined, minutes: [0, 23, 47] },
  { said: "Kong's fields", fields: kongHeaders, minutes: [0, 31, 52] },
];

describe('an announced per-minute limit beside the per-second one, under ratelimit defaults', () => {
  it.each(ANNOUNCED_AS.flatMap(({ said, fields, minutes }) => minutes.map((phaseS) => ({ said, fields, phaseS }))))(
    'announced as $said, the minute starting $phaseS s in: verified, sustained 10 req/s',
    async ({ fields, phaseS }) => {
      const estimate = await discoverVirtual(
        { limiter: () => advertising(stack(phaseS), undefined, fields), status: 429 },
        { maxDurationS: probeBudgetS(DEFAULT_HORIZON_S) },
      );
      const context = JSON.stringify({ ...estimate, timeline: undefined }, null, 1);
      expect(estimate.partial, context).toBe(false);
      expect(Math.abs(estimate.sustained_rps! - 10) / 10, context).toBeLessThanOrEqual(0.02);
      expect(describeLimiter(estimate.limiters as unknown as LimiterSet), context).toMatch(
        /^fixed window 30 per 1 s and fixed window 60\d per 60 s$/,
      );
      expect(estimate.limiter, context).toMatchObject({ kind: 'fixed-window', window_s: 60 });
      const minute = estimate.announced?.find((a) => a.window_s === 60);
      expect(minute, context).toMatchObject({ limit: 600, agrees: true, note: expect.stringMatching(/^verified: /) });
      const rec = recommend(estimate)!;
      expect(rec.target_rps).toBeGreaterThanOrEqual(7.5);
      expect(rec.target_rps).toBeLessThanOrEqual(10);
    },
  );
});

// The bench's Kong row (7 Dec): the drain met the second's edge late in its run and let 56 through,
// 30 came back at once every second after it, and the timer's staircase told a fixed window. The
// shape phase had read the pings after the drain as a window sliding, and the walk went on as one:
// "not identified" after 28 s, the announced minute never verified, a k6 search held 9 req/s under
// its announced 10 and took 423 s. The staircase's finding now makes it a resetting window.
describe("the drain straddling the second's edge, the minute announced", () => {
  it.each(ANNOUNCED_AS.flatMap(({ said, fields }) => [0.12, 0.14].map((secondS) => ({ said, fields, secondS }))))(
    "announced as $said, the second's edge $secondS s in: both limits identified, sustained 10 req/s",
    async ({ fields, secondS }) => {
      const record: Sample[] = [];
      const estimate = await discoverVirtual(
        {
          limiter: () =>
            advertising(
              [
                { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: secondS, counts_refused: false },
                { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 17, counts_refused: false },
              ],
              undefined,
              fields,
            ),
          status: 429,
          announces: 'retry-after',
        },
        { maxDurationS: probeBudgetS(DEFAULT_HORIZON_S), record },
      );
      const context = JSON.stringify({ ...estimate, timeline: undefined }, null, 1);
      // The case: the drain let more than a second's quota through.
      expect(record.filter((r) => r.phase === 'drain' && r.answer === 'accepted').length, context).toBeGreaterThan(30);
      expect(describeLimiter(estimate.limiters as unknown as LimiterSet), context).toMatch(
        /^fixed window 30 per 1 s and fixed window 60\d per 60 s$/,
      );
      expect(Math.abs(estimate.sustained_rps! - 10) / 10, context).toBeLessThanOrEqual(0.02);
    },
  );
});

describe('an announced per-minute limit the service enforces otherwise', () => {
  it.each([
    [500, 'overstates'],
    [700, 'understates'],
  ] as const)('600 announced, %s enforced: disagrees, with what was counted', async (enforced, said) => {
    const estimate = await discoverVirtual(
      {
        limiter: () =>
          advertising(
            [
              { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
              { kind: 'fixed-window', limit: enforced, window_s: 60, phase_s: 23, counts_refused: false },
            ],
            (q) => (q.windowS === 60 ? { ...q, limit: 600, remaining: q.remaining + 600 - enforced } : q),
          ),
        status: 429,
      },
      { maxDurationS: probeBudgetS(DEFAULT_HORIZON_S) },
    );
    const context = JSON.stringify({ ...estimate, timeline: undefined }, null, 1);
    const minute = estimate.announced?.find((a) => a.window_s === 60);
    expect(minute, context).toMatchObject({ limit: 600, agrees: false, note: expect.stringContaining(said) });
    // What was counted is the second limit, never the announcement; the recommendation stays
    // within the lower of the two (the announced rate binds still, recommend.ts).
    expect(estimate.limiters?.[1], context).toMatchObject({ kind: 'fixed-window', window_s: 60 });
    expect(Math.abs((estimate.limiters![1] as { limit: number }).limit - enforced), context).toBeLessThanOrEqual(5);
    expect(recommend(estimate)!.target_rps).toBeLessThanOrEqual((0.8 * Math.min(enforced, 600)) / 60 + 0.01);
  });
});

describe('what verifying an announced limit costs', () => {
  it('a quota and two windows at most; with the remaining count said, what is left of it and a window', () => {
    expect(verificationNeedS(60, 600, 24, null)).toBe(123);
    expect(verificationNeedS(60, 600, 24, 0)).toBe(63);
    expect(verificationNeedS(60, 600, 24, 300)).toBe(75.5);
    expect(verificationNeedS(60, 600, 24, 5000)).toBe(88);
  });
});
