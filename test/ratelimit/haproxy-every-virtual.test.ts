// HAProxy's usual recipe, every request tracked (refused ones counted), as the bench's real-stack
// row runs it: http_req_rate(1s) 30 and http_req_rate(60s) 600, true sustained rate 10 req/s (issue
// 35 item 4: the rate a client relies on is the highest paced rate that held over the horizon; the
// identifier's sets only bracket it). The probe (discover) and the proof rounds on the virtual
// clock; each round as k6 runs it against HAProxy, which sends no Retry-After (its calls wait their
// backoff's jitter), the stage's calls at once holding their waits (the limit counts refusals).

import { describe, expect, it } from 'vitest';
import { edgelessBehind, proofHolds, proveUntilHeld, type Identified } from '../../src/ratelimit/proof-loop.js';
import { cutAfterRefusalsS } from '../../src/ratelimit/prove.js';
import { bindingRps, proofConcurrency, recommend, waitsHoldConcurrency } from '../../src/ratelimit/recommend.js';
import { refutingRounds, withoutRefuted } from '../../src/ratelimit/refuted.js';
import { replayTimeline, stackTracker, type StackVerdict } from '../../src/ratelimit/stacked-inference.js';
import type { ProofRound } from '../../src/report/model.js';
import { describeLimiter, sustainedRate, type LimiterSet } from '../../src/ratelimit/limiters/index.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';
import { k6EndedS, virtualK6Round } from './virtual-proof.js';
import { seeded } from './seeded.js';

const HORIZON_S = 120;
/** The stage's settle after a drained 30 per second (proof-timing.ts). */
const SETTLE_S = 2;
const every = (limit: number, period_s: number) =>
  ({ kind: 'sliding-window', limit, period_s, counts_refused: true, counter: 'interpolated' }) as const;
const TABLES: LimiterSet = [every(30, 1), every(600, 60)];
const TRUE_RPS = sustainedRate(TABLES);
/** Issue 35: a row's time within about 2.5 of its longest window plus the proof horizon. */
const BUDGET_S = 2.5 * 60 + HORIZON_S;
/** The round that meets the second window's quota and the rest after it: a round over the horizon and a minute and a bit. */
const QUOTA_ROUND_S = HORIZON_S + 70;

/**
 * The probe, then the proof loop with each round run as k6 runs it, placed as the stage places it.
 * `identifiedRps`: the inference's verdict, when the test fixes it; else the stage's own tracker.
 */
async function sized(seed: number, fixed?: (rounds: readonly ProofRound[]) => StackVerdict, maxRounds?: number) {
  const limiter = fromModel(TABLES);
  const estimate = await discoverVirtual({ limiter: () => limiter, status: 429 }, { maxDurationS: 150 });
  const stack = stackTracker(estimate.limiter, replayTimeline(estimate), HORIZON_S / 2, 0);
  const random = seeded(seed);
  let nowS = estimate.duration_s;
  const verdictOf = (rounds: readonly ProofRound[]) => (fixed ? fixed(rounds) : stack.verdict());
  const outcome = await proveUntilHeld(
    recommend(estimate)!,
    bindingRps(estimate)!,
    async (rec, { durationS = HORIZON_S, cut }) => {
      const startS = nowS + Math.max(SETTLE_S, stack.restS(nowS));
      const calls = waitsHoldConcurrency(estimate.limiter) ? proofConcurrency(rec) : Math.ceil(rec.target_rps * 3);
      const proof = virtualK6Round(limiter, rec, calls, startS, durationS, random, cut, 0, true);
      const ranS = proof.cut_at_s ?? durationS;
      stack.ran({
        rps: rec.target_rps,
        startS,
        durationS: ranS,
        tailS: proof.cut_at_s === undefined ? rec.retry_budget_s : 0,
        retryBudgetS: rec.retry_budget_s,
        startMeasured: true,
      });
      nowS = startS + k6EndedS(proof, ranS);
      return proof;
    },
    {
      identifiedRps: fixed ? (rounds) => identifiedOf(fixed(rounds)) : stack.identifiedRps,
      cutAfterRefusalsS: cutAfterRefusalsS(HORIZON_S / 2),
      edgeless: edgelessBehind(estimate.limiter),
      standing: (rounds) => withoutRefuted(estimate, rounds, verdictOf(rounds)),
      ...(maxRounds !== undefined ? { maxRounds } : {}),
    },
  );
  return { estimate, outcome, verdict: verdictOf(outcome.rounds), endS: nowS };
}

