// The sliding-window period trials' arithmetic, on numbers: where the next single request goes,
// what its answer does to the bracket, how long the next trial waits for, and the bound on the
// period the first trial waits for (period-bracket.ts, sliding-period.ts: idleSince, period-longest.ts).

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import { midpoint } from '../../src/ratelimit/identify.js';
import {
  initialBracket,
  nextPingAfter,
  pinned,
  withAnswer,
  PERIOD_GOAL,
  PERIOD_PRECISION,
  type PeriodBracket,
} from '../../src/ratelimit/probe/period-bracket.js';
import { longestSmoothPeriod } from '../../src/ratelimit/probe/period-longest.js';
import { idleSince } from '../../src/ratelimit/probe/sliding-period.js';
import { gapNoiseMs, seenGapNoiseMs, usualTrip } from '../../src/ratelimit/probe/arrival.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { phaseRuns } from './phase-runs.js';
import { fromModel, haproxyRate, virtualWorld, type Limiter } from './virtual-limit.js';

const seen = (lo: number, hi: number): PeriodBracket => ({ lo, hi, loSeen: true, hiSeen: true });
/** An answered request sent at `sentMs` whose round trip took `rttMs`. */
const trip = (sentMs: number, rttMs: number): Sample => ({
  sentMs,
  doneMs: sentMs + rttMs,
  status: 200,
  answer: 'accepted',
  phase: 'period',
  client: 'primary',
});

describe('the period bracket', () => {
  it('bisects, and is pinned once both ends were seen within ±1.5 %', () => {
    expect(nextPingAfter(seen(900, 1100))).toBe(1000);
    expect(pinned(seen(990, 1010))).toBe(true);
    expect(pinned(seen(960, 1040))).toBe(false);
    // An unseen end is never pinned, however narrow.
    expect(pinned({ ...seen(990, 1010), loSeen: false })).toBe(false);
  });

  it.each([
    { name: 'on loopback (no noise): ±1.5 % pins it', b: seen(985, 1015), noiseMs: 0, want: true },
    {
      name: '±12 ms of network noise: ±1.5 % does not (1.5 % + 1.2 % > 2 %)',
      b: seen(985, 1015),
      noiseMs: 12,
      want: false,
    },
    { name: '±12 ms of network noise: ±0.7 % does (0.7 % + 1.2 % ≤ 2 %)', b: seen(993, 1007), noiseMs: 12, want: true },
    { name: 'noise past the goal: nothing pins it', b: seen(999, 1001), noiseMs: 25, want: false },
  ])('net of the network noise: $name', ({ b, noiseMs, want }) => {
    expect(pinned(b, noiseMs)).toBe(want);
    if (want) expect(midpoint(b).precision + noiseMs / midpoint(b).value).toBeLessThanOrEqual(PERIOD_GOAL);
  });

  it('the noise on a gap between two sends: √2 times the round trips’ standard deviation, none when they are alike', () => {
    expect(gapNoiseMs([trip(0, 3), trip(5, 3), trip(10, 3)])).toBe(0);
    expect(gapNoiseMs([trip(0, 100)])).toBe(0);
    // Round trips 90 and 110 ms: standard deviation 14.1 ms (n − 1), √2 times it 20 ms.
    expect(gapNoiseMs([trip(0, 90), trip(5, 110)])).toBeCloseTo(20, 6);
    // A transport error has no round trip.
    expect(gapNoiseMs([trip(0, 90), trip(5, 110), { ...trip(10, 5000), answer: 'error' }])).toBeCloseTo(20, 6);
  });

  it('mid-round-trip: the noise from the round trips’ median deviation, blind to a busy machine’s tail', () => {
    // Round trips 90–110 ms (median 100, median deviation 5: 7.4 ms), and one answer handled 200 ms late.
    const run = [90, 95, 100, 100, 105, 110].map((rtt, i) => trip(10 * i, rtt));
    const late = trip(100, 300);
    expect(seenGapNoiseMs(run)).toBeCloseTo(7.413, 3);
    expect(seenGapNoiseMs([...run, late])).toBeCloseTo(7.413, 3);
    // The standard deviation, made of the tail, would say ± 108 ms (past any 1 s period's goal).
    expect(gapNoiseMs([...run, late])).toBeGreaterThan(100);
    expect(seenGapNoiseMs([trip(0, 100)])).toBe(0);
    expect(usualTrip([...run, late], run[5]!)).toBe(true);
    expect(usualTrip([...run, late], late)).toBe(false);
  });

  it("starts a tenth below the drain's lower end, which refused pings that counted may have pushed past the period", () => {
    expect(initialBracket(1000, 1380, false)).toEqual({ lo: 900, hi: 1380, loSeen: false, hiSeen: false });
  });

  it('once a request below an unseen upper end was refused, asks at that end; refused there, looks a quarter up', () => {
    const b = withAnswer(initialBracket(560, 734, false), 650, false);
    expect(b).toMatchObject({ lo: 650, loSeen: true, hiSeen: false });
    const x = nextPingAfter(b);
    expect(x).toBeGreaterThanOrEqual(734);
    expect(x).toBeLessThan(734 * 1.01);
    expect(withAnswer(b, x, false)).toEqual({ lo: x, hi: x / 0.8, loSeen: true, hiSeen: false });
    expect(withAnswer(b, x, true)).toEqual({ lo: 650, hi: x, loSeen: true, hiSeen: true });
  });

  it('narrowed to an unseen lower end, asks just below it, where a refusal pins the period', () => {
    const b: PeriodBracket = { lo: 1000, hi: 1016, loSeen: false, hiSeen: true };
    const x = nextPingAfter(b);
    expect(x).toBeLessThan(1000);
    const refused = withAnswer(b, x, false);
    expect(pinned(refused)).toBe(true);
    expect(midpoint(refused).precision).toBeLessThanOrEqual(PERIOD_PRECISION);
    // Let through below it: that end was wrong, look a third lower.
    expect(withAnswer(b, x, true)).toEqual({ lo: 0.75 * x, hi: x, loSeen: false, hiSeen: true });
  });

  it('a refusal past an upper end seen before unseats it (that trial was not from idle)', () => {
    expect(withAnswer(seen(900, 1000), 1050, false)).toEqual({ lo: 1050, hi: 1050 / 0.8, loSeen: true, hiSeen: false });
  });
});

