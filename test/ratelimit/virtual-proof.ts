// A k6 proof round on virtual time, in-process: a client paced at the policy's rate against the
// same limiter the probe met (its state carried over), each request asked once (k6's retries only
// spend capacity a paced arrival would have spent). Figured as prove.ts figures k6's: the 429
// share, the goodput over the round, when refusals began and what passed after.

import { afterQuota, roundCut } from '../../src/ratelimit/prove.js';
import type { RoundCutPlan } from '../../src/ratelimit/proof-loop.js';
import type { Proof } from '../../src/ratelimit/types.js';
import type { Limiter } from './virtual-limit.js';

/**
 * `cutPlan` (proof-loop.ts RoundToRun): as scenarios/rate-limit.ts ends a round (prove.ts
 * roundCut), once the refusals met long enough after the first alone break the promise; the figures are then
 * over the arrivals sent, and `cut_at_s` says so.
 */
export function virtualProofRound(
  limiter: Limiter,
  rps: number,
  startS: number,
  durationS: number,
  cutPlan?: RoundCutPlan,
): Proof {
  const planned = Math.floor(rps * durationS);
  const cut = cutPlan === undefined ? undefined : roundCut(cutPlan, rps * durationS);
  const cutS = (firstS: number) => (firstS < cut!.atOnceWithinS ? cut!.atOnceAfterS : cut!.afterRefusalsS);
  let ok = 0;
  let firstS: number | undefined;
  // The first call let through after the first refusal, as k6's admitted_again_s (scenarios/rate-limit.ts).
  let againS: number | undefined;
  let pastCut = 0;
  let sent = 0;
  for (; sent < planned && !(cut && pastCut >= cut.minRefusals); sent++) {
    const atS = sent / rps;
    if (limiter(Math.round((startS + atS) * 1000)) === undefined) {
      ok++;
      if (firstS !== undefined) againS ??= atS;
    } else {
      firstS ??= atS;
      if (cut && atS >= firstS + cutS(firstS)) pastCut++;
    }
  }
  const ranS = sent < planned ? sent / rps : durationS;
  const began = firstS === undefined ? undefined : Math.round(firstS * 1000) / 1000;
  return {
    rate_429: sent > 0 ? Math.round(((sent - ok) / sent) * 1e4) / 1e4 : 0,
    goodput_rps: Math.round((ok / ranS) * 100) / 100,
    lost_requests: 0,
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, rps, ranS),
    ...(againS !== undefined ? { admitted_again_s: Math.round(againS * 1000) / 1000 } : {}),
    ...(sent < planned ? { cut_at_s: Math.round(ranS * 10) / 10 } : {}),
  };
}
