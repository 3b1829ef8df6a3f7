// A proof round that fits in the burst proves nothing (src/ratelimit/proof-reach.ts): a bucket of
// burst 600 refilled at 10/s, read by the probe as 60/s, lets a 5 s round at 50 req/s (250
// requests) through whole. That hold used to make 50 req/s "proven", five times the true rate.
// Now such a round is inconclusive: `ratelimit` lengthens it until it outlasts the burst, and
// `run`'s short rounds end "not proven within horizon", which fails nothing and is said in every
// format. The rounds run against a true bucket in virtual time, as k6 paced at the rate would.

import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/ratelimit/limiters/index.js';
import { proveUntilHeld, type RoundToRun } from '../../src/ratelimit/proof-loop.js';
import { afterQuota } from '../../src/ratelimit/prove.js';
import { planRound, provingVerdict, unprovenBy, type ProofReach } from '../../src/ratelimit/proof-reach.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { proofHorizon } from '../../src/ratelimit/horizon.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import type { Estimate, Proof, Recommendation } from '../../src/ratelimit/types.js';
import { renderers, type ReportFile } from '../../src/report/index.js';
import { exitCodeOf, verdictReasonsOf, type Untested } from '../../src/report/model.js';
import { closingCount } from '../../src/cli/closing-count.js';
import { plainText, summaryLines as closingLines } from '../../src/cli/terminal.js';
import { unprovenText } from '../../src/report/sections/rate-limit/words.js';
import { loadFixture } from '../report/helpers.js';
import { expectValidReport } from '../report/schema.js';

const TRUE = { rate_rps: 10, burst: 600 };
const SETTLE_S = 30;

// What the probe read: the burst right, the rate six times too high (a misread, as issue 35's were).
const MISREAD: Estimate = {
  endpoint: 'tokens.validate',
  limiting_status: 429,
  sustained_rps: 60,
  sustained_precision: 0.01,
  burst: 600,
  burst_from_idle: true,
  recovery_s: 0.1,
  refill_s: 10,
  retry_after_header: 'absent',
  retry_after_max_s: null,
  scope: 'unknown',
  latency_p95_ms: 3,
  requests_sent: 1400,
  requests_limited: 200,
  duration_s: 20,
  timeline: [],
  limiter: { kind: 'bucket', rate_rps: 60, burst: 600 },
  limiter_evidence: ['read as a token bucket 60 req/s, burst 600'],
  notes: [],
  partial: false,
};

/**
 * k6 at the policy's rate against the true bucket, each round after the settle: the probe left it
 * drained at t = 0. No retries: a refused call counts against the promise as a 429.
 */
function trueBucket() {
  const limiter = createLimiter({ kind: 'bucket', ...TRUE });
  let nowMs = 0;
  while (limiter.take(nowMs).ok);
  const durations: number[] = [];
  const run = async (rec: Recommendation, { durationS = 5 }: RoundToRun): Promise<Proof> => {
    durations.push(durationS);
    nowMs += SETTLE_S * 1000;
    const sent = Math.round(rec.target_rps * durationS);
    let ok = 0;
    let began: number | undefined;
    for (let i = 0; i < sent; i++) {
      if (limiter.take(nowMs + (i * 1000) / rec.target_rps).ok) ok++;
      else began ??= i / rec.target_rps;
    }
    nowMs += durationS * 1000;
    return {
      rate_429: Math.round(((sent - ok) / sent) * 1e4) / 1e4,
      goodput_rps: Math.round((ok / durationS) * 100) / 100,
      lost_requests: 0,
      ...(began !== undefined ? { refusals_began_s: began } : {}),
      // What the limit let through once refusals began, as prove() reads it from k6's figures.
      ...afterQuota(ok, began, rec.target_rps, durationS),
    };
  };
  return { run, durations };
}

const reachOf = (roundS: number, maxRoundS: number): ProofReach => ({
  burst: MISREAD.burst,
  roundS,
  maxRoundS,
  settleS: SETTLE_S,
  refillRps: MISREAD.sustained_rps,
});

const first = (): Recommendation => ({ ...recommend(MISREAD)!, target_rps: 50 });

