// The limiter model a fleet is simulated against: the one the probe identified when it carries one
// (`limiter` on the estimate), else a token bucket of the measured sustained rate and burst, which
// is what the probe measured before it could tell limiter kinds apart. Where the probe could not
// tell whether refused requests count (`counts_refused: null`), the fleet meets the worse case:
// they count, so a fleet that keeps knocking stays shut out longer; the words say it was assumed.

import { describeLimiter, type LimiterModel } from '../limiters/index.js';
import type { Estimate } from '../types.js';

export type LimiterSource = Pick<Estimate, 'sustained_rps' | 'burst'> & { limiter?: LimiterModel | null };

export function limiterOf(estimate: LimiterSource): LimiterModel | null {
  const identified = estimate.limiter;
  if (identified)
    return 'counts_refused' in identified && identified.counts_refused === null
      ? { ...identified, counts_refused: true }
      : identified;
  const rate = estimate.sustained_rps;
  if (rate === null || !(rate > 0)) return null;
  return { kind: 'bucket', rate_rps: rate, burst: Math.max(1, Math.round(estimate.burst ?? 1)) };
}

/** The simulated limiter in words (the report's fleet section), saying what was assumed in the probe's place. */
export function describeSimulated(estimate: LimiterSource, simulated: LimiterModel): string {
  const untested = estimate.limiter && 'counts_refused' in estimate.limiter && estimate.limiter.counts_refused === null;
  return untested
    ? `${describeLimiter(simulated)} (assumed, the worse case: the probe could not test it)`
    : describeLimiter(simulated);
}
