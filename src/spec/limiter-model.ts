// The shapes of rate limiters real services run (§8 leaves the kind open), as plain data: the
// emulator enforces them, the rate-limit probe identifies one, the report carries it and a fleet
// simulator can replay it. Types only, here so the report's model can name them without reaching
// into the probe; src/ratelimit/limiters/ re-exports them beside the limiters themselves.

/** Token (or leaky) bucket: `burst` requests back to back from idle, refilled at `rate_rps`. */
export interface BucketModel {
  kind: 'bucket';
  rate_rps: number;
  burst: number;
  /**
   * Refilled by a timer in whole batches, `rate_rps` × `fill_interval_s` tokens every
   * `fill_interval_s` seconds on the limiter's clock (Envoy's token_bucket `fill_interval`); absent:
   * refilled continuously (golang.org/x/time/rate, nginx), a token every 1 / `rate_rps`.
   */
  fill_interval_s?: number;
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
  /**
   * `first-request`: a window opens at the client's first request after the last one ended
   * (rate-limiter-flexible's stores), so its edges move with the client and `phase_s` means nothing;
   * `clock` (or absent): the edges fall at `phase_s` + k × `window_s` whatever the client does.
   */
  edges?: 'clock' | 'first-request';
}

/**
 * Sliding window: at most `limit` requests in any `period_s` seconds (a sliding log, as Redis sorted
 * sets keep; HAProxy's `http_req_rate(<period>)` approximates it from two fixed windows).
 */
export interface SlidingWindowModel {
  kind: 'sliding-window';
  limit: number;
  period_s: number;
  /**
   * Refused requests are logged too (the usual stick-table recipe tracks every request); null when
   * the probe could not test it (its trial was disturbed every time): unknown, never a guess.
   */
  counts_refused: boolean | null;
  /**
   * How the window counts: 'log' (the default) every request's time; 'interpolated' as HAProxy's
   * stick tables do, the current period's count plus the previous one's weighted by what is left
   * of it, which lets retries through at other moments than a log would.
   */
  counter?: 'log' | 'interpolated';
  /**
   * The probe could not tell this log from a fixed window opened at the client's first request
   * (rate-limiter-flexible's): both let a clump from idle back a period after it. Limit, period and
   * sustained rate are the same either way; what replays it replays the log, the stricter of the two.
   */
  or_opened_window?: true;
}

/**
 * Sliding-window counter (go-chi/httprate, Cloudflare's recipe, many Redis limiters): two counts on
 * windows of `window_s` on the clock, edges at `phase_s` + k × `window_s` (httprate ≥ 0.16 aligns
 * them to the limiter's start, Redis-backed counters to the Unix epoch: phase 0); the rate read
 * is the previous window's count weighted by the share of the current window still to come, plus
 * the current count, rounded; a request is refused when that has reached `limit`. Only admitted
 * requests are counted, unless `counts_refused`.
 */
export interface SlidingCounterModel {
  kind: 'sliding-counter';
  limit: number;
  window_s: number;
  phase_s: number;
  counts_refused: boolean | null;
}

/**
 * A limiter that delays before it refuses: nginx's `limit_req` without `nodelay` (its documented
 * default form), traffic-shaping gateways. A leaky bucket at `rate_rps`: a request beyond the rate
 * waits in a queue until it conforms, up to `burst` requests in excess; beyond the queue, refused.
 * From idle `burst` + 1 pass: the first `delay` + 1 at once (nginx's `delay=`; 0 without it), the
 * rest each 1 / `rate_rps` later than the one before. Only admitted requests count.
 */
export interface QueueModel {
  kind: 'queue';
  rate_rps: number;
  /** Requests admitted in excess of the rate (nginx's `burst`): the queue's room, the undelayed ones included. */
  burst: number;
  /** Of the excess, how many pass without waiting (nginx's `delay=`); the other `burst` − `delay` wait. */
  delay: number;
}

export type LimiterModel = BucketModel | FixedWindowModel | SlidingWindowModel | SlidingCounterModel | QueueModel;
export type LimiterKind = LimiterModel['kind'];

/**
 * A limiter as services publish it: several limits at once (Kong's `second` and `minute`,
 * Flask-Limiter's "200 per day; 50 per hour", two nginx `limit_req` zones, a gateway's limit in front
 * of the application's). A request passes when every limit admits it. Each limit keeps its own
 * counting rule: one with `counts_refused` counts every request that reaches it, refused by itself or
 * by another limit of the set; one without (and a bucket) counts only the requests the whole set let
 * through. Never empty; a set of one is that one limit, enforced and described exactly as alone.
 */
export type LimiterSet = readonly [LimiterModel, ...LimiterModel[]];
/** One limit or a set of them: what the emulator enforces and the fleet simulator replays. */
export type Limits = LimiterModel | LimiterSet;
export const LIMITER_KINDS = [
  'bucket',
  'fixed-window',
  'sliding-window',
  'sliding-counter',
  'queue',
] as const satisfies readonly LimiterKind[];
