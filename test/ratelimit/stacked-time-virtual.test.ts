// Issue 35's time budget for two silent limits stacked: a row's stage stays within about 2.5 of its
// longest window plus the proof horizon (2.5 × 60 + 120 = 270 s here), without losing accuracy.
// The whole probe (discover) and the proof loop on the virtual clock, the rounds placed as the
// stage places them (src/stages/rate-limit.ts): a settle, or the identified windows' next edge,
// before each; a failed round cut short as k6 cuts it (scenarios/rate-limit.ts).

import { describe, expect, it } from 'vitest';
import { BUDGET_S, expectSized, HORIZON_S, LONGEST_WINDOW_S, sizeTimed, twoSpans } from './stack-sizing.js';
import { withoutRefuted } from '../../src/ratelimit/refuted.js';
import { sustainedRate, type LimiterSet } from '../../src/ratelimit/limiters/index.js';

const STACKS: Array<[string, LimiterSet]> = [
  [
    'a bucket of 30 per 1 s and one of 600 per 60 s',
    [
      { kind: 'bucket', rate_rps: 30, burst: 30 },
      { kind: 'bucket', rate_rps: 10, burst: 600 },
    ],
  ],
  // nginx's 30r/s and 600r/m burst=600 nodelay zones: a bucket of 601 refilling in 60.1 s, found
  // by the inference after round 1 (the probe reads the 30r/s zone alone, a 1 s span). Before,
  // round 2 kept the 120 s planned from the probe's reading: 0.1 s short of two refills (bench, 29 Nov).
  [
    "nginx's zones: a bucket of 31 at 30 r/s and one of 601 at 10 r/s",
    [
      { kind: 'bucket', rate_rps: 30, burst: 31 },
      { kind: 'bucket', rate_rps: 10, burst: 601 },
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
  // Both windows counting every request (HAProxy's usual recipe on clock-aligned tables): the probe
  // reads the 1 s window as counting none (it resets each second either way), and its refused
  // requests count in the minute. Round 1's count in a minute it spends from the edge tells the two
  // readings apart (before: 573 per 60 s counting the admitted alone, 9.55 req/s, was claimed).
  ...[0, 17, 41, 52].map((phase_s): [string, LimiterSet] => [
    `clock-aligned 1 s and 60 s windows both counting every request, the minute turning ${phase_s} s into the probe`,
    [
      { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: true },
      { kind: 'fixed-window', limit: 600, window_s: 60, phase_s, counts_refused: true },
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
      const sized = await sizeTimed(truth);
      const { outcome, rounds, endS } = sized;
      // The headline the report gives (refuted.ts): the set identified, else the highest hold.
      expectSized(truth, sized);
      const given = outcome.proven!.target_rps;
      // The hold given ran the whole horizon, two of the longest window: no verdict is weakened.
      const held = rounds.find((r) => r.rps === given)!;
      expect(held).toMatchObject({ verdict: 'holds' });
      expect(held.ranS).toBeGreaterThanOrEqual(Math.max(HORIZON_S, twoSpans(truth)));
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
// On the bench with a fresh build k6 saw the bucket admit again 2.17 to 2.34 s after its first
// refusal (here sooner) and dropped 465 to 470 arrivals: the busy machine's k6 below.
// The windows row is not here: as k6 runs it, its first round runs past the minute's second edge
// (every VU waiting out the minute's Retry-After, no 429 counted toward the cut until that edge) and
// its second round waits a minute for the edge after: 2 rounds, 300.5 virtual s against 270.
describe('the bench rows as k6 runs them, on the virtual clock', () => {
  it.each(STACKS.slice(0, 2))(
    '%s: two rounds, the failed one identifying the set, within the time budget',
    async (_name, truth) => {
      await identifiedInTwoRounds(truth, await sizeTimed(truth, true));
    },
    120_000,
  );
});

/** The set identified within 2 %, shown and recommended as issue 35 asks, from one failed round and one held, within the time budget. */
async function identifiedInTwoRounds(truth: LimiterSet, sized: Awaited<ReturnType<typeof sizeTimed>>) {
  const { estimate, outcome, rounds, endS, identified } = sized;
  const trueRps = sustainedRate(truth);
  const context = JSON.stringify({ rounds, endS, probeS: estimate.duration_s, identified });
  if (!identified || !('set' in identified)) throw new Error(`not identified: ${context}`);
  expect(identified.set.map((m) => m.kind)).toEqual(truth.map((m) => m.kind));
  expect(Math.abs(identified.sustained_rps - trueRps) / trueRps, context).toBeLessThanOrEqual(0.02);
  // What the report shows is the set identified or what held, never a refuted figure.
  const shown = withoutRefuted(estimate, outcome.rounds, identified).sustained_rps!;
  expect(Math.abs(shown - trueRps) / trueRps, context).toBeLessThanOrEqual(0.02);
  const given = outcome.proven!.target_rps;
  expect(given, context).toBeGreaterThanOrEqual(0.75 * trueRps);
  expect(given, context).toBeLessThanOrEqual(trueRps);
  const held = rounds.find((r) => r.rps === given);
  expect(held, context).toMatchObject({ verdict: 'holds' });
  expect(held!.ranS, context).toBeGreaterThanOrEqual(Math.max(HORIZON_S, twoSpans(truth)));
  expect(
    rounds.map((r) => r.verdict),
    context,
  ).toEqual(['fails', 'holds']);
  expect(endS, context).toBeLessThanOrEqual(BUDGET_S);
}

// The bench's bucket row as a busy machine's k6 ran it (29 Nov, fresh build): its first round at 23
// req/s lost 434 calls whose retries ran out, dropped 465 arrivals and saw the limit let a call
// through again 2.17 s after its first refusal. A bucket was then refuted (k6 saw its readmission
// past the 2 s allowed) and a window of 1091 per 60 s claimed (the count bound from one side only
// where arrivals were dropped): 18.18 req/s, refuted by round 2 at 16 req/s, then nothing explained
// the rounds; not identified, 8.4 req/s recommended, 4 rounds, 543 s.
describe("the bucket row as a busy machine's k6 runs it", () => {
  it.each([35, 7, 1])(
    'seed %i: the first round loses calls, drops arrivals and sees the readmission 2 s late; both buckets identified within 2 %, recommended within 75–100 %, in two rounds',
    async (seed) => {
      const truth = STACKS[0]![1];
      const sized = await sizeTimed(truth, { poolS: 2, oversleepS: 1 }, seed);
      // The first round as the bench's: calls lost, arrivals dropped, the readmission seen late.
      const [first] = sized.rounds;
      const context = JSON.stringify(first);
      expect(first!.lost, context).toBeGreaterThan(200);
      expect(first!.dropped, context).toBeGreaterThan(200);
      expect(first!.admittedAgainS! - first!.refusalsBeganS!, context).toBeGreaterThanOrEqual(2);
      await identifiedInTwoRounds(truth, sized);
    },
    120_000,
  );
});

// The bench's silent windows row (30 per 1 s, 600 per 60 s, both counting the admitted alone), each
// round as k6 runs it, the wall clock given and the minute on its edges. Round 1 at 24 req/s ends
// with k6's calls still retrying; the replay sends them all into the next minute (72 at most, the
// VUs k6 holds; k6 got far fewer through, many out of budget), which fills it for the reading
// counting the admitted alone (598 per 60 s) more than for its twin counting every request (625:
// its round-1 minute spent by the tail's refused retries too). Before (all of these claimed 625 per
// 60 s counting every request, 10.42 req/s for 10, 4.2 % high; on the bench the same shape read
// 616, 10.27 req/s, 30 Nov):
// - round 2 at 10 req/s from that minute's edge held without a 429, and 598 per 60 s, refusing 33
//   to 39 of its arrivals there in the replay, was dropped as refusing in a quiet round (refusesInQuiet);
// - round 2 began in a minute k6's real retries had filled and was refused after 1.4 to 2.9 s (or at
//   58 s), and the replay, with all 72, refuted 598 by its count or timing, not 625.
describe('the silent windows row as k6 runs it, the clock known: no figure above the truth', () => {
  it.each([
    [50, 35],
    [50, 7],
    [51, 1],
    [42, 7],
    [43, 7],
    [36, 1],
  ])(
    'the minute turning %i s into the probe, seed %i: a claim within 2 % or none, never one above it',
    async (phase_s, seed) => {
      const truth: LimiterSet = [
        { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
        { kind: 'fixed-window', limit: 600, window_s: 60, phase_s, counts_refused: false },
      ];
      // The wall clock's minute turns where the truth's does, as the emulator's (clock-aligned) windows.
      const { outcome, rounds, identified } = await sizeTimed(truth, true, seed, (60 - phase_s) % 60);
      const trueRps = sustainedRate(truth);
      const context = JSON.stringify({ rounds, identified });
      if (identified && 'set' in identified)
        expect(Math.abs(identified.sustained_rps - trueRps) / trueRps, context).toBeLessThanOrEqual(0.02);
      if (identified && 'why' in identified && identified.spanRps)
        expect(identified.spanRps.low, context).toBeLessThanOrEqual(trueRps * 1.02);
      const given = outcome.proven?.target_rps;
      if (given !== undefined) expect(given, context).toBeLessThanOrEqual(trueRps);
    },
    120_000,
  );
});

// The bench's silent windows row as it really met the probe (30 Nov): the emulator's windows on the
// wall clock's seconds and minutes, the probe begun a fraction of a second past one (7.4 s past the
// minute). The detectors place the 1 s window's edges on Unix time; replayed as they were on the
// probe's clock, from 0, they fell 0.4 s off, the replay let through 303 of the probe's requests
// where the limit let 363, the window of 600 counting the admitted alone was fitted at 540 and
// refuted, and its twin counting every request was claimed (the bench: 619 per 60 s, 10.32 req/s;
// here 622 to 633, 10.37 to 10.55 req/s, at every start below but 45.9). And a round refused 0.7 s
// before the minute's edge, seen let through again 2.05 s after (seed 35), refuted the true window by
// k6's figure read as an edge every VU waited at: 9 req/s shown.
describe("the silent windows row begun a fraction of a second past the wall clock's, as k6 runs it", () => {
  it.each([
    [7.4, 7],
    [7.4, 35],
    [7.1, 1],
    [7.7, 1],
    [20.25, 7],
    [45.9, 1],
  ])(
    'the probe begun %f s past the minute, seed %i: the figure shown within 2 %, no claim above it, recommended within 75–100 %',
    async (startS, seed) => {
      const onWallClock = (windowS: number) => Math.round((((-startS % windowS) + windowS) % windowS) * 1000) / 1000;
      const truth: LimiterSet = [
        { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: onWallClock(1), counts_refused: false },
        { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: onWallClock(60), counts_refused: false },
      ];
      const sized = await sizeTimed(truth, true, seed, startS, startS * 1000);
      const { rounds, identified } = sized;
      const context = JSON.stringify({ rounds, identified });
      expectSized(truth, sized, context);
      if (identified && 'why' in identified && identified.spanRps)
        expect(identified.spanRps.low, context).toBeLessThanOrEqual(sustainedRate(truth) * 1.02);
    },
    120_000,
  );
});

// A minute's window met a fraction of a second before its edge: few VUs are refused by then, each
// waits out its Retry-After (1 s) and a jitter up to the backoff's base (4 s), and k6 sees the edge
// let a call through again up to ~5 s after the first refusal. 50 per 1 s and 1000 per 60 s, begun
// on the minute: round 2 at 16.9 req/s refused 0.33 s before the edge and seen let through again
// 3.07 s after its first refusal; the true window was refuted (stacked-inference.ts edgeSeenByS),
// nothing else explained, and 13 req/s held and was shown for 16.67.
describe("a minute's window met just before its edge, as k6 runs it", () => {
  it.each([0, 13])(
    '50 per 1 s and 1000 per 60 s, the probe begun %i s past the minute: the figure shown within 2 %, recommended within 75–100 %',
    async (startS) => {
      const truth: LimiterSet = [
        { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false },
        { kind: 'fixed-window', limit: 1000, window_s: 60, phase_s: (60 - startS) % 60, counts_refused: false },
      ];
      const sized = await sizeTimed(truth, true, 35, startS, startS * 1000);
      const { rounds, identified } = sized;
      expectSized(truth, sized, JSON.stringify({ rounds, identified }));
    },
    120_000,
  );
});
