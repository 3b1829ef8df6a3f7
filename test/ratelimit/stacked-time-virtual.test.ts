// Issue 35's time budget for two silent limits stacked: a row's stage stays within about 2.5 of its
// longest window plus the proof horizon (2.5 × 60 + 120 = 270 s here), without losing accuracy.
// The whole probe (discover) and the proof loop on the virtual clock, the rounds placed as the
// stage places them (src/stages/rate-limit.ts): a settle, or the identified windows' next edge,
// before each; a failed round cut short as k6 cuts it (scenarios/rate-limit.ts).

import { describe, expect, it } from 'vitest';
import { proofHolds, proveUntilHeld } from '../../src/ratelimit/proof-loop.js';
import type { Recommendation } from '../../src/ratelimit/types.js';
import { cutAfterRefusalsS } from '../../src/ratelimit/prove.js';
import { bindingRps, recommend } from '../../src/ratelimit/recommend.js';
import { stackTracker } from '../../src/ratelimit/stacked-inference.js';
import { withoutRefuted } from '../../src/ratelimit/refuted.js';
import { sustainedRate, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { virtualK6Round, virtualProofRound } from './virtual-proof.js';
import { seeded } from './seeded.js';

const HORIZON_S = 120;
const LONGEST_WINDOW_S = 60;
const BUDGET_S = 2.5 * LONGEST_WINDOW_S + HORIZON_S;
/** The stage's settle after a drained 30 per second (proof-timing.ts). */
const SETTLE_S = 2;

interface TimedRound {
  rps: number;
  startS: number;
  ranS: number;
  verdict: string;
  refusalsBeganS?: number;
  /** Arrivals k6 dropped, no VU free. */
  dropped?: number;
}

/** The most VUs the proof scenario may hold for a policy (scenarios/rate-limit.ts `maxVUs`: 3 s of arrivals). */
const poolOf = (rec: Recommendation): number =>
  Math.max(rec.max_concurrency, Math.min(300, Math.ceil(rec.target_rps * 3)));

/**
 * `asK6`: each round run as k6 runs it (virtualK6Round: VUs held by retries, arrivals dropped when
 * none is free, a cut at k6's threshold tick), the VU pool the proof scenario gets (arrival-vus.ts);
 * otherwise a paced client asking each request once.
 */
async function sizeTimed(truth: LimiterSet, asK6 = false) {
  const limiter = fromModel(truth);
  const estimate = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 150 });
  const maxWindowS = HORIZON_S / 2;
  const stack = stackTracker(estimate.limiter, estimate.timeline, maxWindowS, 0);
  let nowS = estimate.duration_s;
  const rounds: TimedRound[] = [];
  const random = seeded(35);
  const outcome = await proveUntilHeld(
    recommend(estimate)!,
    bindingRps(estimate)!,
    async (rec, { durationS = HORIZON_S, cut }) => {
      const startS = nowS + Math.max(SETTLE_S, stack.restS(nowS));
      const proof = asK6
        ? virtualK6Round(limiter, rec, poolOf(rec), startS, durationS, random, cut)
        : virtualProofRound(limiter, rec.target_rps, startS, durationS, cut);
      const ranS = proof.cut_at_s ?? durationS;
      // As the stage notes it: a round not cut short lets its calls in flight retry for their budget.
      const tailS = asK6 && proof.cut_at_s === undefined ? rec.retry_budget_s : 0;
      stack.ran({ rps: rec.target_rps, startS, durationS: ranS, tailS, startMeasured: true });
      rounds.push({
        rps: rec.target_rps,
        startS,
        ranS,
        verdict: proofHolds(proof).holds ? 'holds' : 'fails',
        ...(proof.dropped_arrivals !== undefined ? { dropped: proof.dropped_arrivals } : {}),
        ...(proof.refusals_began_s !== undefined ? { refusalsBeganS: proof.refusals_began_s } : {}),
      });
      nowS = startS + ranS;
      return proof;
    },
    { identifiedRps: stack.identifiedRps, cutAfterRefusalsS: cutAfterRefusalsS(maxWindowS) },
  );
  return { estimate, outcome, rounds, endS: nowS, identified: stack.verdict() };
}

const STACKS: Array<[string, LimiterSet]> = [
  [
    'a bucket of 30 per 1 s and one of 600 per 60 s',
    [
      { kind: 'bucket', rate_rps: 30, burst: 30 },
      { kind: 'bucket', rate_rps: 10, burst: 600 },
    ],
  ],
  [
    'clock-aligned 1 s and 60 s windows',
    [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 0, counts_refused: false },
    ],
  ],
  // The same minute's edge later into the probe's clock (the bench's windows meet the probe at any
  // phase), the clock the inference is given no longer the window's: the first refused round's call
  // let through again at the edge places it. At 17 s the totals alone left sets 9.42 to 10.42 req/s
  // apart and nothing was sized.
  ...[17, 41, 52].map((phase_s): [string, LimiterSet] => [
    `clock-aligned 1 s and 60 s windows, the minute turning ${phase_s} s into the probe`,
    [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s, counts_refused: false },
    ],
  ]),
  // 300 per minute: the probe spends the minute, so the first round is refused from its start and
  // lets a call through again only at the minute's edge, which places the window (before: never
  // identified, 1.8 to 2.9 req/s given against 5 after four rounds, 437 to 447 s).
  ...[0, 20, 40].map((phase_s): [string, LimiterSet] => [
    `clock-aligned 1 s and 60 s windows of 30 and 300, the minute spent by the probe, turning ${phase_s} s into it`,
    [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
      { kind: 'fixed-window', limit: 300, window_s: 60, phase_s, counts_refused: false },
    ],
  ]),
];

