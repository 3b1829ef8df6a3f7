// Never report what was refuted, the recommendation included (issue 35 item 5): the probe read a
// token bucket of 49.59 req/s, burst 50 (a refill of 1010 ms), behind a limit that truly admits
// 20/s. The first policy was sized from that reading (39 req/s, a cap reaching the refill); k6
// proofs refuted it and a lower rate held. The policy given must be reasoned from what stands (the
// rates that held and failed, the measured recovery, Retry-After, the answers' latency), each
// reason of a figure it gives, and no output may carry a figure of the reading.

import { describe, expect, it } from 'vitest';
import { renderers, type ReportFile } from '../../src/report/index.js';
import { toRecord } from '../../src/history/record.js';
import { proveUntilHeld, type ProofLoopOptions } from '../../src/ratelimit/proof-loop.js';
import { recommend } from '../../src/ratelimit/recommend.js';
import { withoutRefuted } from '../../src/ratelimit/refuted.js';
import { sizeFleet } from '../../src/ratelimit/fleet/size.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import type { Estimate, Proof, Recommendation } from '../../src/ratelimit/types.js';
import { loadFixture } from '../report/helpers.js';
import { bucketReading, k6At } from './bucket-reading.js';

const READING: Estimate = bucketReading(49.59, 50, {
  recovery_s: 0.021,
  refill_s: 1.01,
  retry_after_header: 'truthful',
  retry_after_max_s: 1,
  latency_p95_ms: 5,
  burst_passed: 66,
  notes: [
    'burst: 66 requests passed back-to-back at 200 req/s from idle; 50 after taking away what the limit refilled meanwhile',
    'sustained 49.59 req/s over the stream (±1 %), read as a token bucket 49.59 req/s, burst 50',
  ],
});

/** As the stage runs the loop: each later round sized from what the rounds so far left standing. */
const standing: ProofLoopOptions['standing'] = (rounds) => withoutRefuted(READING, rounds);

async function report(prove: (rps: number) => Proof = k6At) {
  const first = recommend(READING)!;
  const outcome = await proveUntilHeld(first, READING.sustained_rps!, async (rec) => prove(rec.target_rps), {
    standing,
  });
  const result = toRateLimitResult(READING, outcome.proven, outcome.provenProof, [], {
    verdict: outcome.proven ? 'proven' : 'not proven',
    rounds: outcome.rounds,
  });
  // --fleet 4, sized as the stage sizes it: on what the proofs left standing.
  const fleet =
    outcome.proven &&
    sizeFleet({ estimate: withoutRefuted(READING, outcome.rounds), recommendation: outcome.proven, instances: 4 });
  const rate_limit = { ...result, fleet };
  const full = { ...loadFixture('pass'), rate_limit };
  const outputs: Record<string, string> = {
    ...Object.fromEntries((Object.keys(renderers) as ReportFile[]).map((file) => [file, renderers[file](full)])),
    terminal: summaryLines(rate_limit).join('\n'),
    history: JSON.stringify(toRecord(full)),
  };
  return { first, outcome, rate_limit, outputs };
}

/** The recommendation's reasons as the report carries them (its notes). */
const reasons = (r: ReturnType<typeof toRateLimitResult>) =>
  (r.notes ?? []).filter((n) => n.startsWith('recommendation: ')).map((n) => n.slice('recommendation: '.length));

/** The one reason that starts with `prefix`'s figure, and that figure. */
function figureOf(why: string[], pattern: RegExp): number {
  const found = why.flatMap((w) => {
    const m = pattern.exec(w);
    return m ? [Number(m[1])] : [];
  });
  expect(found, `one reason matching ${pattern}`).toHaveLength(1);
  return found[0]!;
}

