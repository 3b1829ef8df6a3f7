// HAProxy's usual recipe at small limits (30, 50, 70 per 10 s, every request tracked): the long
// window's edge pings hold it shut past its edge, and the phases that time it by its crossings were
// left "not identified" (quiet-ramp.ts, next-window-ramp.ts); paced k6 rounds then searched 407 s
// on the bench for 4.5 req/s against 5. Every request it saw was the probe's own, so the counters
// that answer the whole trace as the service did are found and split by pings (probe/counter-fit.ts).
// A claim is then within a percent or so; where the trace leaves the period loose, or a network's
// jitter leaves no counter explaining every answer, the probe stays "not identified", never wrong.

import { describe, expect, it } from 'vitest';
import { FIT_WORK, candidatesOf, traceFrom, workSpent } from '../../src/ratelimit/probe/counter-candidates.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Estimate, Sample } from '../../src/ratelimit/types.js';
import { discoverVirtual, fromModel, haproxyRate, openedEarlier, type VirtualEndpoint } from './virtual-limit.js';
import { pastStatedPrecision } from './support.js';

const NETWORK: Partial<VirtualEndpoint> = { network: { oneWayMs: 50, jitterMs: 10 } };

async function probed(limit: number, leadMs: number, world: Partial<VirtualEndpoint> = {}) {
  const estimate = await discoverVirtual({
    limiter: () => openedEarlier(haproxyRate(limit, 10_000, true), leadMs),
    status: 429,
    ...world,
  });
  const row = `${limit} per 10 s, ${leadMs} ms lead: ${JSON.stringify(estimate.limiter)}\n${estimate.notes.join('\n')}`;
  return { estimate, row, fitted: /replayed over every request/.test(estimate.limiter_evidence.join('\n')) };
}

/** The claim's error against `limit` per 10 s, relative; null when nothing was claimed. */
function claimError(e: Estimate, limit: number): number | null {
  if (e.limiter === null) return null;
  return e.sustained_rps! / (limit / 10) - 1;
}

describe("HAProxy's usual recipe at small limits, fit over the whole trace", () => {
  const CASES = [30, 50, 70].flatMap((limit) => [0, 500, 3000, 5000].map((leadMs) => ({ limit, leadMs })));

  it('on loopback, its period opened 0–5 s before the drain: each claim a counter of the limit within 1.5 % and never 0.5 % fast, most of them claimed', async () => {
    let claimed = 0;
    for (const { limit, leadMs } of CASES) {
      const { estimate, row, fitted } = await probed(limit, leadMs);
      const error = claimError(estimate, limit);
      if (error === null) continue;
      claimed += fitted ? 1 : 0;
      expect(estimate.limiter, row).toMatchObject({ kind: 'sliding-counter', limit, counts_refused: true });
      expect(error, row).toBeGreaterThanOrEqual(-0.015);
      expect(error, row).toBeLessThanOrEqual(0.005);
      // The truth within what the report states.
      const truth = { kind: 'sliding-counter', limit, window_s: 10, phase_s: 0, counts_refused: true } as const;
      expect(pastStatedPrecision(estimate, truth), row).toBeUndefined();
    }
    // 9 of the 12 on the day it was written; before, none.
    expect(claimed).toBeGreaterThanOrEqual(8);
  });

  // Each request reached the limiter somewhere in its 100 ms round trip: too loose a timing to fit
  // by (a wrong counter explained a busy machine's trace, counter-fit.ts FIT_TRIP_MS).
  it('across 50 ± 10 ms each way: the fit reads no trace that wide', async () => {
    for (const { limit, leadMs } of CASES.filter((c) => c.leadMs <= 500)) {
      const { row, fitted } = await probed(limit, leadMs, NETWORK);
      expect(fitted, row).toBe(false);
    }
  });

  it('says how it was sized: the counters the trace left, the pings and the clump that confirmed them', async () => {
    const { estimate, row } = await probed(50, 0);
    expect(estimate.limiter, row).toMatchObject({ kind: 'sliding-counter', limit: 50, counts_refused: true });
    expect(estimate.limiter_evidence.join('\n'), row).toMatch(
      /replayed over every request the probe sent, each one counted, counters of 50 per [\d.]+–[\d.]+ s answered each as the service did, \d+ pings sent where they disagreed and a last clump, which each predicted, left [\d.]+–[\d.]+ s \(±[\d.]+ %\)/,
    );
  });
});

