// What a resolved config tells the checks about the target beyond where it is: the promises they
// hold it to (token lifetime, clock tolerance) and how far rate-limit probing may go. Config owns
// these shapes; the runner only reads them.

import type { Credentials } from '../spec/credentials.js';
import type { BusinessCalls, RateLimitEndpoint } from '../spec/endpoints.js';

export interface Expectations {
  tokenLifetimeS: number;
  expiryWaitS: number;
  clockToleranceS: number;
}

export interface RateLimitSettings {
  endpoint: RateLimitEndpoint;
  maxRps: number;
  maxRequests: number;
  /** How long a client that waits and retries (§7) may be kept out before recovery fails. */
  recoveryWaitS: number;
  /**
   * The longest Retry-After waited out to judge recovery (rate_limit.max_retry_after_s). Any valid
   * value up to it is honoured, even past recoveryWaitS; beyond it the recovery is not tested.
   */
  maxRetryAfterS: number;
  /**
   * How long one request of the checks may wait on the rate limit (the Retry-Afters it is given once
   * its turn among the checks' requests comes; its time in line does not count), from
   * rate_limit.limit_wait_s or `--limit-wait`; 60 s when absent. Past it: not tested.
   */
  limitWaitS?: number;
  /** False for an environment named production without --allow-production-load. */
  probingAllowed: boolean;
  /** `--max-duration`: the probe's time cap, seconds, when given (a window limiter needs about 2.5 windows). */
  maxDurationS?: number;
  /**
   * `--horizon S` / rate_limit.horizon_s, when given: how long a client's life the proof covers (each
   * k6 proof round runs this long at least; a window longer than half of it is not tested).
   */
  horizonS?: number;
  /** Client instances sharing the limit, when the policy is to be sized for a fleet (`--fleet N`). */
  fleet?: number;
  /** rate_limit.second_client: another client of the target's environment, for the probe's scope phase. */
  secondClient?: Credentials;
}

/** What a production environment may receive (production-gate.ts enforces it). */
export interface ProductionSettings {
  /** production.max_requests: no run sends more requests than this to production. */
  maxRequests: number;
  /** The business endpoints opted in (business.<name>.production), each with production's own payload. */
  business: Partial<BusinessCalls>;
}
