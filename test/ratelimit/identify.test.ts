// The pure rules of identification (src/ratelimit/identify.ts), on hand-made figures: which shape a
// recovery says, and the window lengths a set of edge brackets allows. No server, no clock.

import { describe, expect, it } from 'vitest';
import {
  clumpTiming,
  edgeTrialPlan,
  edgeTrialVerdict,
  midpoint,
  nextEdge,
  openedReading,
  openedWindowLength,
  shapeOf,
  smoothClumpMax,
  windowLength,
} from '../../src/ratelimit/identify.js';

describe('shapeOf', () => {
  const base = { drained: 50, lateMs: 100, beforeMs: 900 };

  it('a limit that comes back whole is a window that resets', () => {
    expect(shapeOf({ ...base, recoveryMs: 700, clump: 50, trickleMs: null }).shape).toBe('resetting-window');
  });

  it('a big clump a smooth window could have freed in the ping’s lateness is no reset', () => {
    // 1.5 × 50 × 400 / 900 ≈ 33: a clump of 30 is what HAProxy frees 400 ms into its next period.
    expect(smoothClumpMax({ drained: 50, lateMs: 400, beforeMs: 900 })).toBeCloseTo(33.3, 1);
    expect(shapeOf({ drained: 50, lateMs: 400, beforeMs: 900, recoveryMs: 1100, clump: 30, trickleMs: 25 }).shape).toBe(
      'smooth-window',
    );
  });

  it('kept out for most of a period, then one every period / limit: a smooth sliding window', () => {
    const { shape, evidence } = shapeOf({ ...base, recoveryMs: 750, clump: 1, trickleMs: 25 });
    expect(shape).toBe('smooth-window');
    expect(evidence).toMatch(/nothing passed for 750 ms, then one request every 25 ms/);
  });

  it('a first recovery about as long as the next ones: a bucket', () => {
    expect(shapeOf({ ...base, recoveryMs: 60, clump: 2, trickleMs: 45 }).shape).toBe('bucket');
    // Three and a half intervals is the line between them.
    expect(shapeOf({ ...base, recoveryMs: 3.4 * 40, clump: 1, trickleMs: 40 }).shape).toBe('bucket');
    expect(shapeOf({ ...base, recoveryMs: 3.6 * 40, clump: 1, trickleMs: 40 }).shape).toBe('smooth-window');
  });

  it('a long recovery the probe itself was late for is a bucket: the ping a stall held back finds it refilled', () => {
    // The emulator's bucket 50/s on a busy machine: the first ping, due 10 ms after the refusal, went
    // out 284 ms after it and passed (CI land94; test/ratelimit/stalled-bucket-virtual.test.ts).
    const stalled = { ...base, recoveryMs: 284, clump: 1, trickleMs: 51 };
    expect(shapeOf(stalled).shape).toBe('smooth-window');
    expect(shapeOf({ ...stalled, overdueMs: 274 }).shape).toBe('bucket');
    // Kept out 3.5 intervals past what the ping was late: a smooth window's wait still.
    expect(shapeOf({ ...stalled, overdueMs: 284 - 3.5 * 51 }).shape).toBe('smooth-window');
  });

  it("counts the recovery from as late as the drain's refusal was answered, and says so", () => {
    // The emulator's bucket of 50/s stalled alone 1.1 s in a busy test process: the refusal, sent
    // early in the stall, was decided (and answered) at its end (CI 55a; stalled-bucket-virtual).
    const stalled = { ...base, recoveryMs: 1160, clump: 1, trickleMs: 23 };
    expect(shapeOf(stalled).shape).toBe('smooth-window');
    const late = shapeOf({ ...stalled, refusalLateMs: 1120 });
    expect(late).toEqual({
      shape: 'bucket',
      evidence:
        "after the first refusal a request passed again within 1.16 s (1.12 s of it the refusal's answer or the next request late), then one every 23 ms: a bucket refilling at a steady rate",
    });
    // Both ends late add up; kept out 3.5 intervals past both, a smooth window's wait still.
    expect(shapeOf({ ...stalled, refusalLateMs: 600, overdueMs: 500 }).shape).toBe('bucket');
    expect(shapeOf({ ...stalled, refusalLateMs: 600, overdueMs: 1160 - 600 - 3.5 * 23 }).shape).toBe('smooth-window');
  });

  it('a tiny limit (under four) is read as a bucket: the two cannot be told apart, and size alike', () => {
    expect(shapeOf({ ...base, drained: 3, recoveryMs: 900, clump: 1, trickleMs: 100 }).shape).toBe('bucket');
  });
});