describe('a recommendation after a refuted reading', () => {
  it('is the case of the issue: the first policy was sized from the reading, and refuted', async () => {
    const { first, outcome } = await report();
    expect(first).toMatchObject({ target_rps: 39, max_concurrency: 1, backoff: { base_ms: 50, cap_ms: 1100 } });
    expect(first.why.join('\n')).toContain('refill time (1010 ms)');
    expect(outcome.rounds[0]).toMatchObject({ target_rps: 39, verdict: 'fails' });
    expect(outcome.proven?.target_rps).toBe(18);
  });

  it('carries no figure of the refuted reading in any output', async () => {
    const { outputs, rate_limit } = await report();
    for (const [name, text] of Object.entries(outputs)) {
      // The reading's rate, its refill (the cap's old reason) and kind.
      expect(text, name).not.toMatch(/49\.59|49\.6 req|1010 ms|1,010 ms|token bucket/);
      // A reason of the refuted round's rate: concurrency sized at 39 req/s.
      expect(text, name).not.toMatch(/39 req\/s ×/);
      // The burst reckoned at the refuted rate.
      expect(text, name).not.toMatch(/after taking away what the limit refilled/);
    }
    expect(rate_limit.burst).toBeNull();
    // The fleet's assumed bucket has no burst of the reading either: the worse case of one, said so.
    expect(rate_limit.fleet?.limiter).toBe(
      'an assumed bucket of 18 req/s, burst 1 (no limiter was identified: the rate that held, and the burst not identified, so the worse case of one)',
    );
    expect(rate_limit.notes).toContain(
      'burst: 66 requests passed back-to-back at 200 req/s from idle; the burst itself is not identified: what the limit refilled meanwhile was reckoned at the refuted reading\u2019s rate',
    );
  });

  it('gives a reason for each figure it recommends, of that figure', async () => {
    const { rate_limit, outcome } = await report();
    const rec = rate_limit.recommendation!;
    const why = reasons(rate_limit);
    expect(figureOf(why, /^concurrency (\d+)\b/)).toBe(rec.max_concurrency);
    // Little's law at the rate given, not at the rate refuted.
    expect(why.find((w) => w.startsWith('concurrency'))).toMatch(
      new RegExp(`^concurrency ${rec.max_concurrency}: ${rec.target_rps} req/s × p95 5 ms`),
    );
    expect(figureOf(why, /^base (\d+) ms/)).toBe(rec.backoff.base_ms);
    expect(figureOf(why, /^cap (\d+) ms/)).toBe(rec.backoff.cap_ms);
    expect(figureOf(why, /^(\d+) retries/)).toBe(rec.backoff.max_retries);
    // From what stands: the measured recovery, Retry-After; the refill said not identified, never 0 ms.
    expect(why.find((w) => w.startsWith('base'))).toContain('twice the measured recovery (21 ms)');
    expect(why.find((w) => w.startsWith('cap'))).toBe(
      'cap 1000 ms: the longest of Retry-After (1000 ms) and four recoveries, at least four bases; the refill time is not identified',
    );
    // The rate's own reasons are the rounds': how it came to the rate given.
    expect(why.join('\n')).toContain(`bisected to ${rec.target_rps} req/s`);
    // The policy given is the one its proof ran: what is reasoned is what was proven.
    const held = outcome.rounds.find((r) => r.verdict === 'holds' && r.target_rps === rec.target_rps)!;
    expect(held).toMatchObject({
      max_concurrency: rec.max_concurrency,
      backoff_base_ms: rec.backoff.base_ms,
      max_retries: rec.backoff.max_retries,
    });
  });

  it('keeps a backoff a round widened after it lost calls, and says so', async () => {
    // Round 1 at 39 req/s: 2 % refused and calls lost; every round after holds.
    const lossy = (rps: number): Proof =>
      rps >= 39
        ? { rate_429: 0.02, goodput_rps: 38, lost_requests: 5 }
        : { rate_429: 0, goodput_rps: rps, lost_requests: 0 };
    const { rate_limit, first } = await report(lossy);
    const rec = rate_limit.recommendation!;
    expect(rec.backoff.base_ms).toBe(2 * first.backoff.base_ms);
    expect(rec.backoff.max_retries).toBeGreaterThanOrEqual(first.backoff.max_retries + 1);
    const why = reasons(rate_limit);
    expect(figureOf(why, /^base (\d+) ms/)).toBe(rec.backoff.base_ms);
    expect(why.find((w) => w.startsWith('base'))).toContain('as widened after a proof round lost calls');
    expect(figureOf(why, /^(\d+) retries/)).toBe(rec.backoff.max_retries);
  });
});

