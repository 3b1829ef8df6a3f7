// Two limits stacked and silent (issue 35 item 5): the probe reads the per-second limit, the k6
// proof rounds meet the per-minute one only after N acceptances. From all that evidence, replayed
// through the limiter models on one clock, the set is identified (both limits, the sustained rate
// the lowest's within 2 %), the rounds bisect toward it, and the recommendation lands within 75–100
// % of the true rate. Whole probe (discover) on virtual time, proof rounds in-process.

import { describe, expect, it } from 'vitest';
import { proveUntilHeld } from '../../src/ratelimit/proof-loop.js';
import { bindingRps, proofConcurrency, recommend, waitsHoldConcurrency } from '../../src/ratelimit/recommend.js';
import {
  identifyStack,
  replayTimeline,
  stackTracker,
  withIdentifiedWindow,
} from '../../src/ratelimit/stacked-inference.js';
import { describeLimiter, sustainedRate, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import type { ProofRound } from '../../src/report/model.js';
import { HELD_SLACK_S, replay } from '../../src/ratelimit/round-replay.js';
import { afterQuota, cutAfterRefusalsS } from '../../src/ratelimit/prove.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { k6EndedS, virtualK6Round, virtualProofRound } from './virtual-proof.js';
import { seeded } from './seeded.js';

const HORIZON_S = 120;
const ROUND: ProofRound = {
  target_rps: 0,
  max_concurrency: 4,
  backoff_base_ms: 100,
  max_retries: 5,
  rate_429: 0,
  goodput_rps: 0,
  lost_requests: 0,
  verdict: 'holds',
  why: '',
};
const SETTLE_S = 2;

/**
 * `lateS`: how long after the stage notes a round's start k6's arrivals really begin (its start-up).
 * `asK6`: each round run as k6 runs it (virtualK6Round: its VUs, 3 s of arrivals or the calls at
 * once the stage allows, held by calls waiting out a 429 and retrying, arrivals dropped when none
 * is free, a failed round cut short),
 * the stage's tail noted; otherwise a paced client asking each request once.
 */
async function sizeStack(truth: LimiterSet, lateS = 0, measured = true, asK6 = false) {
  const limiter = fromModel(truth);
  const estimate = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 150 });
  // Virtual time starts at 0, the wall clock's edge the truth's windows are placed on.
  const stack = stackTracker(estimate.limiter, replayTimeline(estimate), HORIZON_S / 2, 0);
  const random = seeded(35);
  let atS = estimate.duration_s + SETTLE_S;
  const outcome = await proveUntilHeld(
    recommend(estimate)!,
    bindingRps(estimate)!,
    async (rec, { cut }) => {
      // Once identified, a round waits for the set to rest, as the stage does.
      const spawnedS = atS + stack.restS(atS);
      const startS = spawnedS + lateS;
      // As the stage runs k6: its calls at once, waits included, against a limit counting refusals.
      const vus = waitsHoldConcurrency(estimate.limiter)
        ? proofConcurrency(rec)
        : Math.max(rec.max_concurrency, Math.ceil(rec.target_rps * 3));
      const proof = asK6
        ? virtualK6Round(limiter, rec, vus, startS, HORIZON_S, random, cut)
        : virtualProofRound(limiter, rec.target_rps, startS, HORIZON_S);
      const ranS = proof.cut_at_s ?? HORIZON_S;
      // As the stage does: from k6's own start when it said (prove.ts arrivalsBeganMs), else from the spawn.
      stack.ran({
        rps: rec.target_rps,
        startS: measured ? startS : spawnedS,
        durationS: ranS,
        tailS: asK6 && proof.cut_at_s === undefined ? rec.retry_budget_s : 0,
        retryBudgetS: rec.retry_budget_s,
        startMeasured: measured,
      });
      atS = startS + k6EndedS(proof, ranS) + SETTLE_S;
      return proof;
    },
    { identifiedRps: stack.identifiedRps, ...(asK6 ? { cutAfterRefusalsS: cutAfterRefusalsS(HORIZON_S / 2) } : {}) },
  );
  return { estimate, outcome, identified: stack.verdict() };
}

