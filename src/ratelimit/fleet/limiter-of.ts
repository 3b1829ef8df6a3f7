// The limiter model a fleet is simulated against: the one the probe identified when it carries one
// (`limiter` on the estimate), else a token bucket of the measured sustained rate and burst, which
// is what the probe measured before it could tell limiter kinds apart.

import type { LimiterModel } from '../limiters/index.js';
import type { Estimate } from '../types.js';

export type LimiterSource = Pick<Estimate, 'sustained_rps' | 'burst'> & { limiter?: LimiterModel | null };

export function limiterOf(estimate: LimiterSource): LimiterModel | null {
  if (estimate.limiter) return estimate.limiter;
  const rate = estimate.sustained_rps;
  if (rate === null || !(rate > 0)) return null;
  return { kind: 'bucket', rate_rps: rate, burst: Math.max(1, Math.round(estimate.burst ?? 1)) };
}
