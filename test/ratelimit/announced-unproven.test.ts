// Issue 35: a service announces two limits (a per-second and a per-minute quota, as an IETF
// RateLimit-Policy list or in Kong's per-unit fields) and the probe, within its seconds, measures
// only the per-second one. The per-minute one is "announced, not proven", and no recommendation
// may exceed its rate: a client paced at the per-second figure is refused for most of every minute.

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { bindingRps, recommend, type RecommendInput } from '../../src/ratelimit/recommend.js';
import { sizeFleet } from '../../src/ratelimit/fleet/size.js';
import { kongHeaders } from '../../src/spec/ratelimit-fields.js';
import { advertising, discoverVirtual } from './virtual-limit.js';

// Kong with `second: 30, minute: 600`: 30 req/s for 20 s, then nothing until the minute ends; 10 req/s sustained.
const kongLike: LimiterSet = [
  { kind: 'bucket', rate_rps: 30, burst: 30 },
  { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
];

describe('a recommendation never exceeds an announced limit the probe did not prove', () => {
  const measured: RecommendInput = {
    sustained_rps: 30,
    burst: 30,
    recovery_s: 0.04,
    refill_s: 1,
    retry_after_header: 'truthful',
    retry_after_max_s: 1,
    latency_p95_ms: 20,
  };
  const second = { limit: 30, window_s: 1, source_header: 'RateLimit-Policy', agrees: true, note: 'agrees' };
  const minute = { limit: 600, window_s: 60, source_header: 'RateLimit-Policy', agrees: null, note: 'announced' };

  it('binds the rate to the announced per-minute quota, and says so', () => {
    expect(recommend(measured)?.target_rps).toBe(24);
    const rec = recommend({ ...measured, advertised: second, announced: [second, minute] })!;
    expect(rec.target_rps).toBe(8);
    expect(rec.why[0]).toMatch(/10 req\/s announced as 600 per 60 s \(RateLimit-Policy, announced, not proven\)/);
    expect(bindingRps({ ...measured, announced: [second, minute] })).toBe(10);
  });

  it.each([
    ['an IETF RateLimit-Policy list', undefined],
    ["Kong's X-RateLimit-Limit-Second and -Minute", kongHeaders],
  ] as const)(
    'announced as %s: the probe measures the second, the minute stays announced, not proven',
    async (_, fields) => {
      // A budget of seconds, as the probe has: the minute's 600 are never reached.
      const estimate = await discoverVirtual(
        { limiter: () => advertising(kongLike, undefined, fields), status: 429 },
        { maxDurationS: 10, maxRequests: 400 },
      );
      expect(estimate.sustained_rps).toBeGreaterThan(25);
      const perMinute = estimate.announced?.find((a) => a.window_s === 60);
      expect(perMinute).toMatchObject({ limit: 600, agrees: null });
      expect(perMinute?.note).toMatch(/^announced, not proven/);
      const rec = recommend(estimate)!;
      expect(rec.target_rps).toBeLessThanOrEqual(10);
      expect(rec.target_rps).toBeGreaterThanOrEqual(7.5);
      // The fleet simulates the announced minute beside what was measured.
      const fleet = sizeFleet({ estimate, recommendation: rec, instances: 4 })!;
      expect(fleet.limiter).toMatch(/600 per 60 s announced, not proven/);
    },
  );
  // Three policies (a second, a minute, an hour) the way an IETF list or Kong's units announce them:
  // within seconds neither the minute nor the hour is proven, and the recommendation stays within
  // the lowest rate announced, the hour's 5.56 req/s, not the minute's 10 nor the 30 measured.
  it.each([
    ['an IETF RateLimit-Policy list', undefined],
    ["Kong's X-RateLimit-Limit-Second, -Minute and -Hour", kongHeaders],
  ] as const)('three announced as %s: the recommendation stays within the hour, the lowest rate', async (_, fields) => {
    const hour = { kind: 'fixed-window', limit: 20000, window_s: 3600, phase_s: 0, counts_refused: false } as const;
    const estimate = await discoverVirtual(
      { limiter: () => advertising([...kongLike, hour], undefined, fields), status: 429 },
      { maxDurationS: 10, maxRequests: 400 },
    );
    const context = JSON.stringify({ ...estimate, timeline: undefined }, null, 1);
    expect(estimate.sustained_rps, context).toBeGreaterThan(25);
    for (const windowS of [60, 3600])
      expect(
        estimate.announced?.find((a) => a.window_s === windowS),
        context,
      ).toMatchObject({ agrees: null, note: expect.stringMatching(/^announced, not proven/) });
    expect(bindingRps(estimate)).toBeCloseTo(20000 / 3600, 5);
    const rec = recommend(estimate)!;
    expect(rec.target_rps, context).toBeLessThanOrEqual(20000 / 3600);
    expect(rec.why[0]).toMatch(/5\.56 req\/s announced as 20000 per 3600 s .*announced, not proven/);
  });
});
