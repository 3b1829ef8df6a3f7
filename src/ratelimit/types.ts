// The data the rate-limit probe produces and the recommendation consumes. Plain objects only: the
// stage turns an Estimate (plus a Recommendation and a Proof) into the report's RateLimitResult.

import type { AdvertisedLimit, BackoffPolicy, RateLimitResult } from '../report/model.js';
import type { LimiterModel } from './limiters/index.js';
import type { RateLimitEndpoint } from '../spec/endpoints.js';

/** How one answer counts for the limiter: let through, refused by the limit, or no answer at all. */
export type Answer = 'accepted' | 'limited' | 'error';

/** Which part of the probe sent a request (the timeline and the estimators select by it). */
export type PhaseName =
  | 'drain'
  | 'pilot'
  | 'window'
  | 'retry-after'
  | 'idle-burst'
  | 'scope'
  | 'recover'
  | 'edges'
  | 'period'
  | 'counts-refused'
  | 'advertised';

export interface Sample {
  /** Milliseconds since the probe started (monotonic clock), when the request was handed to the client. */
  sentMs: number;
  /** When the answer (or the transport error) arrived, same clock. */
  doneMs: number;
  /** HTTP status; 0 for a transport error. */
  status: number;
  answer: Answer;
  phase: PhaseName;
  /** Which credentials sent it: the target's, or the configured second client's. */
  client: 'primary' | 'second';
}

/** One point of the probe's timeline: what was sent in [t, t + resolution), and which phase sent most of it. */
export interface TimelinePoint {
  /** Seconds since the probe started (fractional at sub-second resolution). */
  t: number;
  offered: number;
  accepted: number;
  limited: number;
  /** The probe phase that sent most of the interval's requests; `wait` where it sent none. */
  phase: string;
}

export type Scope = RateLimitResult['scope'];
export type RetryAfterVerdict = RateLimitResult['retry_after_header'];

export interface RateLimitHeaders {
  /** Lower-cased names seen on limited answers: RateLimit, RateLimit-Policy, RateLimit-*, X-RateLimit-*. */
  names: string[];
  /** Their values on the last limited answer (limits and counters, never credentials). */
  sample: Record<string, string>;
  /** Whether waiting the reset they announced let a retry through (tested only without Retry-After). */
  reset?: 'truthful' | 'untruthful';
}

export interface Estimate {
  endpoint: RateLimitEndpoint;
  /** The status the limit refuses with: 429 as §7 wants, 503 (or another refusal) when not; null when nothing was refused. */
  limiting_status: number | null;
  /** Requests per second the limit accepts in steady state; null when the probe never saw it. */
  sustained_rps: number | null;
  /** Worst-case relative error of sustained_rps from the window's length and pacing (0.01 = ±1 %). */
  sustained_precision: number | null;
  /** Requests that pass back-to-back from idle (what the limiter holds, minus what refilled during the burst). */
  burst: number | null;
  /** True when the burst was measured after waiting for a full refill and the same size came back. */
  burst_from_idle: boolean;
  /** Longest wait, after a refused request, until the next request passed (limiter saturated). */
  recovery_s: number | null;
  /** Time a drained limiter needs to hold its whole burst again (burst / sustained rate). */
  refill_s: number | null;
  retry_after_header: RetryAfterVerdict;
  /** The largest Retry-After seen, seconds. */
  retry_after_max_s: number | null;
  ratelimit_headers?: RateLimitHeaders;
  /** What the service announced of its limit (RateLimit headers), and whether the probe's measurement agreed. */
  advertised?: AdvertisedLimit;
  scope: Scope;
  /** p95 latency of accepted requests, ms: with the target rate it sizes concurrency (Little's law). */
  latency_p95_ms: number | null;
  /** Every request the probe sent, set-up included (token, validate method). */
  requests_sent: number;
  /** Every answer that was the limit's refusal (429, or the non-conformant status). */
  requests_limited: number;
  duration_s: number;
  /** At 100 ms resolution, each point with the phase that sent it. */
  timeline: TimelinePoint[];
  /** The limiter the probe identified (kind and parameters), null when it could not tell. */
  limiter: LimiterModel | null;
  /** Why that kind: what the probe saw, one sentence each. */
  limiter_evidence: string[];
  notes: string[];
  /** Interrupted (signal) or out of budget before every figure was known. */
  partial: boolean;
}

export interface Recommendation {
  target_rps: number;
  max_concurrency: number;
  backoff: BackoffPolicy;
  /** Longest a follower of the policy may wait for one request across its retries, seconds. */
  retry_budget_s: number;
  /** The reasoning, one line per figure, for the report's notes. */
  why: string[];
}

export interface Proof {
  rate_429: number;
  goodput_rps: number;
  lost_requests: number;
}
