// `--fleet N`: from the probe's estimate and the single-client recommendation to the report's
// fleet section. The limiter model (identified, or a bucket of the measured figures), who shares
// it (from the scope), the five candidates at sizes 1, 4, 16, … N, and the choice at N.

import { burstSize } from '../limiters/index.js';
import type { FleetResult } from '../../report/model.js';
import type { Estimate, Recommendation } from '../types.js';
import { candidatePolicies, perInstanceShare } from './candidates.js';
import { describeSimulated, limiterOf, type LimiterSource } from './limiter-of.js';
import { chooseFleetPolicy } from './recommend.js';
import { sharingOf } from './sharing.js';
import { fleetSizes, simulatedFleet, sweep } from './sweep.js';

export interface FleetSizingInput {
  estimate: LimiterSource & Pick<Estimate, 'scope' | 'retry_after_header' | 'latency_p95_ms'>;
  recommendation: Pick<Recommendation, 'target_rps' | 'backoff'>;
  instances: number;
  seed?: number;
}

/** A round trip when the probe measured none: loopback-fast, which makes retries as eager as they can be. */
const FALLBACK_LATENCY_MS = 5;
export const DEFAULT_SEED = 1;

export function sizeFleet(input: FleetSizingInput): FleetResult | null {
  const limiter = limiterOf(input.estimate);
  if (limiter === null) return null;
  const { sharing, assumption } = sharingOf(input.estimate.scope);
  const honourRetryAfter = input.estimate.retry_after_header === 'truthful';
  const burst = burstSize(limiter);
  const seed = input.seed ?? DEFAULT_SEED;
  const latency = input.estimate.latency_p95_ms ?? FALLBACK_LATENCY_MS;
  const policiesAt = (instances: number) =>
    candidatePolicies({ recommendation: input.recommendation, burst, instances, sharing, honourRetryAfter });
  const rows = sweep({
    limiter,
    sharing,
    policies: policiesAt,
    sizes: fleetSizes(input.instances),
    latency_ms: latency,
    seed,
  });
  // The whole fleet's surge and backlog (a per-token fleet is simulated as a sample, scaled).
  const { scale, shape } = simulatedFleet(limiter, sharing, input.instances);
  const choice = chooseFleetPolicy(rows, input.instances);
  const share = perInstanceShare({ recommendation: input.recommendation, burst, instances: input.instances, sharing });
  const b = input.recommendation.backoff;
  return {
    instances: input.instances,
    limiter: describeSimulated(input.estimate, limiter),
    sharing,
    assumption,
    offered_rps: Number((shape.offered_rps * scale).toPrecision(4)),
    duration_s: shape.duration_s,
    backlog: Math.round(shape.backlog * scale),
    latency_ms: latency,
    seed,
    recommendation: choice && {
      policy: choice.row.policy,
      per_instance_rps: share.rate_rps,
      per_instance_burst: share.burst,
      backoff: { base_ms: b.base_ms, cap_ms: b.cap_ms, max_retries: b.max_retries },
      honour_retry_after: honourRetryAfter,
      why: [
        `per instance ≤ ${share.rate_rps} req/s, burst ${share.burst}: the recommended ${input.recommendation.target_rps} req/s${sharing === 'shared' ? ` split ${input.instances} ways` : ' (each instance has its own limiter)'}`,
        ...choice.why,
      ],
    },
    rows,
  };
}
