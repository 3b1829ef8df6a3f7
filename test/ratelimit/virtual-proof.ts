// A k6 proof round on virtual time, in-process: a client paced at the policy's rate against the
// same limiter the probe met (its state carried over), each request asked once (k6's retries only
// spend capacity a paced arrival would have spent). Figured as prove.ts figures k6's: the 429
// share, the goodput over the round, when refusals began and what passed after.

import { afterQuota } from '../../src/ratelimit/prove.js';
import type { Proof } from '../../src/ratelimit/types.js';
import type { Limiter } from './virtual-limit.js';

export function virtualProofRound(limiter: Limiter, rps: number, startS: number, durationS: number): Proof {
  const sent = Math.floor(rps * durationS);
  let ok = 0;
  let firstS: number | undefined;
  for (let k = 0; k < sent; k++) {
    if (limiter(Math.round((startS + k / rps) * 1000)) === undefined) ok++;
    else firstS ??= k / rps;
  }
  const began = firstS === undefined ? undefined : Math.round(firstS * 1000) / 1000;
  return {
    rate_429: sent > 0 ? Math.round(((sent - ok) / sent) * 1e4) / 1e4 : 0,
    goodput_rps: Math.round((ok / durationS) * 100) / 100,
    lost_requests: 0,
    ...(began !== undefined ? { refusals_began_s: began } : {}),
    ...afterQuota(ok, began, rps, durationS),
  };
}
