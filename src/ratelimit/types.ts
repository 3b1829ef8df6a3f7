// The data the rate-limit probe produces and the recommendation consumes. Plain objects only: the
// stage turns an Estimate (plus a Recommendation and a Proof) into the report's RateLimitResult.

import type { BackoffPolicy, RateLimitMeasurement, RateLimitResult } from '../report/model.js';
import type { RateLimitEndpoint } from '../spec/endpoints.js';

/** How one answer counts for the limiter: let through, refused by the limit, or no answer at all. */
export type Answer = 'accepted' | 'limited' | 'error';

/** Which part of the probe sent a request (the timeline and the estimators select by it). */
export type PhaseName =
  | 'drain'
  /** A first drain the service did not keep up with (probe/outrun.ts): not read as the limit's. */
  | 'outrun'
  /**
   * The limit still shut when the probe began (spent by what came before it: the set-up requests,
   * or the checks): the first drain's refusals and the pings until one passed. Not the drain's.
   */
  | 'shut'
  | 'pilot'
  | 'window'
  | 'retry-after'
  | 'idle-burst'
  | 'scope'
  | 'recover'
  | 'edges'
  | 'period'
  | 'counts-refused'
  | 'advertised'
  | 'announced';

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

/**
 * What the probe measured: the report's RateLimitMeasurement, every figure present (null when
 * unknown), plus the working figures the recommendation and the fleet read but the report does not
 * carry (toRateLimitResult drops them, and keeps only the headers' names).
 */
export interface Estimate
  extends
    Required<
      Omit<
        RateLimitMeasurement,
        'endpoint' | 'timeline' | 'advertised' | 'announced' | 'limiters' | 'no_limit_up_to' | 'served_rps'
      >
    >,
    Pick<RateLimitMeasurement, 'advertised' | 'announced' | 'limiters' | 'no_limit_up_to' | 'served_rps'>,
    EstimateWorkings {
  endpoint: RateLimitEndpoint;
  /** At 100 ms resolution, each point with the phase that sent it. */
  timeline: TimelinePoint[];
}

/** The Estimate's figures that stay inside the probe: the report's rate_limit has no field for them. */
export interface EstimateWorkings {
  /** Worst-case relative error of sustained_rps from the window's length and pacing (0.01 = ±1 %). */
  sustained_precision: number | null;
  /** True when the burst was measured after waiting for a full refill and the same size came back. */
  burst_from_idle: boolean;
  /**
   * What passed back-to-back before the first refusal, the refill meanwhile not taken away (the
   * burst takes away what the sustained rate read refilled): it stands when a proof refutes that
   * rate, as a bound from above on the burst. Absent when the burst was not read that way.
   */
  burst_passed?: number;
  /** The largest Retry-After seen, seconds. */
  retry_after_max_s: number | null;
  /** The headers in full; the report keeps their names. */
  ratelimit_headers?: RateLimitHeaders;
  /** p95 latency of accepted requests, ms: with the target rate it sizes concurrency (Little's law). */
  latency_p95_ms: number | null;
  /**
   * p95 latency of the accepted requests the probe sent with none of its own in flight, ms
   * (probe/stream.ts aloneLatencyP95): what the timings of one answer after another wait on, a queue
   * its own concurrency built left out. Absent with too few of them.
   */
  latency_alone_p95_ms?: number;
  /**
   * The probe's timeline at 100 ms, present when the chart's (`timeline`) is coarser (a probe past
   * 30 s): what the stacked inference replays. Each slot's requests are replayed spread evenly, and
   * over 1 s slots a queue admitted 2 % more than nginx had (bench real-stack, 29 Nov: 1008 of the
   * probe's 1063 against 986), which the fitted second bucket's burst absorbed (620 for nginx's 601).
   */
  replay_timeline?: TimelinePoint[];
  /**
   * Where paced proof rounds search for the rate of a limiter the probe refused but did not
   * identify (rate-bracket.ts); absent when one was identified or nothing was refused. The report
   * says it in words (the search's first policy and its notes), not as a figure of its own.
   */
  rate_bracket?: RateBracket;
  /**
   * The probe stopped only because its time ran out (the cap, or a next step that would pass it) or
   * it had sent rate_limit.max_requests: a search's rounds rest on their own evidence, not on the
   * figures a longer probe would have read, so it still runs (src/stages/rate-limit.ts). Absent
   * otherwise (interrupted, the service stopped answering, production's budget).
   */
  out_of_budget?: 'time' | 'requests';
  /**
   * Each quota the answers announced with a window and a count left (Kong's X-RateLimit-Remaining-
   * Minute, an IETF RateLimit's r=), as the probe's last answer left it: a proof round that needs
   * more than is left waits until the window is whole again (proof-quota.ts), or it is refused by
   * the probe's own requests, which no client adopting the policy meets. Absent when none was said.
   */
  quotas_left?: QuotaLeft[];
}

/** An announced quota as the probe left it (EstimateWorkings.quotas_left). */
export interface QuotaLeft {
  limit: number;
  window_s: number;
  /** Requests the last answer said were left in the window. */
  remaining: number;
  /**
   * When the window counting them is over at the latest, ms on the probe's clock: the window began
   * by the first answer counted in it (the first heard, or the first after the count left rose), so
   * it ends a window after that answer arrived; sooner when a reset the last answer announced says so.
   */
  whole_by_ms: number;
}

/** The report's recommendation, with its reasoning. */
export interface Recommendation extends NonNullable<RateLimitResult['recommendation']> {
  /** Longest a follower of the policy may wait for one request across its retries, seconds. */
  retry_budget_s: number;
  /** The reasoning, one line per figure, for the report's notes. */
  why: string[];
  /**
   * The proof loop's reasons for the rate, round by round (proof-loop.ts), when it set it: a policy
   * sized again at that rate (recommend.ts policyAt) keeps them in place of the first rate's reason.
   */
  steps?: string[];
  /** The backoff a proof round that lost calls widened it to: a policy sized again keeps at least it. */
  widened?: Pick<BackoffPolicy, 'base_ms' | 'max_retries'>;
}

export type Proof = NonNullable<RateLimitResult['proof']>;

/** Where a paced search for the rate of a limiter not identified starts, and what bounds it. */
export interface RateBracket {
  /** The search's first rate: what the probe got through per second over its whole run. */
  low: number;
  /** No rate at or above this is sustained: the drain's pace, refused from rest. */
  high: number;
  /** Requests the drain had let through before its first refusal (a burst the rounds must outlast). */
  drained: number;
  /**
   * The longest the probe saw the limit stay shut, seconds: from a refusal to the next acceptance.
   * No refill was read, so a round waits this long for the limit to rest, as a new client meets it.
   */
  restS: number;
  /**
   * The drain's longest run after its first refusal that the limit let through whole, when it let
   * through more than `drained` (a second drain at a pace the service kept up with, discover.ts
   * drainAgainSlower): a hold of the probe's own, which proves what a client running longer is sure
   * of past the store (search-loop.ts surePastStore). Absent otherwise.
   */
  probeHold?: ProbeHold;
  /** Why each end is where it is, one sentence each. */
  why: string[];
  /**
   * A limit that delays instead of refusing (probe/queued-pace.ts): how long the line's first answers
   * took, ms, what a request paced below the service's pace takes. Absent for a limit that refused.
   */
  lineFirstMs?: number;
}

/** Requests a run let through, none refused, from its first sent to its last answered, seconds. */
export interface ProbeHold {
  requests: number;
  s: number;
}
