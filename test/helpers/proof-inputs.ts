// What prove() hands k6 for a policy, without a k6 to run it: the inputs a test reads the round's
// arrivals, concurrency and cut from (src/ratelimit/prove.ts proofInputs), over 120 s by default.

import { proofInputs, type ProveOptions } from '../../src/ratelimit/prove.js';
import type { Recommendation } from '../../src/ratelimit/types.js';

export const roundInputs = (recommendation: Recommendation, over: Partial<ProveOptions> = {}) =>
  proofInputs({
    k6Path: 'k6',
    bundleDir: '.',
    workDir: '.',
    target: { baseUrl: 'https://127.0.0.1:1', credentials: { clientId: 'c', clientSecret: 's' } },
    endpoint: 'tokens.validate',
    recommendation,
    durationS: 120,
    tokenLifetimeS: 86_400,
    clockToleranceS: 2,
    runId: 'virtual',
    ...over,
  });

/** A paced policy: `target_rps`, two calls at once, full-jitter backoff from `base_ms` capped at four bases, four retries. */
export const policy = (target_rps: number, base_ms: number, retry_budget_s: number): Recommendation => ({
  target_rps,
  max_concurrency: 2,
  backoff: { base_ms, cap_ms: 4 * base_ms, jitter: 'full', max_retries: 4 },
  retry_budget_s,
  why: [],
});