describe('fixed-window edges on a lattice', () => {
  it('narrows the window length from every pair of edge brackets', () => {
    // True edges at 1000, 2000, 3000 ms, each known to ±50 ms or so.
    const edges = [
      { lo: 950, hi: 1010 },
      { lo: 1990, hi: 2060 },
      { lo: 2980, hi: 3005 },
    ];
    const length = windowLength(edges);
    expect(length.lo).toBeCloseTo(985, 0);
    expect(length.hi).toBeCloseTo(1015, 1);
    expect(length.lo).toBeLessThanOrEqual(1000);
    expect(length.hi).toBeGreaterThanOrEqual(1000);
    // The next edge, from every bracket moved on by the lengths allowed.
    const next = nextEdge(edges, length);
    expect(next.lo).toBeLessThanOrEqual(4000);
    expect(next.hi).toBeGreaterThanOrEqual(4000);
    expect(next.hi - next.lo).toBeLessThan(80);
  });

  it('is empty when no lattice fits (edges that move with the client)', () => {
    const length = windowLength([
      { lo: 990, hi: 1000 },
      { lo: 2090, hi: 2100 },
      { lo: 3000, hi: 3010 },
    ]);
    expect(length.lo).toBeGreaterThan(length.hi);
  });

  it('midpoint: the estimate and its relative half-width', () => {
    expect(midpoint({ lo: 990, hi: 1010 })).toEqual({ value: 1000, precision: 0.01 });
  });
});

describe('fixed windows that open at the first request (rate-limiter-flexible)', () => {
  it('each window lasted beyond the request still inside it and at most until the one that opened the next', () => {
    // Windows of 1 000 ms opened at 0, 1 130 and 2 135 (the probe's requests found each edge late).
    const length = openedWindowLength([
      { startMs: 0, openMs: 980, closedMs: 1_130 },
      { startMs: 1_130, openMs: 2_120, closedMs: 2_135 },
      { startMs: 2_135, openMs: 2_400, closedMs: 3_140 },
    ]);
    expect(length).toEqual({ lo: 990, hi: 1_005 });
    // The same edges read on a lattice do not fit one: the edges moved with the client.
    expect(
      windowLength([
        { lo: 900, hi: 1_130 },
        { lo: 2_120, hi: 2_135 },
        { lo: 3_100, hi: 3_140 },
      ]).lo,
    ).toBeLessThanOrEqual(1_005);
  });

  it('is empty when the windows disagree (not opened by the first request)', () => {
    const length = openedWindowLength([
      { startMs: 0, openMs: 990, closedMs: 1_000 },
      { startMs: 1_000, openMs: 1_900, closedMs: 1_950 },
    ]);
    expect(length.lo).toBeGreaterThan(length.hi);
  });
});

describe('opened windows with one misread (its opening request reached the limit late)', () => {
  // True length 1 000 ms; the second window opened 80 ms after its request was sent, so a request
  // refused 1 050 ms after it reads "longer than 1 050".
  const good = [
    { startMs: 0, openMs: 990, closedMs: 1_010 },
    { startMs: 3_000, openMs: 3_985, closedMs: 4_004 },
    { startMs: 5_000, openMs: 5_700, closedMs: 6_002 },
  ];
  const misread = { startMs: 1_010, openMs: 2_060, closedMs: 2_100 };

  it('all agree: all of them', () => {
    expect(openedReading(good)).toEqual({ length: { lo: 990, hi: 1_002 }, agreeing: good });
  });

  it('one alone disagrees: left out', () => {
    const reading = openedReading([good[0]!, misread, ...good.slice(1)]);
    expect(reading.agreeing).toEqual(good);
    expect(reading.length).toEqual({ lo: 990, hi: 1_002 });
  });

  it('which one was misread is not known yet: every length either allows, and no agreeing set', () => {
    const reading = openedReading([
      { startMs: 0, openMs: 700, closedMs: 1_010 },
      misread,
      { startMs: 3_000, openMs: 3_500, closedMs: 5_000 },
    ]);
    expect(reading.agreeing).toBeNull();
    expect(reading.length.lo).toBeLessThanOrEqual(1_000);
    expect(reading.length.hi).toBeGreaterThanOrEqual(1_050);
  });

  it('two windows alone cannot say which is misread; wide disagreement leaves nothing', () => {
    expect(openedReading([good[0]!, misread])).toEqual({ length: { lo: 990, hi: 1_090 }, agreeing: null });
    const reading = openedReading([good[0]!, misread, { startMs: 7_000, openMs: 7_500, closedMs: 7_900 }]);
    expect(reading.agreeing).toBeNull();
    expect(reading.length.lo).toBeGreaterThan(reading.length.hi);
  });
});

