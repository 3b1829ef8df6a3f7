// A proof round cut on the arrivals k6 dropped (scenarios/rate-limit.ts, prove.ts): the threshold
// it is cut at breaks the promise of the whole round, and a cut k6's own count does not bear out
// leaves no figures, so no round cut short can stand as a hold.

import { describe, expect, it } from 'vitest';
import { PROOF_PROMISE, proofHolds } from '../../src/ratelimit/proof-loop.js';
import { dropCutUnborne, droppedBreaking, proofOfRun } from '../../src/ratelimit/prove.js';
import { SEARCH_CUT } from '../../src/ratelimit/search-loop.js';
import type { LoadScenarioResult } from '../../src/report/model.js';
import { loadScenario } from '../helpers/load-scenario.js';
import { policy, roundInputs } from '../helpers/proof-inputs.js';

const rec = policy(24, 250, 4);

const inputs = roundInputs(rec, { cut: { afterRefusalsS: 65, atOnceAfterS: 5 } });

const cutRun = (dropped: number, dropThresholdCrossed = true): LoadScenarioResult =>
  loadScenario({
    scenario: 'rate-limit',
    thresholds: [
      { metric: 'proof_refusals_past_cut', expression: 'count<59', ok: true },
      { metric: 'proof_dropped_past_cut', expression: `value<=${inputs.cut!.maxDropped}`, ok: !dropThresholdCrossed },
    ],
    dropped_iterations: dropped,
    extra: { proof_refusals_past_cut: 3, refusals_began_s: 11, arrivals_s: 80 },
  });

describe('a proof round cut on its dropped arrivals', () => {
  it('is cut only past more drops than the promise allows of the whole round, and a second of arrivals', () => {
    // 24 req/s for 120 s: 2880 arrivals, 28 of them may drop; 24 more for an iteration begun late.
    expect(inputs.cut!.maxDropped).toBe(droppedBreaking(2880, 24));
    expect(droppedBreaking(2880, 24)).toBe(28 + 24 + 1);
    // Any count past it breaks the round's promise, whatever the rest of the round does.
    const dropped = droppedBreaking(2880, 24) + 1;
    const verdict = proofHolds({
      rate_429: 0,
      goodput_rps: 20,
      lost_requests: 0,
      refusals_began_s: 11,
      dropped_arrivals: dropped,
      arrivals: 2880,
    });
    expect(verdict.holds).toBe(false);
    expect(dropped).toBeGreaterThan(PROOF_PROMISE.max_dropped * 2880);
  });

  it("keeps its figures when k6's own count bears the cut out, and has none when it does not", () => {
    expect(dropCutUnborne(cutRun(400), inputs)).toBeNull();
    // The reckoning ran ahead of k6's count (28.8 allowed of 2880): no figures, so no hold.
    expect(dropCutUnborne(cutRun(20), inputs)).toMatch(/does not bear out/);
    // Not cut on drops: nothing to bear out.
    expect(dropCutUnborne(cutRun(20, false), inputs)).toBeNull();
  });

  // The real run of 2 Dec (Flask-Limiter's moving windows): a 2.8 req/s scout cut after 10 s,
  // refused from 9.3 s, its calls waiting out the minute's Retry-After 23 s more, while k6 went on
  // scheduling arrivals and dropping them: "59 of its 28 arrivals dropped".
  it('counts no more arrivals dropped than the seconds it is cut to hold, and says no more', () => {
    const scout = { ...rec, target_rps: 2.8, max_concurrency: 1 };
    const scoutInputs = roundInputs(scout, { cut: SEARCH_CUT, durationS: 31 });
    const run = (dropped: number, ok: number) =>
      proofOfRun(
        loadScenario({
          scenario: 'rate-limit',
          requests: 32,
          thresholds: [{ metric: 'proof_refusals_past_cut', expression: 'count<1', ok: false }],
          dropped_iterations: dropped,
          extra: {
            proof_refusals_past_cut: 2,
            refusals_began_s: 9.3,
            arrivals_s: 9.64,
            logical_calls_ok: ok,
            logical_calls_lost: 0,
          },
        }),
        scoutInputs,
      );
    const cut = run(59, 28);
    expect(cut.proof).toMatchObject({ cut_at_s: 10, arrivals: 28 });
    expect(cut.proof!.dropped_arrivals).toBeUndefined();
    expect(proofHolds(cut.proof!).why).not.toMatch(/dropped/);
    expect(cut.notes.join(' ')).not.toMatch(/dropped/);
    // Calls that ended fewer than the arrivals: the rest may have been dropped, never more.
    const fewer = run(59, 20);
    expect(fewer.proof!.dropped_arrivals).toBe(8);
    expect(fewer.notes.join(' ')).toMatch(/dropped 8 of 28 arrivals/);
    // A round that ran its whole length keeps k6's own count.
    const whole = proofOfRun(
      loadScenario({ scenario: 'rate-limit', requests: 80, dropped_iterations: 7, extra: { logical_calls_ok: 80 } }),
      scoutInputs,
    );
    expect(whole.proof!.dropped_arrivals).toBe(7);
  });

  // CI 53b: a round paced at 51 req/s with 6 calls at once, across 50 ± 10 ms, dropped 16 of its
  // 255 arrivals with no refusal; its hold proves what it sent (refuted.ts heldAtRps).
  it('says whose calls were all busy when it dropped arrivals with no refusal: the policy held to its concurrency, or k6', () => {
    const whole = (maxCalls?: number) =>
      proofOfRun(
        loadScenario({
          scenario: 'rate-limit',
          requests: 239,
          dropped_iterations: 16,
          extra: { logical_calls_ok: 239 },
        }),
        { ...roundInputs({ ...rec, target_rps: 51 }, { durationS: 5 }), ...(maxCalls ? { maxCalls } : {}) },
      );
    const capped = whole(6);
    expect(capped.proof).toMatchObject({ dropped_arrivals: 16, arrivals: 255 });
    expect(capped.notes).toContain(
      'proof run: k6 dropped 16 of 255 arrivals with all 6 calls the policy allows at once busy (its concurrency at the latency met, not the service): it sent less than its rate',
    );
    expect(whole().notes).toContain(
      'proof run: k6 dropped 16 of 255 arrivals it had no VU for (the load generator, not the service)',
    );
  });
});
