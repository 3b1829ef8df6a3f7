// Rate-limit sizing: discover a limit by measurement (discover), turn it into a client policy
// (recommend), prove the policy with k6 (prove), and shape it for the report (toRateLimitResult).
// Its stage (stage.ts), which `ratelimit` and `run` run, strings these together.

export { probeCalls, ProbeSetupError, type ProbeCalls } from './calls.js';
export { isRateLimitEndpoint, type RateLimitEndpoint } from '../spec/endpoints.js';
export { discover, DISCOVER_DEFAULTS, type DiscoverOptions } from './discover.js';
export { recommend, targetRate, lossBound, horizonMs, HEADROOM, type RecommendInput } from './recommend.js';
export { prove, proofInputs, DEFAULT_PROOF_S, type ProveOptions, type ProofRun } from './prove.js';
export { toRateLimitResult, summaryLines } from './result.js';
export type { Estimate, Recommendation, Proof, Sample } from './types.js';
