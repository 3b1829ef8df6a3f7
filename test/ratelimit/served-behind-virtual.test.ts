// A gateway's token bucket of 50/s, burst 50, in front of a service that answers one request every
// 24.3 or 30 ms (41 or 33 a second): the probe reads the bucket right off its send stamps, and
// before it recommended 39-40 req/s, a pace the service could not answer (every second of the
// stream answered 33 admitted requests, their latency rising to 3.8 s). Now the service's pace sizes
// the recommendation, and says why. A service that keeps up changes nothing.

import { describe, expect, it } from 'vitest';
import { recommend } from '../../src/ratelimit/recommend.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { closingSustainedText, rateLimitFacts } from '../../src/report/sections/rate-limit/words.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

const BUCKET = { kind: 'bucket', rate_rps: 50, burst: 50 } as const;

describe('a bucket of 50/s in front of a slower service', () => {
  it.each([30, 24.3])('one answer every %s ms: recommended below what the service answers', async (everyMs) => {
    const e = await discoverVirtual(
      { limiter: () => fromModel(BUCKET), status: 429, servedBehind: { everyMs } },
      { maxDurationS: 60 },
    );
    const context = e.notes.join('\n');
    const serves = 1000 / everyMs;
    expect(Math.abs(e.sustained_rps! / 50 - 1), context).toBeLessThanOrEqual(0.02);
    expect(Math.abs(e.served_rps! / serves - 1), context).toBeLessThanOrEqual(0.02);
    // The wait was the service's line, not a queue's (24.3 ms read "queue 49.98 req/s, at most 980 ms").
    expect(e.limiter, context).toMatchObject({ kind: 'bucket', burst: 50 });
    expect(context).toMatch(/the service answered what its limit admitted at [\d.]+ req\/s, below the limit's/);
    const policy = recommend(e)!;
    expect(policy.target_rps).toBeLessThanOrEqual(0.8 * serves);
    expect(policy.why[0]).toMatch(/req\/s the service answered at, below the [\d.]+ req\/s its limit admits/);
    // The report carries it, and the terminal says it beside the limiter.
    const result = toRateLimitResult(e, policy, null);
    expect(result.served_rps).toBe(e.served_rps);
    expect(summaryLines(result).join('\n')).toMatch(
      new RegExp(`^  served: the service answered what the limit admitted at ${e.served_rps} req/s`, 'm'),
    );
    // The run's closing line says it beside the limit's rate.
    expect(closingSustainedText(result)).toMatch(
      new RegExp(`req/s sustained.*; the service answered at only ${e.served_rps} req/s$`),
    );
    // And report.md and report.html, in their table of facts.
    expect(rateLimitFacts(result).find(([name]) => name === 'Served rate')?.[1]).toMatch(
      /no faster, so the recommendation/,
    );
  });

  it('one answer every 5 ms (200 a second): the service keeps up, the bucket sizes the client', async () => {
    const e = await discoverVirtual(
      { limiter: () => fromModel(BUCKET), status: 429, servedBehind: { everyMs: 5 } },
      { maxDurationS: 60 },
    );
    expect(e.served_rps).toBeUndefined();
    expect(recommend(e)!.target_rps).toBeGreaterThanOrEqual(39);
  });
});
