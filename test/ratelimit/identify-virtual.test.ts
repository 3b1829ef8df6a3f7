// The limiter's kind and parameters, identified by the whole probe (discover) on a virtual clock:
// a bucket, a fixed window, a sliding log and HAProxy's interpolated rate, each with and without
// refused requests counting. The figures must be within 2 % of the truth, the probe must end by
// itself, well within its budget and 32 s, and with at most 10 % of its requests refused.

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import { burstSize, sustainedRate, type LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { relativeError } from './support.js';
import { fromModel, gcra, haproxyRate, openedEarlier, virtualWorld, type Limiter } from './virtual-limit.js';

interface Case {
  name: string;
  limiter: () => Limiter;
  truth: LimiterModel;
  maxRps: number;
}

const cases: Case[] = [
  {
    name: 'token bucket 20/s burst 5',
    limiter: () => gcra(20, 5),
    truth: { kind: 'bucket', rate_rps: 20, burst: 5 },
    maxRps: 100,
  },
  {
    name: 'fixed window 50 per 1 s',
    limiter: () => fromModel({ kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false }),
    truth: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false },
    maxRps: 200,
  },
  {
    name: 'fixed window 100 per 2 s, refusals counted',
    limiter: () => fromModel({ kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0.5, counts_refused: true }),
    truth: { kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0.5, counts_refused: false },
    maxRps: 200,
  },
  // rate-limiter-flexible: each window opens at the first request after the last one ended.
  {
    name: 'fixed window 50 per 1 s, opened by the first request',
    limiter: () =>
      fromModel({
        kind: 'fixed-window',
        limit: 50,
        window_s: 1,
        phase_s: 0,
        counts_refused: true,
        edges: 'first-request',
      }),
    truth: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false, edges: 'first-request' },
    maxRps: 200,
  },
  {
    name: 'fixed window 100 per 2 s, opened by the first request',
    limiter: () =>
      fromModel({
        kind: 'fixed-window',
        limit: 100,
        window_s: 2,
        phase_s: 0,
        counts_refused: true,
        edges: 'first-request',
      }),
    truth: { kind: 'fixed-window', limit: 100, window_s: 2, phase_s: 0, counts_refused: false, edges: 'first-request' },
    maxRps: 200,
  },
  // One window's opening request reached the limiter late (a busy machine): that window reads long
  // and disagrees with the others (60 ms, the 8th window), or its reading misleads the pings of the
  // windows after it into agreeing with it (150 ms, the 5th). Neither may stop the probe.
  {
    name: 'fixed window 50 per 1 s, opened by the first request, the 8th 60 ms late',
    limiter: () => openedWithOneLate(50, 1000, 8, 60),
    truth: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false, edges: 'first-request' },
    maxRps: 200,
  },
  {
    name: 'fixed window 50 per 1 s, opened by the first request, the 5th 150 ms late',
    limiter: () => openedWithOneLate(50, 1000, 5, 150),
    truth: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false, edges: 'first-request' },
    maxRps: 200,
  },
  {
    name: 'sliding log 50 per 1 s',
    limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
    maxRps: 200,
  },
  {
    name: 'sliding log 50 per 1 s, refusals counted',
    limiter: () => fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true }),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true },
    maxRps: 200,
  },
  {
    name: 'HAProxy http_req_rate 50 per 1 s, admitted only',
    limiter: () => haproxyRate(50, 1000, false),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
    maxRps: 200,
  },
  {
    name: 'HAProxy http_req_rate 50 per 1 s, every request',
    limiter: () => haproxyRate(50, 1000, true),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: true },
    maxRps: 200,
  },
  // Set-up requests 0.85 s before the drain (a busy machine): the period turns over mid-drain and
  // the first recovery looks like a bucket's; the second drain, from idle, must tell.
  // Set-up requests 0.3 s before the drain: the limit comes back 0.7 s after the drain began, a
  // period's upper end 30 % short that the trials must not trust until one of them confirms it.
  {
    name: 'HAProxy 50 per 1 s, its period opened 0.3 s before the drain',
    limiter: () => openedEarlier(haproxyRate(50, 1000, false), 300),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
    maxRps: 200,
  },
  {
    name: 'HAProxy 50 per 1 s, its period opened 0.85 s before the drain',
    limiter: () => openedEarlier(haproxyRate(50, 1000, false), 850),
    truth: { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false },
    maxRps: 200,
  },
];