// The real test's own lead (haproxy.test.ts: HAProxy's period opened by the probe's set-up requests,
// within a second of its drain), at every 50 ms, on time and with every timer up to 5 ms late. CI
// ci-60C read it "not identified" after 20.4 s: "too little of its window was left to time it
// quietly, and its next window, or the budget, was too short" (next-window-ramp.ts). Its edge and
// window known only to about 2 s, the probe was already past where the next edge may come, and it
// times only across that one. Those phases stay "not identified" (the stage's paced rounds size
// them); every claim within what it states, and counted so that a change that loses claims shows.
describe('50 per 10 s, every request tracked, its period opened 0–1 s before the drain', () => {
  it.each([
    { timers: 'on time', lateMs: 0, claimed: 20 },
    { timers: 'up to 5 ms late', lateMs: 5, claimed: 19 },
  ])(
    'timers $timers: claimed at $claimed of 21 leads, the rest not identified with why',
    async ({ lateMs, claimed }) => {
      const truth = { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: 0, counts_refused: true } as const;
      let claims = 0;
      for (let leadMs = 0; leadMs <= 1000; leadMs += 50) {
        const { estimate, row } = await probed(50, leadMs, lateMs > 0 ? { busy: { lateMs, seed: leadMs } } : {});
        if (estimate.limiter === null) {
          expect(estimate.notes.join('\n'), row).toMatch(/^not identified: /m);
          continue;
        }
        claims++;
        expect(estimate.limiter, row).toMatchObject({ kind: 'sliding-counter', limit: 50, counts_refused: true });
        expect(pastStatedPrecision(estimate, truth), row).toBeUndefined();
      }
      expect(claims).toBe(claimed);
    },
  );
});

/** The drain as the probe reads it: the virtual world's two set-up requests counted with it. */
function drainOf(samples: readonly Sample[]) {
  const drain = samples.filter((s) => s.phase === 'drain');
  const admitted = drain.filter((s) => s.answer === 'accepted').length;
  return { setUp: 2, drainFirstMs: drain[0]!.sentMs, limit: admitted + 2, work: { replayed: 0 } };
}

describe('no counter counting every request explains the trace of another kind', () => {
  // The same long shut and partial comebacks, from limiters that are not HAProxy's recipe.
  const OTHERS: [string, LimiterModel][] = [
    [
      'a sliding log counting refused requests',
      { kind: 'sliding-window', limit: 50, period_s: 10, counts_refused: true },
    ],
    [
      "HAProxy's counter of admitted requests only",
      { kind: 'sliding-window', limit: 50, period_s: 10, counts_refused: false, counter: 'interpolated' },
    ],
    ['a bucket of 5 per second, burst 50', { kind: 'bucket', rate_rps: 5, burst: 50 }],
  ];

  it.each(OTHERS)('%s', async (_, model) => {
    const samples: Sample[] = [];
    const e = await discoverVirtual({ limiter: () => fromModel(model), status: 429 }, { record: samples });
    expect(e.limiter_evidence.join('\n')).not.toMatch(/replayed over every request/);
    const found = candidatesOf(traceFrom(samples, drainOf(samples).drainFirstMs), drainOf(samples), 60_000);
    expect(found.map((c) => ({ windowMs: Math.round(c.windowMs), startMs: Math.round(c.startMs) }))).toEqual([]);
  });

  // A counter on the clock counting every request (httprate's arithmetic, its periods on the clock,
  // not opened by the first request) weighs the last window as HAProxy's does: the same counter,
  // its start a few seconds before the drain, and the check above finds it.
  it('while a counter on the clock counting every request leaves the counters around its own period', async () => {
    const samples: Sample[] = [];
    const model: LimiterModel = { kind: 'sliding-counter', limit: 50, window_s: 10, phase_s: 3, counts_refused: true };
    await discoverVirtual({ limiter: () => fromModel(model), status: 429 }, { record: samples });
    const found = candidatesOf(traceFrom(samples, drainOf(samples).drainFirstMs), drainOf(samples), 60_000);
    expect(found.length).toBeGreaterThan(0);
    for (const c of found) expect(Math.abs(c.windowMs / 10_000 - 1)).toBeLessThanOrEqual(0.03);
  });
});

describe('the fit is bounded in work', () => {
  // A second of CPU at most (FIT_WORK replayed requests): a scan cut short would bracket part of the
  // band only, so a fit past it sizes nothing rather than read a bracket off it.
  it('stops once FIT_WORK requests are replayed, and says so', async () => {
    const samples: Sample[] = [];
    await discoverVirtual({ limiter: () => haproxyRate(50, 10_000, true), status: 429 }, { record: samples });
    const start = { ...drainOf(samples), work: { replayed: FIT_WORK - 10_000 } };
    const found = candidatesOf(traceFrom(samples, start.drainFirstMs), start, 60_000);
    expect(workSpent(start)).toBe(true);
    expect(found).toEqual([]);
    expect(start.work.replayed).toBeLessThan(FIT_WORK + 1000);
  });
});
