// The limiter a fleet is simulated against: the one the probe identified when it carries one
// (`limiter` on the estimate, or every limit of a set, `limiters`), else a token bucket of the
// measured sustained rate and burst, which is what the probe measured before it could tell limiter
// kinds apart. Where the probe could not tell whether refused requests count (`counts_refused:
// null`), the fleet meets the worse case: they count, so a fleet that keeps knocking stays shut out
// longer; the words say it was assumed. A limit the service announced and the probe did not prove
// joins the set as a fixed window of its quota (the worse case again: refused requests count), so
// a fleet sized here never leans on a per-minute quota the probe's seconds did not reach. A service
// slower than its limit (served_rps) joins it as a bucket of that pace, a second's line its burst:
// it refuses nothing, but a fleet above its pace waits in a line that only grows.

import { describeLimiter, type LimiterModel, type Limits } from '../limiters/index.js';
import type { AdvertisedLimit } from '../../report/model.js';
import type { Estimate } from '../types.js';

export type LimiterSource = Pick<Estimate, 'sustained_rps' | 'burst'> &
  Partial<Pick<Estimate, 'limiters' | 'advertised' | 'announced' | 'served_rps'>> & { limiter?: LimiterModel | null };

const worseCase = (m: LimiterModel): LimiterModel =>
  'counts_refused' in m && m.counts_refused === null ? { ...m, counts_refused: true } : m;

export function limiterOf(estimate: LimiterSource): Limits | null {
  const identified = estimate.limiters?.length ? estimate.limiters : estimate.limiter ? [estimate.limiter] : [];
  const rate = estimate.sustained_rps;
  const measured: LimiterModel[] =
    identified.length > 0
      ? identified.map(worseCase)
      : rate !== null && rate > 0
        ? [{ kind: 'bucket', rate_rps: rate, burst: Math.max(1, Math.round(estimate.burst ?? 1)) }]
        : [];
  const [first, ...more] = [...measured, ...unproven(estimate).map(asWindow), ...servedPace(estimate)];
  if (first === undefined || measured.length === 0) return null;
  return more.length === 0 ? first : [first, ...more];
}

/**
 * The announced limits the probe neither verified nor contradicted, each with a window (one it
 * measured otherwise is not simulated twice: the measured limiter is).
 */
function unproven(estimate: LimiterSource): AdvertisedLimit[] {
  const all = estimate.announced ?? (estimate.advertised ? [estimate.advertised] : []);
  return all.filter((a) => a.agrees === null && a.window_s !== null && a.window_s > 0);
}

/** The pace of a service slower than its limit, as a bucket: none when it kept up. */
const servedPace = (estimate: LimiterSource): LimiterModel[] =>
  estimate.served_rps === undefined
    ? []
    : [{ kind: 'bucket', rate_rps: estimate.served_rps, burst: Math.max(1, Math.round(estimate.served_rps)) }];

const asWindow = (a: AdvertisedLimit): LimiterModel => ({
  kind: 'fixed-window',
  limit: a.limit,
  window_s: a.window_s!,
  phase_s: 0,
  counts_refused: true,
});

/** The simulated limiter in words (the report's fleet section), saying what was assumed in the probe's place. */
export function describeSimulated(estimate: LimiterSource, simulated: Limits): string {
  const identified = estimate.limiters?.length ? estimate.limiters : estimate.limiter ? [estimate.limiter] : [];
  const untested = identified.some((m) => 'counts_refused' in m && m.counts_refused === null);
  const announced = unproven(estimate);
  // No limiter identified (or the one read was refuted): the bucket is the simulator's assumption
  // from what held and what passed from idle, never a kind the probe claims.
  const said =
    identified.length === 0
      ? estimate.burst === null
        ? `an assumed bucket of ${estimate.sustained_rps} req/s, burst 1 (no limiter was identified: the rate that held, and the burst not identified, so the worse case of one)`
        : `an assumed bucket of ${estimate.sustained_rps} req/s, burst ${Math.max(1, Math.round(estimate.burst))} (no limiter was identified: the rate that held and what passed from idle)`
      : describeLimiter(simulated);
  return (
    said +
    (untested ? ' (assumed, the worse case: the probe could not test it)' : '') +
    (announced.length > 0
      ? ` (${announced.map((a) => `${a.limit} per ${a.window_s} s`).join(', ')} announced, not proven: simulated as a fixed window counting refused requests)`
      : '') +
    (estimate.served_rps !== undefined
      ? ` (the service answered what its limit admitted at ${estimate.served_rps} req/s: simulated as a bucket of that pace, a second's line its burst)`
      : '')
  );
}