/**
 * `limit` per `windowMs`, each window opened by the first request after the last one ended (as
 * rate-limiter-flexible opens them); the `lateWindow`-th (the set-up requests open the first) opens
 * `lateMs` after its request was sent, as when that request reached the limiter late.
 */
function openedWithOneLate(limit: number, windowMs: number, lateWindow: number, lateMs: number): Limiter {
  let endMs = Number.NEGATIVE_INFINITY;
  let count = 0;
  let opened = 0;
  return (now) => {
    if (now >= endMs) {
      opened += 1;
      endMs = now + windowMs + (opened === lateWindow ? lateMs : 0);
      count = 0;
    }
    if (count < limit) {
      count += 1;
      return undefined;
    }
    return endMs - now;
  };
}

describe('identifying the limiter on a virtual clock', () => {
  it.each(cases)('$name', async ({ limiter, truth, maxRps }) => {
    const world = virtualWorld({ limiter, status: 429, announces: 'retry-after' });
    try {
      const e = await discover({
        calls: world.calls,
        clock: world.clock,
        maxRps,
        maxRequests: 3_000,
        maxDurationS: 60,
      });
      const context = JSON.stringify({ ...e, timeline: e.timeline.length }, null, 1);
      expect(e.limiter?.kind, context).toBe(truth.kind);
      expect(relativeError(e.sustained_rps, sustainedRate(truth)), context).toBeLessThanOrEqual(0.02);
      expect(e.burst, context).toBe(burstSize(truth));
      if ('counts_refused' in truth && e.limiter && 'counts_refused' in e.limiter && e.limiter.kind === truth.kind)
        expect(e.limiter.counts_refused, context).toBe(truth.counts_refused);
      if (truth.kind === 'fixed-window' && e.limiter?.kind === 'fixed-window') {
        expect(Math.abs(e.limiter.window_s - truth.window_s) / truth.window_s, context).toBeLessThanOrEqual(0.02);
        expect(e.limiter.edges ?? 'clock', context).toBe(truth.edges ?? 'clock');
      }
      if (truth.kind === 'fixed-window' && truth.edges !== 'first-request' && e.limiter?.kind === 'fixed-window') {
        // Where the edges fall, on the emulator's clock (Unix ms): within 2 % of a window.
        const off = Math.abs(e.limiter.phase_s - truth.phase_s) % truth.window_s;
        expect(Math.min(off, truth.window_s - off), context).toBeLessThanOrEqual(0.02 * truth.window_s);
      }
      // Ends by itself, polite, the evidence said.
      expect(e.partial, context).toBe(false);
      // Windows: at most 10 % refused. A bucket is still sized by the stream that keeps it
      // saturated (pilot at max_rps, then 1.25 × the rate): about a third of its requests are refused.
      expect(e.requests_limited / e.requests_sent, context).toBeLessThanOrEqual(truth.kind === 'bucket' ? 0.35 : 0.1);
      // Virtual time: the same every run, so the 30 s goal holds exactly.
      // 30 s and the phase check a log the trials sized gets (probe/log-phase.ts): three clumps from
      // idle, about three and a half periods each (a sliding log counting refusals: 37.2 s; 30.5 s
      // before the second clump, which a counter whose edge fell a period after the first passed;
      // 34 s before the third, which a counter whose window is half the second's shift passed; 38.4 s
      // since the edge walk pins its lattice with a refused fill's edge moved back, window-edges.ts
      // reboundEdges: that log refuses one fill, and one window more is walked).
      expect(e.duration_s, context).toBeLessThan(39);
      expect(e.limiter_evidence.length, context).toBeGreaterThan(0);
      console.log(
        `${truth.kind} ${e.limiter ? JSON.stringify(e.limiter) : ''}: ${e.sustained_rps} req/s, ${e.requests_sent} sent, ${e.requests_limited} refused, ${e.duration_s} s`,
      );
    } finally {
      world.stop();
    }
  });
});
