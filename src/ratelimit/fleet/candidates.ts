// The five candidate policies for N instances, from the single-client recommendation: the same
// backoff figures for every candidate, so they differ only in what the issue compares (jitter,
// a client-side bucket, adaptive throttling). The client bucket's rate is the recommended target
// split across the instances that share the limiter.

import { HEADROOM } from '../recommend.js';
import type { Recommendation } from '../types.js';
import { ADAPTIVE_K, ADAPTIVE_WINDOW_S, FLEET_POLICY_NAMES, type FleetPolicy } from './policy.js';

export interface CandidateInput {
  recommendation: Pick<Recommendation, 'target_rps' | 'backoff'>;
  /** Requests the limiter passes back to back from idle. */
  burst: number;
  instances: number;
  sharing: 'shared' | 'per-instance';
  honourRetryAfter: boolean;
}

/** Per-instance rate and burst of the client-side bucket: the target and the burst (with the same headroom) split N ways. */
export function perInstanceShare(input: Omit<CandidateInput, 'honourRetryAfter'>): { rate_rps: number; burst: number } {
  const ways = input.sharing === 'shared' ? input.instances : 1;
  const rate = input.recommendation.target_rps / ways;
  return {
    rate_rps: Number(rate.toPrecision(3)),
    burst: Math.max(1, Math.floor((input.burst * (1 - HEADROOM)) / ways)),
  };
}

export function candidatePolicies(input: CandidateInput): FleetPolicy[] {
  const b = input.recommendation.backoff;
  const common = {
    base_ms: b.base_ms,
    cap_ms: b.cap_ms,
    max_retries: b.max_retries,
    honour_retry_after: input.honourRetryAfter,
  };
  return FLEET_POLICY_NAMES.map((name): FleetPolicy => {
    if (name === 'client-bucket') return { name, ...common, ...perInstanceShare(input) };
    if (name === 'adaptive') return { name, ...common, k: ADAPTIVE_K, window_s: ADAPTIVE_WINDOW_S };
    return { name, ...common };
  });
}