describe('the wait before the next trial', () => {
  const trial = { firstDoneMs: 10_004, lastDoneMs: 10_260 };
  it('two periods from the clump when its single request was refused after the clump was answered', () => {
    expect(idleSince(trial, { answer: 'limited', sentMs: 10_950 })).toBe(10_004);
    // With slack for a period read short on a busy machine, never later than the request itself.
    expect(idleSince(trial, { answer: 'limited', sentMs: 10_950 }, 200)).toBe(10_204);
    expect(idleSince(trial, { answer: 'limited', sentMs: 10_950 }, 2_000)).toBe(10_950);
  });
  it('from the single request when it was let through (it may have opened the next period), or the clump was still answering', () => {
    expect(idleSince(trial, { answer: 'accepted', sentMs: 11_020 })).toBe(11_020);
    expect(idleSince({ ...trial, lastDoneMs: 11_000 }, { answer: 'limited', sentMs: 10_950 })).toBe(10_950);
  });
});

/**
 * What the probe sees of HAProxy's http_req_rate from idle: a drain at 200 req/s until the first
 * refusal, pings with gaps growing by half until one passes, a clump at 200 req/s until refused,
 * then three single requests each found by gaps doubling from 10 ms (as recover.ts sends them).
 * Answers take 3 ms.
 */
