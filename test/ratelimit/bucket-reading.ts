// The probe's reading a proof refutes, for the tests of what is reported after (refuted.test.ts,
// refuted-recommendation.test.ts): a token bucket read at `rps`, burst `burst`, from a probe of
// the validate endpoint, behind a limit that truly admits 20/s (k6At).

import type { Estimate, Proof } from '../../src/ratelimit/types.js';

export function bucketReading(
  rps: number,
  burst: number,
  figures: Pick<Estimate, 'recovery_s' | 'refill_s' | 'retry_after_header' | 'retry_after_max_s' | 'latency_p95_ms'> &
    Partial<Estimate>,
): Estimate {
  return {
    endpoint: 'tokens.validate',
    limiting_status: 429,
    sustained_rps: rps,
    sustained_precision: 0.01,
    burst,
    burst_from_idle: true,
    scope: 'unknown',
    requests_sent: 900,
    requests_limited: 120,
    duration_s: 14,
    timeline: [{ t: 0, offered: 100, accepted: 60, limited: 40, phase: 'drain' }],
    limiter: { kind: 'bucket', rate_rps: rps, burst },
    limiter_evidence: [
      `after the first refusal a request passed every ${(1000 / rps).toFixed(1)} ms: a bucket refilling at ${rps} req/s`,
    ],
    notes: [],
    partial: false,
    ...figures,
  };
}

/** What k6 truly meets: 20/s; its retries make the 429 share 1.31 times the excess (64 % at 39). */
export const k6At = (rps: number): Proof =>
  rps > 20
    ? { rate_429: (1.31 * (rps - 20)) / rps, goodput_rps: 20, lost_requests: 0 }
    : { rate_429: 0, goodput_rps: rps, lost_requests: 0 };