/** The proof loop's view of a verdict (stacked-inference.ts stackTracker's identifiedRps). */
const identifiedOf = (v: StackVerdict): Identified =>
  v === null ? null : 'set' in v ? v.sustained_rps : (v.spanRps ?? null);

/** What issue 35 asks of the policy given and of the report beside it. */
function expectSound(estimate: Estimate, { outcome, verdict }: Awaited<ReturnType<typeof sized>>, context: string) {
  const given = outcome.proven?.target_rps;
  expect(given, context).toBeDefined();
  // Between 75 % and 100 % of the true sustained rate.
  expect(given!, context).toBeGreaterThanOrEqual(0.75 * TRUE_RPS);
  expect(given!, context).toBeLessThanOrEqual(TRUE_RPS);
  // Never at or above a rate a round refuted, nor above any limit announced and not proven.
  for (const failed of outcome.rounds.filter((r) => r.verdict === 'fails'))
    expect(given!, context).toBeLessThan(failed.target_rps);
  expect(given!, context).toBeLessThanOrEqual(bindingRps(estimate)!);
  // Held by a round over the whole horizon, at its rate or above.
  const proof = outcome.provenProof!;
  expect(proofHolds(proof).holds, context).toBe(true);
  expect(proof.cut_at_s, context).toBeUndefined();
  expect(
    outcome.rounds.some((r) => r.verdict === 'holds' && r.target_rps >= given!),
    context,
  ).toBe(true);
  // The headline is what held: the highest hold, or a set identified that agrees with it.
  const highestHold = Math.max(...outcome.rounds.filter((r) => r.verdict === 'holds').map((r) => r.target_rps));
  const shownRps = withoutRefuted(estimate, outcome.rounds, verdict).sustained_rps;
  if (verdict && 'set' in verdict) expect(verdict.sustained_rps, context).toBeGreaterThanOrEqual(highestHold);
  else expect(shownRps, context).toBe(highestHold);
  // No note bounds every hold below the headline (a quota's after-rate, which the sets explain).
  for (const n of withoutRefuted(estimate, outcome.rounds, verdict).notes) {
    const bound = /let ([\d.]+) req\/s through, the rate a client running longer meets/.exec(n)?.[1];
    if (bound !== undefined && shownRps !== null) expect(Number(bound), n).toBeGreaterThanOrEqual(shownRps);
  }
  // The report carries no refuted figure: no headline, limiter or note at or above a rate refused.
  const refused = Math.min(...refutingRounds(outcome.rounds).map((r) => r.target_rps));
  const shown = withoutRefuted(estimate, outcome.rounds, verdict);
  if (shown.sustained_rps !== null) expect(shown.sustained_rps, context).toBeLessThan(refused);
  if (shown.limiter) expect(sustainedRate(shown.limiter), context).toBeLessThan(refused);
  if (estimate.limiter && sustainedRate(estimate.limiter) >= refused) {
    // Refuted is the reading as the limiter alone: the same limit named beside another, in a set
    // identified from all the evidence, is that set's member, not the refuted claim.
    const read = describeLimiter(estimate.limiter);
    const alone = (text: string) => text.replaceAll(`${read} and `, '').replaceAll(` and ${read}`, '');
    expect(alone([...shown.notes, ...(shown.limiter_evidence ?? [])].join('\n')), context).not.toContain(read);
    expect(alone(outcome.proven!.why.join('\n')), context).not.toContain(read);
  }
}