function recoveryOf(limit: number, periodMs: number, countsRefused: boolean) {
  const limiter = haproxyRate(limit, periodMs, countsRefused);
  const samples: Sample[] = [];
  const send = (t: number): Sample => {
    const s: Sample = {
      sentMs: t,
      doneMs: t + 3,
      status: 0,
      answer: limiter(t) === undefined ? 'accepted' : 'limited',
      phase: 'recover',
      client: 'primary',
    };
    samples.push(s);
    return s;
  };
  let t = 0;
  while (send(t).answer === 'accepted') t += 5;
  let lastRefused = samples[samples.length - 1]!;
  let gap = 10;
  let accepted: Sample | undefined;
  while (!accepted) {
    t += gap;
    gap *= 1.5;
    const s = send(t);
    if (s.answer === 'accepted') accepted = s;
    else lastRefused = s;
  }
  do t += 5;
  while (send(t).answer === 'accepted');
  for (let i = 0; i < 3; i++) {
    for (let g = 10; ; g *= 2) {
      t += g;
      if (send(t).answer === 'accepted') break;
    }
  }
  return { samples, recovery: { accepted, lastRefused } };
}

describe('the longest period a smooth sliding window can have, from its first recovery', () => {
  it.each([
    [50, 1000, false],
    [50, 1000, true],
    [40, 500, false],
    [40, 500, true],
  ])('HAProxy %i per %i ms (refused counted: %s): never shorter than the period', (limit, periodMs, countsRefused) => {
    const { samples, recovery } = recoveryOf(limit, periodMs, countsRefused);
    const longest = longestSmoothPeriod(samples, limit, recovery)!;
    expect(longest).toBeGreaterThanOrEqual(periodMs);
    // Loose at times (1.3 to 3 periods here): the first trial's wait takes the smaller of this and
    // limit × trickle; never short, which is what keeps that trial from idle.
    expect(longest).toBeLessThan(4 * periodMs);
  });

  it('says nothing when fewer than two requests passed after the last refusal', () => {
    const s = (sentMs: number, answer: Sample['answer']): Sample => ({
      sentMs,
      doneMs: sentMs + 3,
      status: 0,
      answer,
      phase: 'recover',
      client: 'primary',
    });
    expect(
      longestSmoothPeriod([s(900, 'limited'), s(1000, 'accepted')], 50, {
        accepted: s(1000, 'accepted'),
        lastRefused: s(900, 'limited'),
      }),
    ).toBeUndefined();
  });
});

describe('the quiet before each trial, on a virtual clock', () => {
  /** ms between the starts of consecutive trials' clumps (runs of the period phase longer than one request). */
  async function trialSpacing(limiter: () => Limiter): Promise<number[]> {
    const world = virtualWorld({ limiter, status: 429, announces: 'retry-after' });
    const record: Sample[] = [];
    try {
      await discover({
        calls: world.calls,
        clock: world.clock,
        maxRps: 200,
        maxRequests: 3_000,
        maxDurationS: 60,
        record,
      });
    } finally {
      world.stop();
    }
    const clumps = phaseRuns(record).filter((r) => r.phase === 'period' && r.sent > 1);
    return clumps.slice(1).map((r, i) => r.firstMs - clumps[i]!.firstMs);
  }

  it('a sliding log (its edges moved with the clump) waits one period after the last request, not two', async () => {
    const spacing = await trialSpacing(() =>
      fromModel({ kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false }),
    );
    expect(spacing.length).toBeGreaterThan(2);
    // The single request about a period after the clump, then one quiet period (≤ 1.3 s bound).
    for (const ms of spacing) expect(ms).toBeLessThan(2_700);
  });

  it('HAProxy waits two periods and a fifth from the clump after a refused request, two from the request after one let through', async () => {
    const spacing = await trialSpacing(() => haproxyRate(50, 1000, true));
    expect(spacing.length).toBeGreaterThan(2);
    // Two periods and a fifth from a clump (≈ 2.2–2.3 s: the fifth is slack for a period read short
    // on a busy machine), or a request about a period in plus two periods (≈ 3.2 s).
    expect(Math.min(...spacing)).toBeLessThan(2_600);
    for (const ms of spacing) expect(ms).toBeGreaterThan(2_150);
  });
});
