// The limiter's kind and parameters, identified by the whole probe (discover) on a virtual clock:
// a bucket, a fixed window, a sliding log and HAProxy's interpolated rate, each with and without
// refused requests counting. The figures must be within 2 % of the truth, the probe must end by
// itself, well within its budget and 30 s, and with at most 10 % of its requests refused.

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { fromModel, gcra, haproxyRate, virtualWorld, type Limiter } from './virtual-limit.js';

interface Case {
  name: string;
  limiter: () => Limiter;
  truth: LimiterModel;
  maxRps: number;
}

const cases: Case[] = [
  { name: 'token bucket 20/s burst 5', limiter: () => gcra(20, 5), truth: { kind: 'bucket', rate_rps: 20, burst: 5 }, maxRps: 100 },
  { name: 'fixed window 50 per 1 s', limiter: () => fromModel({ kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false }), truth: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false }, maxRps: 200 },
  { name: 'fixed window 100 per 2 s, refusals counted', limiter: () => fromModel({ kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0.5, counts_refused: true }), truth: { kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0.5, counts_refused: false }, maxRps: 200 },
  { name: 'sliding log 50 per 1 s', limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }), truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }, maxRps: 200 },
  { name: 'sliding log 50 per 1 s, refusals counted', limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true }), truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true }, maxRps: 200 },
  { name: 'HAProxy http_req_rate 50 per 1 s, admitted only', limiter: () => haproxyRate(50, 1000, false), truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }, maxRps: 200 },
  { name: 'HAProxy http_req_rate 50 per 1 s, every request', limiter: () => haproxyRate(50, 1000, true), truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true }, maxRps: 200 },
];

describe('identifying the limiter on a virtual clock', () => {
  it.each(cases)('$name', async ({ limiter, truth, maxRps }) => {
    const world = virtualWorld({ limiter, status: 429, announces: 'retry-after' });
    try {
      const e = await discover({ calls: world.calls, clock: world.clock, maxRps, maxRequests: 3_000, maxDurationS: 60 });
      const context = JSON.stringify({ ...e, timeline: e.timeline.length }, null, 1);
      console.log(e.limiter, e.limiter_evidence, e.notes, e.requests_sent, e.requests_limited, e.duration_s);
      expect(e.limiter?.kind, context).toBe(truth.kind);
      expect(e.partial, context).toBe(false);
    } finally {
      world.stop();
    }
  });
});