describe('a silent stack identified from the probe and the proof rounds', () => {
  it.each([
    [
      'a bucket of 30 per 1 s and one of 600 per 60 s',
      [
        { kind: 'bucket', rate_rps: 30, burst: 30 },
        { kind: 'bucket', rate_rps: 10, burst: 600 },
      ] as LimiterSet,
    ],
    [
      'clock-aligned 1 s and 60 s windows',
      [
        { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
        { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
      ] as LimiterSet,
    ],
    [
      // nginx's rate=30r/s burst=30 (queueing) and rate=600r/m burst=600 nodelay: a probe past 30 s,
      // whose chart has 1 s slots; replayed over them the second bucket came out 620 (bench, 29 Nov).
      'a queue of 30 per 1 s and a bucket of 601 at 10 r/s',
      [
        { kind: 'queue', rate_rps: 30, burst: 30, delay: 0 },
        { kind: 'bucket', rate_rps: 10, burst: 601 },
      ] as LimiterSet,
    ],
  ])(
    '%s',
    async (_name, truth) => {
      const { estimate, outcome, identified } = await sizeStack(truth);
      const trueRps = sustainedRate(truth);
      // The probe reads the per-second limit alone; the per-minute one shows only in the rounds.
      expect(sustainedRate(estimate.limiter!)).toBeGreaterThan(2 * trueRps);
      expect(outcome.rounds[0]).toMatchObject({ verdict: 'fails' });
      expect(outcome.rounds[0]!.refusals_began_s).toBeGreaterThan(1);
      if (!identified || !('set' in identified)) throw new Error(`not identified: ${JSON.stringify(identified)}`);
      // Both limits, each of its true kind, and the sustained rate the lowest's within 2 %.
      expect(identified.set.map((m) => m.kind)).toEqual(truth.map((m) => m.kind));
      expect(Math.abs(identified.sustained_rps - trueRps) / trueRps).toBeLessThanOrEqual(0.02);
      // A bucket's or a queue's figures too: its rate and burst within 2 % of the truth's.
      for (const [i, m] of identified.set.entries()) {
        const t = truth[i]!;
        if ((m.kind === 'bucket' || m.kind === 'queue') && m.kind === t.kind && 'burst' in t) {
          expect(Math.abs(m.rate_rps - t.rate_rps) / t.rate_rps, describeLimiter(m)).toBeLessThanOrEqual(0.02);
          expect(Math.abs(m.burst - t.burst) / t.burst, describeLimiter(m)).toBeLessThanOrEqual(0.02);
        }
      }
      expect(outcome.identifiedRps).toBe(identified.sustained_rps);
      expect(identified.evidence).toContain(describeLimiter(identified.set));
      // The recommendation held, and lands within 75–100 % of the true sustained rate.
      const given = outcome.proven!.target_rps;
      expect(given).toBeGreaterThanOrEqual(0.75 * trueRps);
      expect(given).toBeLessThanOrEqual(trueRps);
      // Every round spans two of the longest window identified.
      const longest = Math.max(...identified.set.map((m) => ('window_s' in m ? m.window_s : 0)));
      expect(HORIZON_S).toBeGreaterThanOrEqual(2 * longest);
    },
    120_000,
  );
});

describe("two limits that both count every request (HAProxy's usual recipe): no false figure", () => {
  // HAProxy's http_req_rate(1s) 30 and http_req_rate(60s) 600, every request tracked (bench,
  // 29 Nov: a window of 495 per 60 s counting admitted requests alone was claimed, 8.25 req/s
  // against 10). The probe's refusals count in the minute too, so a second limit fitted on the
  // admitted requests alone reads it low; one counting every request sent is fitted beside it.
  const interpolated = (limit: number, period_s: number) =>
    ({ kind: 'sliding-window', limit, period_s, counts_refused: true, counter: 'interpolated' }) as const;
  const fixed = (limit: number, window_s: number) =>
    ({ kind: 'fixed-window', limit, window_s, phase_s: 0, counts_refused: true }) as const;
  // Clock-aligned fixed windows both counting every request: the probe reads the 1 s window as
  // counting none (a window resetting each second looks the same either way), so before, no second
  // limit counting refusals was proposed (countsLikeFirst) and 573 per 60 s (9.55 req/s) was claimed.
  it.each([
    ['interpolated', [interpolated(30, 1), interpolated(600, 60)] as LimiterSet],
    ['clock-aligned fixed', [fixed(30, 1), fixed(600, 60)] as LimiterSet],
  ])(
    '%s windows of 30 per 1 s and 600 per 60 s, rounds run as k6 runs them: identified within 2 % of 10 req/s or not at all, the policy at most 10 req/s',
    async (_name, truth) => {
      const { outcome, identified } = await sizeStack(truth, 0, true, true);
      const trueRps = sustainedRate(truth);
      expect(outcome.rounds[0]).toMatchObject({ verdict: 'fails' });
      if (identified && 'set' in identified)
        expect(Math.abs(identified.sustained_rps - trueRps) / trueRps, identified.evidence).toBeLessThanOrEqual(0.02);
      if (identified && 'why' in identified && identified.spanRps) {
        expect(identified.spanRps.low).toBeLessThanOrEqual(trueRps * 1.02);
        expect(identified.spanRps.high).toBeGreaterThanOrEqual(trueRps * 0.98);
      }
      const given = outcome.proven?.target_rps;
      if (given !== undefined) expect(given).toBeLessThanOrEqual(trueRps);
      // The fixed windows' two readings (the minute counting the probe's refused requests or not,
      // 573 or 600 per 60 s) part in a window a round spends with every arrival sent, which k6 did
      // not (it dropped arrivals in round 1, its VUs waiting out the minute's Retry-After), and in
      // round 2, held at 9.7 req/s from the minute's edge without a 429, where 573 refuses 9 a
      // minute. That hold refutes 573, not the admitted-only quotas between 582 and 600, each within
      // round 1's timing: the sets from 9.55 to 10 req/s stand (before: 573 per 60 s, 9.55 req/s
      // claimed; then 600 alone, the twin's survivor claimed), the policy within 75–100 %.
      if (_name === 'clock-aligned fixed') {
        if (!identified || !('why' in identified)) throw new Error(JSON.stringify(identified));
        expect(identified.spanRps).toEqual({ low: 9.55, high: 10 });
        expect(given).toBeGreaterThanOrEqual(0.75 * trueRps);
      }
    },
    120_000,
  );
});

describe("k6 starts late: the rounds are replayed from its arrivals' real start", () => {
  const windows: LimiterSet = [
    { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
    { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
  ];
  it.each([
    [0.3, true],
    [0.6, true],
    [1, true],
    [0.3, false],
    [0.6, false],
    [1, false],
  ])(
    'clock-aligned 1 s and 60 s windows, arrivals %s s after the round was noted (k6 said when: %s): identified within 2 % when k6 said, else a claim within 2 % or none',
    async (lateS, measured) => {
      const { outcome, identified } = await sizeStack(windows, lateS, measured);
      const trueRps = sustainedRate(windows);
      // From k6's own start the rounds pin the window: identified. Without it, a claim only within 2 %.
      if (measured) expect(identified).toHaveProperty('set');
      if (identified && 'set' in identified)
        expect(Math.abs(identified.sustained_rps - trueRps) / trueRps).toBeLessThanOrEqual(0.02);
      const given = outcome.proven!.target_rps;
      expect(given).toBeGreaterThanOrEqual(0.75 * trueRps);
      expect(given).toBeLessThanOrEqual(trueRps);
    },
    120_000,
  );
});

describe('identifyStack claims nothing the evidence contradicts', () => {
  const first = { kind: 'bucket', rate_rps: 30, burst: 30 } as const;
  const quotaRound = {
    rps: 23,
    startS: 0,
    durationS: 120,
    tailS: 0,
    // 23 × 46 let through before the first refusal, 10 a second over the 74 s after.
    round: {
      ...ROUND,
      target_rps: 23,
      rate_429: 0.35,
      goodput_rps: 14.98,
      verdict: 'fails',
      refusals_began_s: 46,
      after_quota_rps: 10,
    },
  } as const;

  it('no round met a quota: nothing to identify', () => {
    const held = { ...quotaRound, round: { ...ROUND, target_rps: 23, verdict: 'holds' } } as const;
    expect(identifyStack({ first, timeline: [], rounds: [held], maxWindowS: 60 })).toBeNull();
  });

  it('one round refused late at 23 req/s, 10 req/s after: the sets it leaves span 10 req/s, too wide to claim one', () => {
    const found = identifyStack({ first, timeline: [], rounds: [quotaRound], maxWindowS: 60 });
    if (!found || 'set' in found || !found.spanRps) throw new Error(JSON.stringify(found));
    expect(found.spanRps.low).toBeLessThanOrEqual(10);
    expect(found.spanRps.high).toBeGreaterThanOrEqual(10);
    expect(found.spanRps.high).toBeGreaterThan(found.spanRps.low * 1.02);
    // The best fit is named beside the probe's reading (refuted alone, so never by its figures), with what the round saw.
    expect(found.why).toMatch(
      /^sets sustaining [\d.]+ to [\d.]+ req\/s all explain every round \(the probe's reading with token bucket 10 req\/s, burst \d+ among them\), and no round told them apart: round 1 at 23 req\/s for 120 s was first refused at 46 s, then let 10 req\/s through$/,
    );
  });

  // A round at 24 req/s from 30 s against 1 s and 60 s windows on the wall clock's edges.
  const clockRound = {
    rps: 24,
    startS: 30,
    durationS: 120,
    tailS: 0,
    round: {
      ...ROUND,
      target_rps: 24,
      rate_429: 0.5,
      goodput_rps: 11.95,
      verdict: 'fails',
      refusals_began_s: 34.75,
      after_quota_rps: 7.06,
    },
  } as const;
  const onClock = {
    first: { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
    timeline: [],
    maxWindowS: 60,
    clockStartS: 20.25,
  } as const;

  it('a window on the wall clock: its phase from the clock, its limit counted from that edge to the first refusal', () => {
    // The probe began at wall-clock second 20.25, so minutes turn at 39.75 s, 99.75 s … on its clock
    // (between the phases a search without the clock tries). A round at 24 req/s from 30 s: 234 let
    // through before the edge, then 600 in the new minute, the first refusal at 64.75 s (34.75 s
    // in), 600 more from 99.75 s: 1,434 in the round.
    const found = identifyStack({ ...onClock, rounds: [clockRound] });
    // One round leaves other sets too; of the 60 s windows, the one on the clock's edges is kept.
    if (!found || 'set' in found) throw new Error(JSON.stringify(found));
    expect(found.why).toContain("(the probe's reading with fixed window 600 per 60 s among them)");
  });

  it("a round k6 did not say the start of: a window's count is what it would be from as late as k6 may have begun, the span widened to it", () => {
    // The same round as above: from 30 s, the window's 600 are counted from the edge at 39.75 s to
    // the first refusal at 64.75 s. Begun up to 1 s later (k6's start-up), the refusal falls at
    // 65.75 s: 624 in the window, 10.4 req/s, 4 % apart, so no figure within 2 % can be claimed.
    const spanOf = (startMeasured: boolean) => {
      const found = identifyStack({ ...onClock, rounds: [{ ...clockRound, startMeasured }] });
      if (!found || 'set' in found || !found.spanRps) throw new Error(JSON.stringify(found));
      return found.spanRps;
    };
    expect(spanOf(true).high).toBe(10);
    expect(spanOf(false).high).toBe(10.4);
  });

  it('the same round, and the limit let a call through again 0.05 s after its first refusal: a bucket refilling at 10 req/s, identified from this one round', () => {
    // What passed after the first refusal came at once and at 10 a second (740 in 74 s): a limit
    // refilling continuously, at that rate within a percent. No window does that (it lets nothing
    // through until its edge), and a bucket 6 % off lets 44 more or fewer through after.
    const found = identifyStack({
      first,
      timeline: [],
      rounds: [{ ...quotaRound, round: { ...quotaRound.round, admitted_again_s: 46.05 } }],
      maxWindowS: 60,
    });
    if (!found || !('set' in found)) throw new Error(JSON.stringify(found));
    expect(found.set[1]).toMatchObject({ kind: 'bucket' });
    expect(Math.abs(found.sustained_rps - 10) / 10).toBeLessThanOrEqual(0.01);
  });

  /**
   * The round at 24 req/s from 30 s as k6 would measure it against 1 s and 60 s windows whose minute
   * turns at `edgeS` on the probe's clock (k6 said when its arrivals began); `seen` alters k6's figures.
   */
  const windowRound = (edgeS: number, seen: Partial<ProofRound> = {}) => {
    const truth: LimiterSet = [onClock.first, { ...onClock.first, limit: 600, window_s: 60, phase_s: edgeS % 60 }];
    const [sim] = replay(truth, [], [{ rps: 24, startS: 30, durationS: 120, tailS: 0 }]).rounds;
    const round = {
      ...clockRound.round,
      goodput_rps: Math.round((sim!.accepted / 120) * 100) / 100,
      refusals_began_s: sim!.firstRefusalS!,
      admitted_again_s: sim!.admittedAgainS!,
      ...afterQuota(sim!.accepted, sim!.firstRefusalS!, 24, 120),
      ...seen,
    };
    return { ...clockRound, startMeasured: true, round };
  };

  // Not when the quota ran out less than AGAIN_LAG_S before the edge (about 1 phase in 30): a call let
  // through again 2 s after the first refusal may be a bucket's, seen late by k6, and nothing is claimed.
  it.each([20.25, 37.6, 45.5])(
    "the window's round, the clock not known (the probe began at wall-clock second %s): the call let through again at the minute's edge places the window, identified from this one round",
    (wallS) => {
      // First refused once the minute's 600 were spent, let through again only at the next edge, the
      // round's total as a window at that phase lets through; no clock given.
      const edgeS = 60 - wallS;
      const round = windowRound(edgeS);
      expect([0, 60, 120, 180].some((k) => Math.abs(30 + round.round.admitted_again_s - edgeS - k) < 0.05)).toBe(true);
      const found = identifyStack({ first: onClock.first, timeline: [], maxWindowS: 60, rounds: [round] });
      if (!found || !('set' in found)) throw new Error(JSON.stringify(found));
      expect(found.set[1]).toMatchObject({ kind: 'fixed-window', window_s: 60 });
      expect(Math.abs(found.sustained_rps - 10) / 10).toBeLessThanOrEqual(0.02);
    },
  );

  /** The sustained rates `round` leaves claimed or within a span include the true 10 req/s: never "no set explains". */
  const stillExplained = (round: ReturnType<typeof windowRound>) => {
    const found = identifyStack({ first: onClock.first, timeline: [], maxWindowS: 60, rounds: [round] });
    if (!found || !('set' in found || found.spanRps)) throw new Error(JSON.stringify(found));
    const [low, high] =
      'set' in found ? [found.sustained_rps, found.sustained_rps] : [found.spanRps!.low, found.spanRps!.high];
    expect(low, JSON.stringify(found)).toBeLessThanOrEqual(10);
    expect(high, JSON.stringify(found)).toBeGreaterThanOrEqual(10);
  };

  it('k6 dropped arrivals (every VU waiting out a backoff) and saw the call let through again 1 s after the edge: the true window still explains the round', () => {
    const exact = windowRound(39.75).round.admitted_again_s;
    stillExplained(windowRound(39.75, { admitted_again_s: exact + 1, dropped_arrivals: 400 }));
  });

  it('k6 dropped arrivals and got a fifth fewer calls through than paced ones would have: fewer offered, not another limit, so the true window still explains the round', () => {
    const paced = windowRound(39.75).round.goodput_rps;
    stillExplained(windowRound(39.75, { goodput_rps: Math.round(paced * 80) / 100, dropped_arrivals: 900 }));
  });

  it('the buckets fitted on earlier rounds are reused only for the same seed round: the same verdicts as fitted afresh', () => {
    // Buckets alone (no window fits within 1 s): a bucket fitted to the first refusal at 46 s
    // explains no round refused from 30 s; one fitted to it does.
    const fitted = new Map();
    const sooner = { ...quotaRound, round: { ...quotaRound.round, refusals_began_s: 30, goodput_rps: 12.5 } } as const;
    for (const rounds of [[quotaRound], [sooner]])
      expect(identifyStack({ first, timeline: [], rounds, maxWindowS: 1, fitted })).toEqual(
        identifyStack({ first, timeline: [], rounds, maxWindowS: 1 }),
      );
    expect(fitted.size).toBeGreaterThan(0);
  });

  /** A round held at 20 req/s for 120 s right after quotaRound. */
  const held = {
    rps: 20,
    startS: 121,
    durationS: 120,
    tailS: 0,
    round: { ...ROUND, target_rps: 20, verdict: 'holds' },
  } as const;

  it('a round held at 20 req/s for 120 s right after: no bucket or window at 10 req/s admits it, "not identified" with what each round saw', () => {
    const found = identifyStack({ first, timeline: [], rounds: [quotaRound, held], maxWindowS: 60 });
    expect(found).toEqual({
      why: expect.stringMatching(
        /^no bucket or window \(of 10, 60 s; fixed or sliding, counting refused requests or not\) beside the probe's reading explains every round: round 1 at 23 req\/s for 120 s was first refused at 46 s, then let 10 req\/s through; round 2 at 20 req\/s for 120 s held$/,
      ),
    });
  });

  describe("the probe's refusals count in the minute too (a window counting every request)", () => {
    // 30 per 1 s and 600 per 60 s, both counting every request, on the clock's edges. The probe
    // sends 40 a second for 3 s: 30 pass each second and 10 are refused, all 120 counted in the
    // minute. A round at 24 req/s from 10 s is refused once the minute has counted 600: 20 s in,
    // 570 of them let through. Counted on the admitted alone, the window reads 570 per 60 s (9.5
    // req/s, 5 % low), and the round's count, 30 short of the truth's 1,320, is within what k6 errs.
    const truth: LimiterSet = [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: true },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: true },
    ];
    const probe = [0, 1, 2].map((t) => ({ t, offered: 40, accepted: 30, limited: 10, phase: 'burst' }));
    /** The rounds as k6 would measure them against the truth, paced and each request asked once. */
    const measured = (runs: Array<{ rps: number; startS: number }>) => {
      const sims = replay(
        truth,
        probe,
        runs.map((r) => ({ ...r, durationS: 120, tailS: 0 })),
      ).rounds;
      return runs.map((r, i) => {
        const sim = sims[i]!;
        const began = sim.firstRefusalS ?? undefined;
        const rate_429 = (sim.sent - sim.accepted) / sim.sent;
        const round: ProofRound = {
          ...ROUND,
          target_rps: r.rps,
          rate_429,
          goodput_rps: Math.round((sim.accepted / 120) * 100) / 100,
          verdict: rate_429 > 0.01 ? 'fails' : 'holds',
          ...(began !== undefined ? { refusals_began_s: began } : {}),
          ...(sim.admittedAgainS !== null ? { admitted_again_s: sim.admittedAgainS } : {}),
          ...afterQuota(sim.accepted, began, r.rps, 120),
        };
        return { ...r, durationS: 120, tailS: 0, startMeasured: true, round };
      });
    };
    const identify = (rounds: ReturnType<typeof measured>) =>
      identifyStack({ first: truth[0]!, timeline: probe, rounds, maxWindowS: 60, clockStartS: 0 });

    it('one round: the window counting the admitted alone (9.5 req/s) is no claim, the one counting every request (10) explains the round as well', () => {
      const rounds = measured([{ rps: 24, startS: 10 }]);
      expect(rounds[0]!.round).toMatchObject({ verdict: 'fails', refusals_began_s: 20, admitted_again_s: 50 });
      const found = identify(rounds);
      if (!found) throw new Error('nothing inferred');
      if ('set' in found) expect(found.sustained_rps, found.evidence).toBeGreaterThanOrEqual(9.8);
      else expect(found.spanRps).toEqual({ low: 9.5, high: 10 });
    });

    it('a round at 9.75 req/s held in the minutes after: no window of 570 admits it, 10 req/s identified', () => {
      const rounds = measured([
        { rps: 24, startS: 10 },
        { rps: 9.75, startS: 180 },
      ]);
      expect(rounds[1]!.round.verdict).toBe('holds');
      const found = identify(rounds);
      if (!found || !('set' in found)) throw new Error(JSON.stringify(found));
      expect(found.sustained_rps).toBe(10);
      expect(found.set[1]).toMatchObject({ counts_refused: true });
    });
  });

  it('the same rounds behind a horizon too short for any window: "no bucket" alone, no empty list of windows', () => {
    const found = identifyStack({ first, timeline: [], rounds: [quotaRound, held], maxWindowS: 1 });
    expect(found).toEqual({
      why: expect.stringMatching(/^no bucket beside the probe's reading explains every round: round 1 /),
    });
  });
});

describe('a round replayed with its tail', () => {
  it('only the calls k6 holds in flight retry once the arrivals stop, not a tail of paced arrivals', () => {
    // 24 req/s for 120 s against 600 per 60 s from the minute's edge: 600 in each of the two
    // minutes; the 39 s retry budget then lets the 72 calls k6 holds in flight (3 s of arrivals)
    // through in the third, not 39 s × 24 = 936 paced ones (600 of them admitted).
    const set: LimiterSet = [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ];
    const [round] = replay(set, [], [{ rps: 24, startS: 0, durationS: 120, tailS: 39 }]).rounds;
    expect(round).toMatchObject({ sent: 2880, accepted: 1272, firstRefusalS: 25 });
  });

  it('the calls k6 holds keep retrying over the whole budget: a minute that reopens 11 s after the arrivals stop lets them all through', () => {
    // The bench's silent windows row (29 Nov, fresh build): the minute's edges fell 11 s into the
    // round and 11 s after it. k6's 72 calls in flight retried into the next minute and got
    // through; a replay that tried them for 3 s only counted none of them, k6's goodput beat every
    // candidate's by 76, and with arrivals dropped that alone refuted the true set.
    const set: LimiterSet = [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 11, counts_refused: false },
    ];
    const [round] = replay(set, [], [{ rps: 24, startS: 0, durationS: 120, tailS: 39 }]).rounds;
    // 11 s of the first minute (264), then 600 in each minute from 11 s and from 71 s, and the 72
    // calls in flight at 120 s once the minute from 131 s opens (tried for 3 s only: none of them).
    expect(round).toMatchObject({ sent: 2880, accepted: 264 + 600 + 600 + 72, firstRefusalS: 36 });
  });

  it("counts the arrivals admitted within a held call's reach of a refusal: the only ones an arrival k6 dropped may have been", () => {
    // 24 req/s against 600 per 60 s from the minute's edge: refused from 25 s to the edge at 60 s,
    // then 600 admitted. A VU holds a refused call for its retry budget (2 s) and HELD_SLACK_S more
    // at most, so only the 120 admitted in the 5 s after the last refusal may have met no VU free;
    // without the budget, every one admitted after the first refusal may have.
    const set: LimiterSet = [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ];
    const run = { rps: 24, startS: 0, durationS: 85, tailS: 0 };
    expect(HELD_SLACK_S).toBe(3);
    expect(replay(set, [], [{ ...run, retryBudgetS: 2 }]).rounds[0]).toMatchObject({ admittedNearRefusal: 120 });
    expect(replay(set, [], [run]).rounds[0]).toMatchObject({ accepted: 1200, admittedNearRefusal: 600 });
  });

  // The inference replays hundreds of candidates a round refutes early: it stops there, and only there.
  it('stops at what refutes a candidate, and reads the same first refusal and counts up to it', () => {
    const set: LimiterSet = [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ];
    const rounds = [0, 130].map((startS) => ({ rps: 24, startS, durationS: 120, tailS: 0 }));
    const whole = replay(set, [], rounds);
    expect(whole.refuted).toBeUndefined();
    const near = (seenS: number, withinS: number) => ({
      seenS,
      fits: (atS: number) => Math.abs(atS - seenS) <= withinS,
    });
    // The first refusal (25 s) where it was seen: replayed whole, the same figures.
    expect(replay(set, [], rounds, [{ firstRefusal: near(25, 1) }])).toEqual(whole);
    // Seen at 40 s: refuted at 25 s, the second round not replayed.
    const early = replay(set, [], rounds, [{ firstRefusal: near(40, 1) }]);
    expect(early).toMatchObject({ refuted: 0, rounds: [{ firstRefusalS: 25, accepted: 600 }] });
    expect(early.rounds).toHaveLength(1);
    // Seen at 10 s: refuted once a call at 11 s passed, before any refusal.
    const late = replay(set, [], rounds, [{ firstRefusal: near(10, 1) }]);
    expect(late).toMatchObject({ refuted: 0, rounds: [{ firstRefusalS: null }] });
    expect(late.rounds[0]!.accepted).toBe(Math.floor(11 * 24) + 2);
    // More let through than the round allows: refuted once one more passed.
    expect(replay(set, [], rounds, [undefined, { tooMany: (n) => n > 100 }])).toMatchObject({
      refuted: 1,
      rounds: [whole.rounds[0], { accepted: 101 }],
    });
    // The first refusal alone: the round ends there.
    expect(replay(set, [], rounds, [{ firstRefusalOnly: true }]).rounds[0]).toMatchObject({
      firstRefusalS: 25,
      accepted: 600,
    });
  });
});

describe('the horizon states the longest window known, an identified one included', () => {
  const set = [
    { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
    { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 12.5, counts_refused: false },
  ] as const;
  it.each([
    [null, { window_s: 60, source: 'measured' }],
    [{ window_s: 1, source: 'measured' } as const, { window_s: 60, source: 'measured' }],
    [{ window_s: 3600, source: 'announced' } as const, { window_s: 3600, source: 'announced' }],
  ])('known %j → %j', (known, longest) => {
    expect(withIdentifiedWindow(known, { set, sustained_rps: 10, evidence: '' })).toEqual(longest);
    expect(withIdentifiedWindow(known, { why: 'none' })).toEqual(known);
  });
  it("a bucket identified counts its refill time (nginx's 600r/m burst=600: 601 per 60.1 s)", () => {
    const buckets = [
      { kind: 'bucket', rate_rps: 30, burst: 31 },
      { kind: 'bucket', rate_rps: 10, burst: 601 },
    ] as const;
    expect(
      withIdentifiedWindow({ window_s: 1, source: 'measured' }, { set: buckets, sustained_rps: 10, evidence: '' }),
    ).toEqual({ window_s: 60.1, source: 'measured', refill: true, request_s: 0.1 });
  });
});
