// check's burst (src/runner/limit-burst.ts) as a use of the rate-limit engine, on a virtual clock:
// a stalled machine does not turn "no limit at this rate" into a false alarm, and a limit that
// answers 503 before its 429s is judged by the 429.

import { describe, expect, it } from 'vitest';
import { check as limitEnforced } from '../../checks/ratelimit.limit-enforced.js';
import { limitBurst } from '../../src/runner/limit-burst.js';
import { world } from './burst-world.js';

describe("check's burst", () => {
  // 240 requests at 120/s are 2 s of schedule. After a stall the burst sends what it held up (16 in
  // flight, 5 ms answers): a 1 s stall costs nothing, a 3 s one ends at 3.56 s (67/s). Restarting the
  // schedule instead would end at 3 s (80/s) and 5 s (48/s: under half of max_rps, where the burst proves nothing).
  it.each([
    { stallMs: 1_000, atLeastRps: 114 },
    { stallMs: 3_000, atLeastRps: 65 },
  ])(
    'catches up after a $stallMs ms stall: at least $atLeastRps/s offered, so no limit is "none met at this rate", not "the probe was too slow"',
    async ({ stallMs, atLeastRps }) => {
      const { ctx, stop } = world({
        maxRps: 120,
        maxRequests: 240,
        latencyMs: 5,
        stallAtMs: 500,
        stallMs,
        status: () => 200,
      });
      try {
        const burst = await limitBurst(ctx);
        expect(burst.sent).toBe(240);
        expect(burst.statuses).toEqual({ 200: 240 });
        expect(burst.achievedRps).toBeGreaterThan(atLeastRps);
        const outcome = await limitEnforced.run(ctx);
        expect(`${outcome.status}: ${outcome.message}`).toMatch(
          /^skip: not tested: no limit met at ≤ \d+ requests\/s .*raise rate_limit\.max_rps/,
        );
        expect(outcome.untested).toBe(true);
      } finally {
        stop();
      }
    },
  );

  it('judges the first 429 when a 503 came first, counts every answer, and recovers after the backoff', async () => {
    // Requests 0–19 pass, 20 is refused with 503, the ones in flight behind it with 429; from 1 s on all pass.
    const { ctx, stop } = world({
      maxRps: 100,
      maxRequests: 200,
      latencyMs: 25,
      status: (i, ms) => (ms >= 1_000 || i < 20 ? 200 : i === 20 ? 503 : 429),
    });
    try {
      const burst = await limitBurst(ctx);
      expect(burst.limited?.status).toBe(429);
      expect(burst.statuses[200]).toBe(20);
      expect(burst.statuses[503]).toBe(1);
      expect(burst.statuses[429]).toBeGreaterThan(0);
      expect(burst.sent).toBe(20 + 1 + burst.statuses[429]!);
      expect(burst.recovery).toMatchObject({ ok: true, attempts: 1, waitedFor: 'backoff' });
    } finally {
      stop();
    }
  });
});