describe('the edge trial', () => {
  const length = { lo: 990, hi: 1_010 };

  it('a clump after a window from the first request comes before a sliding log frees the burst, and the ping inside that window', () => {
    const plan = edgeTrialPlan({ length, burstSendMs: 245, notBeforeMs: 10_000 })!;
    expect(plan.firstMs).toBe(10_000);
    expect(plan.pingMs).toBeNull();
    // Past the longest window after the first request...
    expect(plan.clumpMs - plan.firstMs).toBeGreaterThan(length.hi);
    // ...and before the shortest period after the burst.
    expect(plan.clumpMs).toBeLessThan(plan.burstMs + length.lo);
  });

  it('with clock edges: the burst ends before one, the ping is past it, both inside a window opened by the first request', () => {
    const plan = edgeTrialPlan({
      length,
      burstSendMs: 245,
      notBeforeMs: 10_000,
      clock: { edgeMs: 300, windowMs: 1_000 },
    })!;
    expect(plan.firstMs).toBeGreaterThanOrEqual(10_000);
    const edge = Math.ceil((plan.burstMs + 1.25 * 245 - 300) / 1_000) * 1_000 + 300;
    expect(plan.burstMs + 1.25 * 245).toBeLessThan(edge);
    expect(plan.pingMs!).toBeGreaterThan(edge);
    expect(plan.pingMs!).toBeLessThan(plan.firstMs + length.lo);
  });

  it('plans the clump before a log as fast as the drain came back could free the burst', () => {
    // CI s37's rate-limiter-flexible 50 per 1 s: edges 1 s apart, a comeback of 0.941 s (a window
    // opened before the drain); the clump planned off the edges alone came 0.924 s after the burst.
    const edges = { lo: 990, hi: 1_010 };
    const plan = edgeTrialPlan({ length: edges, burstSendMs: 250, notBeforeMs: 0, comebackMs: 941 })!;
    expect(plan.clumpMs - plan.firstMs).toBeGreaterThan(edges.hi);
    expect(clumpTiming(plan.clumpMs - plan.burstMs + 0.05 * 1_000, plan.clumpMs - plan.burstMs, 941)).toBe('told');
    // Off the edges alone, as before: undecided however punctual.
    const before = edgeTrialPlan({ length: edges, burstSendMs: 250, notBeforeMs: 0 })!;
    expect(clumpTiming(before.clumpMs - before.burstMs, before.clumpMs - before.burstMs, 941)).toBe('undecided');
    // A comeback too quick to plan around (a window on the clock): the plan off the edges stands.
    expect(edgeTrialPlan({ length: edges, burstSendMs: 250, notBeforeMs: 0, comebackMs: 300 })).toEqual(before);
  });

  it('does not fit when the limit takes most of a window to send', () => {
    expect(edgeTrialPlan({ length, burstSendMs: 700, notBeforeMs: 0 })).toBeNull();
    expect(edgeTrialPlan({ length: { lo: 0, hi: Infinity }, burstSendMs: 10, notBeforeMs: 0 })).toBeNull();
  });

  it('reads the ping past the clock edge, then how much of the clump passed', () => {
    expect(edgeTrialVerdict(50, true, 0)).toBe('clock');
    expect(edgeTrialVerdict(50, false, 50)).toBe('first-request');
    expect(edgeTrialVerdict(50, null, 25)).toBe('first-request');
    // A sliding log frees the first request's slot, and a counted refusal's: one or two pass.
    expect(edgeTrialVerdict(50, false, 2)).toBe('sliding');
    expect(edgeTrialVerdict(50, null, 24)).toBe('sliding');
  });

  it('a clump let through whole tells an opened window only before a log could free the burst; its lateness alone sends the trial again', () => {
    // CI land38's rate-limiter-flexible 50 per 1 s: planned 0.925 s after the burst, sent 0.987 s after it, a comeback of 1.011 s.
    expect(clumpTiming(987, 925, 1_011)).toBe('late');
    expect(clumpTiming(925, 925, 1_011)).toBe('told');
    // Planned past what a log may have freed: no retry makes that trial tell, it stays untested.
    expect(clumpTiming(987, 970, 1_011)).toBe('undecided');
  });
});