describe('a recommendation no round refuted', () => {
  it('is the first policy, its reasons unchanged, when the first round holds', async () => {
    const first = recommend(READING)!;
    const outcome = await proveUntilHeld(
      first,
      READING.sustained_rps!,
      async (): Promise<Proof> => ({ rate_429: 0, goodput_rps: 39, lost_requests: 0 }),
      { standing },
    );
    expect(outcome.proven).toBe(first);
    const r = toRateLimitResult(READING, outcome.proven, outcome.provenProof, [], {
      verdict: 'proven',
      rounds: outcome.rounds,
    });
    expect(reasons(r)).toEqual(first.why);
    expect(r.burst).toBe(50);
    expect(r.notes).toContain(READING.notes[0]);
  });

  it('is sized again from the whole estimate when a round lost calls alone', async () => {
    // Lost calls refute the backoff, not the reading: the refill stands, and the cap still reaches it.
    const lossy = (rps: number): Proof =>
      rps >= 39
        ? { rate_429: 0, goodput_rps: 38, lost_requests: 5 }
        : { rate_429: 0, goodput_rps: rps, lost_requests: 0 };
    const { rate_limit } = await report(lossy);
    const rec: Pick<Recommendation, 'target_rps'> = rate_limit.recommendation!;
    expect(rec.target_rps).toBeLessThan(39);
    const why = reasons(rate_limit);
    expect(why.find((w) => w.startsWith('cap'))).toContain('refill time (1010 ms)');
    expect(why.find((w) => w.startsWith('concurrency'))).toMatch(new RegExp(`: ${rec.target_rps} req/s × p95 5 ms`));
    expect(rate_limit.burst).toBe(50);
  });
});

// `run`'s 5 s rounds: round 1 at 39 req/s refutes the reading; round 2 at 11 req/s offers 55
// requests and holds. Whether it held within the burst is judged from what stands: the 66 that
// passed back-to-back, taken whole (no refill rate stands), never the refuted reading's 50 less
// what its 49.59 req/s refilled.
describe('a round after a refuted reading, held within the burst', () => {
  const reach = { burst: 50, burstFromIdle: true, roundS: 5, maxRoundS: 5, settleS: 1, refillRps: 49.59 };

  it('is judged against what passed back-to-back, and says that figure', async () => {
    const first = recommend(READING)!;
    const outcome = await proveUntilHeld(first, READING.sustained_rps!, async (rec) => k6At(rec.target_rps), {
      standing,
      reach,
    });
    expect(outcome.rounds.map((r) => [r.target_rps, r.verdict])).toEqual([
      [39, 'fails'],
      [11, 'inconclusive'],
    ]);
    expect(outcome.unproven?.why).toMatchObject({ target_rps: 11, burst: 66, needed_horizon_s: 8 });
    const rate_limit = toRateLimitResult(READING, outcome.unproven!.rec, null, [], {
      verdict: 'not proven within horizon',
      unproven: outcome.unproven!.why,
      rounds: outcome.rounds,
    });
    const full = { ...loadFixture('pass'), rate_limit };
    const outputs: Record<string, string> = {
      ...Object.fromEntries((Object.keys(renderers) as ReportFile[]).map((file) => [file, renderers[file](full)])),
      terminal: summaryLines(rate_limit).join('\n'),
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(text, name).not.toMatch(/burst of 50\b|\b50 requests|49\.59/);
      expect(text, name).toMatch(/burst of 66|66 requests/);
    }
  });
});
