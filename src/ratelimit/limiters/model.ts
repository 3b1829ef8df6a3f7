// The shapes of rate limiters real services run, as plain data. The emulator enforces them, the
// probe identifies one from what it saw, and the fleet simulator replays clients against one: all
// three speak of a limiter through this type, so an identified limiter can be simulated as is.

/** Token (or leaky) bucket: `burst` requests back to back from idle, refilled at `rate_rps`. */
export interface BucketModel {
  kind: 'bucket';
  rate_rps: number;
  burst: number;
}

/**
 * Fixed window: at most `limit` requests per window of `window_s` seconds; the count resets at each
 * window edge. `phase_s` is where the edges fall, seconds after the limiter's clock origin, modulo
 * the window (express-rate-limit resets on a timer, rate-limiter-flexible from a client's first request).
 */
export interface FixedWindowModel {
  kind: 'fixed-window';
  limit: number;
  window_s: number;
  phase_s: number;
  /** Refused requests count against the client too, so hammering keeps the window full. */
  counts_refused: boolean;
}

/**
 * Sliding window: at most `limit` requests in any `period_s` seconds (a sliding log, as Redis sorted
 * sets keep; HAProxy's `http_req_rate(<period>)` approximates it from two fixed windows).
 */
export interface SlidingWindowModel {
  kind: 'sliding-window';
  limit: number;
  period_s: number;
  /** Refused requests are logged too (the usual stick-table recipe tracks every request). */
  counts_refused: boolean;
}

export type LimiterModel = BucketModel | FixedWindowModel | SlidingWindowModel;
export type LimiterKind = LimiterModel['kind'];
export const LIMITER_KINDS = ['bucket', 'fixed-window', 'sliding-window'] as const satisfies readonly LimiterKind[];

/** What a limiter says to one request: let it through, or refuse it and say when to come back. */
export type LimitDecision = { ok: true } | { ok: false; retryAfterS: number };

/** One client's limiter state. Time is given, never read, so the simulator and tests own the clock. */
export interface Limiter {
  take(nowMs: number): LimitDecision;
}

/** The long-run rate a limiter admits to a client that always has work, requests per second. */
export function sustainedRate(model: LimiterModel): number {
  switch (model.kind) {
    case 'bucket':
      return model.rate_rps;
    case 'fixed-window':
      return model.limit / model.window_s;
    case 'sliding-window':
      return model.limit / model.period_s;
  }
}

/** How many requests pass back to back from idle. */
export function burstSize(model: LimiterModel): number {
  return model.kind === 'bucket' ? model.burst : model.limit;
}

/** One line a person reads: "token bucket 50 req/s, burst 20". */
export function describeLimiter(model: LimiterModel): string {
  const refused = (m: FixedWindowModel | SlidingWindowModel) => (m.counts_refused ? ', refused requests count' : '');
  switch (model.kind) {
    case 'bucket':
      return `token bucket ${model.rate_rps} req/s, burst ${model.burst}`;
    case 'fixed-window':
      return `fixed window ${model.limit} per ${model.window_s} s${refused(model)}`;
    case 'sliding-window':
      return `sliding window ${model.limit} per ${model.period_s} s${refused(model)}`;
  }
}