describe('a round within the burst proves nothing', () => {
  it('used to prove 50 req/s against a limit of 10/s; now it is inconclusive, not a hold', async () => {
    // Without the rule: the 5 s round at 50 req/s held on the burst, and 50 req/s was "proven".
    const before = await proveUntilHeld(first(), 60, trueBucket().run);
    expect(before.proven?.target_rps).toBe(50);

    const bucket = trueBucket();
    const outcome = await proveUntilHeld(first(), 60, bucket.run, { reach: reachOf(5, 5) });
    expect(outcome.proven).toBeNull();
    expect(outcome.rounds).toHaveLength(1);
    expect(outcome.rounds[0]).toMatchObject({ target_rps: 50, rate_429: 0, verdict: 'inconclusive' });
    expect(outcome.rounds[0]!.why).toMatch(/its 250 requests fit in the burst of 600 it started with/);
    // A burst of 600 needs 1.2 × 600 / 50 = 15 s at 50 req/s.
    expect(outcome.unproven?.why).toEqual({ target_rps: 50, round_s: 5, burst: 600, needed_horizon_s: 15 });
  });

  it('`ratelimit` lengthens the round until it outlasts the burst: no rate above the true one is proven', async () => {
    const bucket = trueBucket();
    const outcome = await proveUntilHeld(first(), 60, bucket.run, { reach: reachOf(5, 150) });
    // The first round ran 15 s, not 5, and the limit refused it.
    expect(bucket.durations[0]).toBe(15);
    expect(outcome.rounds[0]).toMatchObject({ target_rps: 50, verdict: 'fails' });
    // Every hold offered more than the burst; whatever the loop gives is at or below the true rate.
    for (const [i, r] of outcome.rounds.entries())
      if (r.verdict === 'holds') expect(r.target_rps * bucket.durations[i]!).toBeGreaterThan(TRUE.burst);
    expect(outcome.proven === null || outcome.proven.target_rps <= TRUE.rate_rps, JSON.stringify(outcome.rounds)).toBe(
      true,
    );
  });

  it('counts what the wait did not refill: a drained burst refilled for 5 s at 60/s starts a round with 300', () => {
    const reach = { ...reachOf(5, 5), settleS: 5 };
    // What to ask for is sized on the whole burst, as `ratelimit`'s longer wait refills it: 1.2 × 600 / 50.
    expect(unprovenBy(first(), planRound(50, reach, true), reach).needed_horizon_s).toBe(15);
    expect(planRound(50, reach, true)).toMatchObject({ startBurst: 300, neededS: 8, reaches: false });
    // After a round that held, the burst is taken as whole (never a hold it was not).
    expect(planRound(50, reach, false)).toMatchObject({ startBurst: 600, neededS: 15 });
    // Beyond the cap the round keeps its asked length: longer, it would still prove nothing.
    expect(planRound(0.5, reachOf(5, 150), false)).toMatchObject({ durationS: 5, neededS: 1440, reaches: false });
    // A burst not measured from idle is a lower bound: after a drained limit the round is bounded by
    // what the wait refilled (5 s at 60/s), after a hold by nothing, so no length reaches past it.
    const notIdle = { ...reach, burst: 133, burstFromIdle: false };
    expect(planRound(50, notIdle, true)).toMatchObject({ startBurst: 300, neededS: 8, reaches: false });
    expect(planRound(500, notIdle, false)).toMatchObject({ durationS: 5, reaches: false });
    expect(unprovenBy(first(), planRound(50, notIdle, false), notIdle)).toEqual({
      target_rps: 50,
      round_s: 5,
      burst: 133,
      needed_horizon_s: 4,
      burst_from_idle: false,
    });
    // No burst measured: nothing to outlast, every round can prove.
    expect(planRound(50, { ...reach, burst: null }, true)).toMatchObject({ durationS: 5, reaches: true });
    // A burst not measured and no round from idle (run's short probe on a limit its checks spent):
    // unknown, not none. After a drain bounded by the refill, after a hold unbounded: a round
    // climbing above a hold cannot prove a rate its full burst alone would let through.
    const unknown = { ...reach, burst: null, burstFromIdle: false };
    expect(planRound(50, unknown, true)).toMatchObject({ startBurst: 300, reaches: false });
    expect(planRound(50, unknown, false)).toMatchObject({ durationS: 5, reaches: false });
  });
});

