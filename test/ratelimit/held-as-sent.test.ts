// A search's hold proves only what k6 sent (refuted.ts heldAtRps). Across 50 ± 10 ms a round paced
// at 51 req/s with 6 calls at once dropped 16 of its 255 arrivals for want of a free call and held:
// 47.8 req/s reached a window of 50 per second, and the report's headline was "51 req/s held",
// above the limit (CI 53b, ratelimit-network's fixed window). The headline, the search's words and
// the stage's not-tested line now carry the rate sent; a round that dropped nothing keeps its pace.

import { describe, expect, it } from 'vitest';
import type { ProofRound } from '../../src/report/model.js';
import { heldAtRps, heldRps } from '../../src/ratelimit/refuted.js';
import { searchSaid } from '../../src/ratelimit/rate-bracket.js';
import { summaryLines, toRateLimitResult } from '../../src/ratelimit/result.js';
import { proofHorizon } from '../../src/ratelimit/horizon.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { bucketReading } from './bucket-reading.js';

const round = (target: number, verdict: 'holds' | 'fails', more: Partial<ProofRound> = {}): ProofRound => ({
  target_rps: target,
  max_concurrency: 6,
  backoff_base_ms: 500,
  max_retries: 3,
  rate_429: 0,
  goodput_rps: target,
  lost_requests: 0,
  arrivals: target * 5,
  verdict,
  why: verdict === 'holds' ? '0.00 % got 429, no call lost: within the promise' : 'refused',
  ...more,
});

// The rounds of CI 53b's search, in the order run.
const ROUNDS: ProofRound[] = [
  round(30, 'holds', { dropped_arrivals: 3, arrivals: 150 }),
  round(37, 'holds', { dropped_arrivals: 3, arrivals: 185 }),
  round(46, 'holds', { dropped_arrivals: 4, arrivals: 230 }),
  round(71, 'fails', { rate_429: 0.1208, refusals_began_s: 1.17, dropped_arrivals: 108, arrivals: 238 }),
  round(57, 'fails', { rate_429: 0.0519, refusals_began_s: 1.824, dropped_arrivals: 82, arrivals: 214 }),
  round(51, 'holds', { goodput_rps: 48, dropped_arrivals: 16, arrivals: 255 }),
  round(54, 'fails', { rate_429: 0.0356, refusals_began_s: 1.463, dropped_arrivals: 55, arrivals: 270 }),
];

const SEARCHED: Estimate = {
  ...bucketReading(50, 29, {
    recovery_s: null,
    refill_s: null,
    retry_after_header: 'absent',
    retry_after_max_s: null,
    latency_p95_ms: 117,
  }),
  sustained_rps: null,
  sustained_precision: null,
  limiter: null,
  limiter_evidence: [],
  rate_bracket: { low: 30.47, high: 134.26, drained: 29, restS: 1, why: ['the drain was refused after 29'] },
};

describe('a hold k6 could not pace at its target', () => {
  it('proves the rate it sent: 51 paced, 16 of 255 dropped, 47.8 held', () => {
    expect(heldAtRps(ROUNDS[5]!)).toBe(47.8);
    // Nothing dropped: the pace itself.
    expect(heldAtRps(round(46, 'holds'))).toBe(46);
    expect(heldRps(ROUNDS)).toBe(47.8);
  });

  it('heads the report as sent, never at its pace, with the search saying both', () => {
    const result = toRateLimitResult(SEARCHED, null, null, [], {
      verdict: 'proven',
      rounds: ROUNDS,
      horizon: proofHorizon(5, null),
    });
    expect(result.sustained_rps).toBe(47.8);
    expect(result.sustained_held?.refused_rps).toBe(54);
    const terminal = summaryLines(result).join('\n');
    expect(terminal).toContain('47.8');
    expect(terminal).not.toMatch(/\b51 req\/s/);
    const said = searchSaid(ROUNDS, SEARCHED.rate_bracket!);
    expect(said).toContain(
      '47.8 req/s (paced at 51, k6 sent 47.8: it dropped 16 of 255 arrivals with every call the policy allows at once busy) held over the proof',
    );
    expect(said).not.toMatch(/: 51 req\/s held/);
  });
});