describe("HAProxy's 1 s and 60 s tables, every request counted, on the virtual clock", () => {
  // The bench (quiet, 30 Nov): sets from 9.27 to 10.13 req/s explained the rounds, a round between
  // them held over the horizon, and the policy given was 7.4 req/s, 74 % of 10: the loop gave only
  // rates below the lowest set's, so the hold was thrown away and a round 20 % below that was run.
  it('sets from 9.27 to 10.13 req/s after round 1: the round between them that held is what the client relies on, given within 75–100 %, in two rounds', async () => {
    const sized_ = await sized(35, (rounds) =>
      rounds.some((r) => r.verdict === 'fails')
        ? { why: 'sets sustaining 9.27 to 10.13 req/s all explain every round', spanRps: { low: 9.27, high: 10.13 } }
        : null,
    );
    const context = JSON.stringify(sized_.outcome.rounds.map((r) => [r.target_rps, r.verdict, r.cut_at_s]));
    expectSound(sized_.estimate, sized_, context);
    expect(
      sized_.outcome.rounds.map((r) => r.verdict),
      context,
    ).toEqual(['fails', 'holds']);
    // The probe, round 1 cut short and round 2 over the horizon, within 2.5 of the minute and the
    // horizon (before: two rounds more, 507.7 virtual s).
    expect(sized_.endS, context).toBeLessThanOrEqual(BUDGET_S);
  }, 120_000);

  it.each([1, 5, 35])(
    "seed %i, the stage's own inference: the policy within 75–100 %, below every refuted rate, no refuted figure reported, round 1 cut at once",
    async (seed) => {
      const sized_ = await sized(seed);
      const context = JSON.stringify({
        rounds: sized_.outcome.rounds.map((r) => [r.target_rps, r.verdict, r.cut_at_s]),
        endS: sized_.endS,
      });
      expectSound(sized_.estimate, sized_, context);
      // A set identified is within 2 % of the truth.
      const { verdict } = sized_;
      if (verdict && 'set' in verdict)
        expect(Math.abs(verdict.sustained_rps - TRUE_RPS) / TRUE_RPS, context).toBeLessThanOrEqual(0.02);
      // Issue 35's time budget (2.5 of the longest window and the horizon, 270 s) is not met here:
      // fixed windows placed at round 1's readmission explain every round until one meets the
      // quota, and that round and its rest cost ~185 s (docs/development/rate-limit-research.md).
      // What is held: round 1, refused from its start, is cut at once (edgelessBehind), not run
      // 84-88 s waiting for an edge such a window never has (before: 515-519 virtual s, now 449-451).
      expect(sized_.endS, context).toBeLessThanOrEqual(BUDGET_S + QUOTA_ROUND_S);
    },
    120_000,
  );

  // Round 1 begins 2 s after the probe, on a minute its refused requests filled, and is refused from
  // its start: the 60 s table's quota is read from no count. Fixed windows with edges where k6 saw a
  // call let through again explained it (426 to 490 per 60 s, 7.1 to 8.17 req/s) and were taken for
  // the bound, so a hold at 7.6 was given as 7.3 (seed 5). The window HAProxy's recipe implies, and
  // the true one, stands beside them until a round meets its quota.
  it.each([1, 5, 35])(
    'seed %i, round 1 refused from its start on the minute the probe filled: the inference bounds the limit no lower than the true 10 req/s',
    async (seed) => {
      const { outcome, verdict } = await sized(seed, undefined, 1);
      const context = JSON.stringify({
        rounds: outcome.rounds.map((r) => [r.target_rps, r.verdict, r.refusals_began_s]),
        verdict,
      });
      expect(
        outcome.rounds.map((r) => [r.verdict, r.refusals_began_s]),
        context,
      ).toEqual([['fails', 0]]);
      expect(verdict !== null && 'set' in verdict, context).toBe(false);
      expect(identifiedOf(verdict), context).not.toBeNull();
      expect((identifiedOf(verdict) as { high: number }).high, context).toBeGreaterThanOrEqual(TRUE_RPS);
    },
    120_000,
  );
});