describe("`run`'s short rounds against a large burst: not proven within horizon, and not a failure", () => {
  async function runStyleReport() {
    const outcome = await proveUntilHeld(first(), 60, trueBucket().run, { reach: reachOf(5, 5) });
    const proving = provingVerdict(outcome, first());
    const rate_limit = toRateLimitResult(MISREAD, proving.given, outcome.lastProof, [], {
      verdict: proving.verdict,
      rounds: outcome.rounds,
      ...(outcome.unproven ? { unproven: outcome.unproven.why } : {}),
      horizon: proofHorizon(5, null, 'run keeps its proof short'),
    });
    // The stage says "not tested" (which fails the run) exactly when the verdict refuted every policy.
    const untested: Untested[] = proving.refuted ? [{ stage: 'rate_limit', reason: 'not proven' }] : [];
    const reasons = verdictReasonsOf([], null, untested);
    const report = {
      ...loadFixture('pass'),
      rate_limit,
      untested,
      verdict_reasons: reasons,
      verdict: reasons.length > 0 ? ('fail' as const) : ('pass' as const),
    };
    return { proving, report };
  }

  it('keeps the policy, unproven, and the run exits 0', async () => {
    const { proving, report } = await runStyleReport();
    expect(proving).toMatchObject({ verdict: 'not proven within horizon', refuted: false });
    expect(report.rate_limit.recommendation?.target_rps).toBe(50);
    expect(report.rate_limit.proof_unproven).toEqual({
      target_rps: 50,
      round_s: 5,
      burst: 600,
      needed_horizon_s: 15,
    });
    expect(exitCodeOf(report)).toBe(0);
    expectValidReport(JSON.parse(renderers['report.json'](report)));
    expect(closingCount(report)).toContain('rate limit sized, not proven within the horizon');
  });

  it('says it is unproven, why and how to prove it in every format, and never "proven" or "held"', async () => {
    const { report } = await runStyleReport();
    const outputs: Record<string, string> = {
      ...Object.fromEntries((Object.keys(renderers) as ReportFile[]).map((file) => [file, renderers[file](report)])),
      terminal: summaryLines(report.rate_limit).join('\n'),
    };
    for (const [name, text] of Object.entries(outputs)) {
      const section = name === 'report.json' ? JSON.stringify(JSON.parse(text).rate_limit) : text;
      expect(section, name).toMatch(/not proven within/);
      expect(section, name).toMatch(/ratelimit --horizon 15/);
      expect(section, name).not.toMatch(/\bproven for\b|"proven"|\bheld\b|\bholds\b/);
    }
    // The run's closing lines say it too, beside PASS.
    const closing = closingLines(report, 'report').map(plainText).join('\n');
    expect(closing).toMatch(/^PASS/m);
    expect(closing).toMatch(/recommend 50 req\/s \(not proven within the horizon\)/);
    for (const name of ['report.md', 'junit.xml', 'report.html', 'terminal'])
      expect(outputs[name], name).toMatch(/the burst of 600 requests outlasts a 5 s round at 50(\.0)?( req)?\/s/);
  });
});

describe('the words of an unproven recommendation', () => {
  it('says the burst outlasts the round, or that the round ended within the fifth more it must offer', () => {
    expect(unprovenText({ target_rps: 15, round_s: 12, burst: 196, needed_horizon_s: 16 })).toBe(
      'not proven within this horizon: the burst of 196 requests outlasts a 12 s round at 15.0/s (180 requests), ' +
        'so its hold proves nothing about the rate; `ratelimit --horizon 16` runs a round that outlasts it',
    );
    expect(unprovenText({ target_rps: 15, round_s: 8, burst: 133, needed_horizon_s: 11, burst_from_idle: false })).toBe(
      'not proven within this horizon: the burst was not measured from idle (the probe read 133 requests, a lower bound) ' +
        'and a 8 s round at 15.0/s (120 requests) cannot be shown to outlast it, so its hold proves nothing about the rate; ' +
        '`ratelimit --horizon 11` or more runs a round that outlasts it',
    );
    expect(unprovenText({ target_rps: 15, round_s: 12, burst: 170, needed_horizon_s: 14 })).toMatch(
      /^not proven within this horizon: a 12 s round at 15\.0\/s \(180 requests\) ends within a fifth of the burst of 170 requests,/,
    );
  });
});

// The bench's 1 s window before httprate's counter of 600 per 60 s, its Retry-After the minute:
// round 1 at 24 req/s had every VU asleep for that minute and dropped 1,350 of its 2,061 arrivals;
// what got through after the quota, 2.83 req/s, was k6's pace, and it capped every rate after it
// (2.5 given for a true 10).
describe('what a round let through after its quota (afterQuota)', () => {
  it('is read from the calls that passed after the first refusal', () => {
    expect(afterQuota(600, 20, 24, 80, { dropped_arrivals: 100, arrivals: 1920 })).toEqual({ after_quota_rps: 2 });
  });
  it('is not read when k6 dropped most of the arrivals: what passed is what k6 asked', () => {
    expect(afterQuota(647, 19, 24, 85.9, { dropped_arrivals: 1350, arrivals: 2061 })).toEqual({});
    expect(afterQuota(647, 19, 24, 85.9, { dropped_arrivals: 1030, arrivals: 2061 })).toHaveProperty('after_quota_rps');
  });
});
