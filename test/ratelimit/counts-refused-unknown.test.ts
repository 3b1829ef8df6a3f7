// Whether refused requests count is unknown (null) when the probe could not test it, never "they do
// not" (false): the identified model, the words a person reads, the report, and the fleet simulator,
// which then assumes the worse case and says so.

import { describe, expect, it } from 'vitest';
import { describeSimulated, limiterOf } from '../../src/ratelimit/fleet/limiter-of.js';
import { sizeFleet } from '../../src/ratelimit/fleet/size.js';
import { describeLimiter, type SlidingWindowModel } from '../../src/ratelimit/limiters/index.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { buildReport } from '../../src/report/build.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { discoverVirtual, haproxyRate } from './virtual-limit.js';

const untested: SlidingWindowModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: null };

describe('counts_refused unknown', () => {
  it('reads as unknown, not as "does not count"', () => {
    expect(describeLimiter(untested)).toBe('sliding window 50 per 1 s, refused requests may count (not tested)');
    expect(describeLimiter({ ...untested, counts_refused: false })).toBe('sliding window 50 per 1 s');
  });

  it('the fleet simulator assumes refused requests count, and its words say it assumed so', () => {
    const estimate = { sustained_rps: 50, burst: 50, limiter: untested };
    expect(limiterOf(estimate)).toEqual({ ...untested, counts_refused: true });
    expect(describeSimulated(estimate, limiterOf(estimate)!)).toBe(
      'sliding window 50 per 1 s, refused requests count (assumed, the worse case: the probe could not test it)',
    );
    const tested = { ...estimate, limiter: { ...untested, counts_refused: false } };
    expect(describeSimulated(tested, limiterOf(tested)!)).toBe('sliding window 50 per 1 s');
    const fleet = sizeFleet({
      estimate: { ...estimate, scope: 'per-client', retry_after_header: 'absent', latency_p95_ms: 4 },
      recommendation: { target_rps: 40, backoff: { base_ms: 40, cap_ms: 1_000, jitter: 'full', max_retries: 6 } },
      instances: 4,
    })!;
    expect(fleet.limiter).toMatch(/refused requests count \(assumed/);
  });

  // HAProxy counting admitted requests only, behind a gateway that answers refusals 200 ms late.
  // The counts-refused trial used to send its mid-period requests one after another's answer, so
  // they went out late every time and the trial proved nothing; each now goes at its own time.
  it('is tested behind a gateway that answers refusals 200 ms late', async () => {
    const e = await discoverVirtual({
      limiter: () => haproxyRate(50, 1000, false),
      status: 429,
      announces: 'retry-after',
      refusalLatencyMs: 200,
    });
    const context = JSON.stringify({ ...e, timeline: e.timeline.length }, null, 1);
    expect(e.limiter, context).toMatchObject({ kind: 'sliding-window', limit: 50, counts_refused: false });
  });

  it('stays null through to report.json and report.md', async () => {
    const measured = await discoverVirtual({
      limiter: () => haproxyRate(50, 1000, false),
      status: 429,
      announces: 'retry-after',
    });
    // What a trial disturbed three times leaves (sliding-period.ts): the model with counts_refused null.
    const e = {
      ...measured,
      limiter: untested,
      notes: measured.notes.map((n) => (n.startsWith('identified: ') ? `identified: ${describeLimiter(untested)}` : n)),
    };
    const result = toRateLimitResult(e, null, null);
    expect(summaryLines(result).join('\n')).toContain('refused requests may count (not tested)');
    const report = buildReport({
      version: 'test',
      target: { environment: 'sandbox', base_url: 'https://127.0.0.1:1' },
      startedAt: new Date(0),
      finishedAt: new Date(1_000),
      checks: [],
      rateLimit: result,
    });
    expect(JSON.parse(renderJson(report)).rate_limit.limiter.counts_refused).toBeNull();
    expect(renderMarkdown(report)).toContain('refused requests may count (not tested)');
  });
});
