// Issue 35 item 2: three policies announced as an IETF list, "second";q=30;w=1, "minute";q=600;w=60,
// "hour";q=20000;w=3600, and enforced so (the emulator's limiter set and RateLimit headers, on the
// virtual clock). Under `ratelimit`'s defaults the report says what was verified within the horizon
// (the second measured, the minute verified), what is announced, not proven (the hour, longer than
// the horizon: "not tested", with the flag that tests it), and its headline is the lowest rate that
// binds: the hour's 5.56 req/s, labelled announced, never the minute's 10 as measured.

import { expect, it } from 'vitest';
import { describeLimiter, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { DEFAULT_HORIZON_S, longestKnownWindow, probeBudgetS, proofHorizon } from '../../src/ratelimit/horizon.js';
import { proveUntilHeld } from '../../src/ratelimit/proof-loop.js';
import { bindingRps, recommend } from '../../src/ratelimit/recommend.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { advertising, discoverVirtual } from './virtual-limit.js';
import { virtualProofRound } from './virtual-proof.js';

const THREE: LimiterSet = [
  { kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false },
  { kind: 'fixed-window', limit: 600, window_s: 60, phase_s: 23, counts_refused: false },
  { kind: 'fixed-window', limit: 20000, window_s: 3600, phase_s: 1000, counts_refused: false },
];

it('second, minute and hour announced: two verified within the horizon, the hour not tested, headline its 5.56 req/s', async () => {
  const limiter = advertising(THREE);
  const estimate = await discoverVirtual(
    { limiter: () => limiter, status: 429 },
    { maxDurationS: probeBudgetS(DEFAULT_HORIZON_S) },
  );
  const context = JSON.stringify({ ...estimate, timeline: undefined }, null, 1);
  expect(estimate.partial, context).toBe(false);
  // Verified within the probe: the second measured, the minute's quota met and its edge timed.
  expect(describeLimiter(estimate.limiters as unknown as LimiterSet), context).toMatch(
    /^fixed window 30 per 1 s and fixed window 60\d per 60 s$/,
  );
  const policy = (windowS: number) => estimate.announced?.find((a) => a.window_s === windowS);
  expect(policy(1), context).toMatchObject({ limit: 30, agrees: true });
  expect(policy(60), context).toMatchObject({ limit: 600, agrees: true, note: expect.stringMatching(/^verified: /) });
  // The hour: announced, not proven, with what the probe would need, and the judge's reading of it.
  expect(policy(3600), context).toMatchObject({ limit: 20000, agrees: null });
  expect(policy(3600)!.note, context).toMatch(
    /^announced, not proven: .*verifying it takes up to \d+ s of probing, the probe's budget is 150 s; no setting reaches it: --horizon 3600, the most/,
  );
  expect(policy(3600)!.note, context).toMatch(/contradicts nothing; the probe let at most \d+ through/);

  // The proof, on the same limiter, as the stage runs it over the default horizon.
  let nowS = estimate.duration_s;
  const outcome = await proveUntilHeld(recommend(estimate)!, bindingRps(estimate)!, async (rec, { durationS }) => {
    const proof = virtualProofRound(limiter, rec.target_rps, nowS + 2, durationS ?? DEFAULT_HORIZON_S);
    nowS += 2 + (durationS ?? DEFAULT_HORIZON_S);
    return proof;
  });
  const horizon = proofHorizon(DEFAULT_HORIZON_S, longestKnownWindow(estimate), undefined, estimate.announced);
  const result = toRateLimitResult(estimate, outcome.proven ?? null, outcome.provenProof ?? null, [], {
    verdict: outcome.proven ? 'proven' : 'not proven',
    rounds: outcome.rounds,
    horizon,
  });
  // The headline: the lowest rate that binds, the hour's, labelled as announced.
  expect(result.sustained_rps, context).toBe(5.56);
  expect(result.sustained_announced, context).toMatchObject({ limit: 20000, window_s: 3600, agrees: null });
  expect(result.recommendation!.target_rps, context).toBeLessThanOrEqual(5.56);
  expect(result.proof_verdict, context).toBe('proven');
  // Within the horizon the minute is covered; the hour is not tested, and how to test it is said.
  expect(result.proof_horizon, context).toMatchObject({ proven_s: 120, covers_window_s: 60, longest_window_s: 60 });
  expect(result.proof_horizon!.not_tested, context).toMatch(
    /^the announced 20000 per 3600 s \(RateLimit-Policy, not proven\) is on a window longer than the proof covers; no --horizon tests it/,
  );
  const text = summaryLines(result).join('\n');
  expect(text).toMatch(/sustained 5\.56 req\/s \(announced, not proven: 20,000 per 3,600 s/);
  expect(text).toMatch(/limiter: fixed window 30 per 1 s and fixed window 60\d per 60 s/);
});