describe('two silent limits stacked, sized on the virtual clock', () => {
  it.each(STACKS)(
    '%s: sized within 2 %, recommended within 75–100 %, proven over the horizon, within the time budget',
    async (_name, truth) => {
      const { estimate, outcome, rounds, endS, identified } = await sizeTimed(truth);
      const trueRps = sustainedRate(truth);
      // The headline the report gives (refuted.ts): the set identified, else the highest hold.
      const shown = withoutRefuted(estimate, outcome.rounds, identified).sustained_rps!;
      expect(Math.abs(shown - trueRps) / trueRps).toBeLessThanOrEqual(0.02);
      if (identified && 'set' in identified)
        expect(Math.abs(identified.sustained_rps - trueRps) / trueRps).toBeLessThanOrEqual(0.02);
      const given = outcome.proven!.target_rps;
      expect(given).toBeGreaterThanOrEqual(0.75 * trueRps);
      expect(given).toBeLessThanOrEqual(trueRps);
      // The hold given ran the whole horizon, two of the longest window: no verdict is weakened.
      const held = rounds.find((r) => r.rps === given)!;
      expect(held).toMatchObject({ verdict: 'holds', ranS: HORIZON_S });
      // A round cut short ends one longest window and 5 s past its first refusal (at once when
      // refused from its start after a quota was met), and the seconds its refusals then take to
      // break the promise on their own.
      // A first round refused from its start (the probe spent the minute) has met no quota before
      // it, so it runs as long as one refused late; the minute's edge it then meets lets a clump
      // through at the cut, which it outlasts: its length is the time budget's, checked below.
      for (const r of rounds.filter((r) => r.ranS < HORIZON_S && !(r === rounds[0] && r.refusalsBeganS! < 1))) {
        const cutS = r.refusalsBeganS! < 1 ? 0 : LONGEST_WINDOW_S + 5;
        expect(r.ranS).toBeLessThanOrEqual(Math.min(HORIZON_S, r.refusalsBeganS! + cutS + 10));
      }
      // The one failed round identified the set (the timing of what passed after its refusals): the
      // next round is the policy's, no round to tell sets apart.
      expect(rounds.map((r) => r.verdict)).toEqual(['fails', 'holds']);
      expect(endS).toBeLessThanOrEqual(BUDGET_S);
    },
    120_000,
  );
});

// The bench's bucket row (bench/ratelimit.ts `stacked silent`), each round as k6 runs it: retries
// hold VUs while the limit refuses, arrivals are dropped when none is free, a failed round is cut at
// k6's threshold tick. Its first round identifies the set from when k6 saw the limit let a call
// through again after its refusals (admitted_again_s): without that figure (a k6 bundle built before
// it existed, as the bench ran on 29 Nov) sets from 9.47 to 12.87 req/s explained the round, and a
// third round of 120 s told them apart (391 s on the bench against its 285). 2 rounds, 237 s here.
// Not yet so on the bench with a fresh build: there k6 saw the bucket admit again 2.34 s after its
// first refusal (here sooner) and dropped 470 arrivals, and the round identified a window instead
// (docs/development/rate-limit-research.md, the stacked rows' time budget).
// The windows row is not here: as k6 runs it, its first round runs past the minute's second edge
// (every VU waiting out the minute's Retry-After, no 429 counted toward the cut until that edge) and
// its second round waits a minute for the edge after: 2 rounds, 300.5 virtual s against 270.
describe('the bench rows as k6 runs them, on the virtual clock', () => {
  it.each(STACKS.slice(0, 1))(
    '%s: two rounds, the failed one identifying the set, within the time budget',
    async (_name, truth) => {
      const { estimate, outcome, rounds, endS, identified } = await sizeTimed(truth, true);
      const trueRps = sustainedRate(truth);
      const context = JSON.stringify({ rounds, endS, probeS: estimate.duration_s });
      expect(identified, context).toHaveProperty('set');
      const shown = withoutRefuted(estimate, outcome.rounds, identified).sustained_rps!;
      expect(Math.abs(shown - trueRps) / trueRps, context).toBeLessThanOrEqual(0.02);
      const given = outcome.proven!.target_rps;
      expect(given, context).toBeGreaterThanOrEqual(0.75 * trueRps);
      expect(given, context).toBeLessThanOrEqual(trueRps);
      expect(
        rounds.find((r) => r.rps === given),
        context,
      ).toMatchObject({ verdict: 'holds', ranS: HORIZON_S });
      expect(
        rounds.map((r) => r.verdict),
        context,
      ).toEqual(['fails', 'holds']);
      expect(endS, context).toBeLessThanOrEqual(BUDGET_S);
    },
    120_000,
  );
});
