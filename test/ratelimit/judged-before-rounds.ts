// What the stage makes of a probe's estimate before any round (src/stages/rate-limit.ts judgeProbe),
// shared by the tests that judge a virtual probe's estimate as the stage would.

import type { Estimate } from '../../src/ratelimit/types.js';
import { judgeProbe } from '../../src/stages/rate-limit.js';

/**
 * As `ratelimit` with a 150 s probe, or `run` when `shortHorizon` is given: the search it starts,
 * and what it said untested. The answers' tally is the estimate's: its refusals as 429, the rest 200.
 */
export function judgedBeforeRounds(estimate: Estimate, shortHorizon?: string) {
  const untested: string[] = [];
  const judged = judgeProbe(estimate, {
    io: { untested: (_, why) => untested.push(why), progress: () => undefined, signal: new AbortController().signal },
    endpoint: 'tokens.validate',
    tally: new Map([
      [200, estimate.requests_sent - estimate.requests_limited],
      [429, estimate.requests_limited],
    ]),
    unusable: undefined,
    maxRequests: 3000,
    probeCapS: 150,
    shortHorizon,
  });
  return { ...judged, untested };
}
