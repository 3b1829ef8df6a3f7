// The shapes of rate limiters real services run, as plain data. The emulator enforces them, the
// probe identifies one from what it saw, and the fleet simulator replays clients against one: all
// three speak of a limiter through this type, so an identified limiter can be simulated as is.

import type {
  FixedWindowModel,
  LimiterModel,
  QueueModel,
  LimiterSet,
  Limits,
  SlidingCounterModel,
  SlidingWindowModel,
} from '../../spec/limiter-model.js';
import type { QuotaState } from '../../spec/ratelimit-fields.js';

export * from '../../spec/limiter-model.js';

/**
 * What a limiter says to one request: let it through, or refuse it and say when to come back. A
 * queue (queue.ts) lets a request through after `delayMs` of waiting its turn; absent: at once.
 */
export type LimitDecision = { ok: true; delayMs?: number } | { ok: false; retryAfterS: number };

/** One client's limiter state. Time is given, never read, so the simulator and tests own the clock. */
export interface Limiter {
  take(nowMs: number): LimitDecision;
  /**
   * What `take` would answer now, counting nothing (Python `limits`' `test` beside its `hit`): a set
   * of limits asks each before any counts, so a limit that counts only admitted requests is left
   * untouched by a request another limit refuses.
   */
  test(nowMs: number): LimitDecision;
  /**
   * The client's quota as a service that announces it would say it (RateLimit headers), read
   * without taking anything; absent for a limiter with no quota to speak of (HAProxy's rate).
   */
  quota?(nowMs: number): QuotaState;
  /** Every limit's quota, for a set of limits (stacked.ts): what a gateway announcing each one says. */
  quotas?(nowMs: number): QuotaState[];
}

/** Windows on the clock: edges at `phaseMs` + k × `windowMs` (fixed windows, httprate's counter). */
export class WindowLattice {
  readonly windowMs: number;
  readonly phaseMs: number;

  constructor(windowS: number, phaseS: number) {
    this.windowMs = windowS * 1000;
    this.phaseMs = phaseS * 1000;
  }

  /** Which window `nowMs` falls in. */
  index(nowMs: number): number {
    return Math.floor((nowMs - this.phaseMs) / this.windowMs);
  }

  startMs(index: number): number {
    return this.phaseMs + index * this.windowMs;
  }
}

/** The limits of one limit or of a set, as a set. */
export const limitsOf = (limits: Limits): LimiterSet => (isLimiterSet(limits) ? limits : [limits]);

export const isLimiterSet = (limits: Limits): limits is LimiterSet => Array.isArray(limits);

/** A set of one is that limit: everything that takes a set treats it exactly as the limit alone. */
export const singleLimit = (limits: Limits): LimiterModel | null => {
  const set = limitsOf(limits);
  return set.length === 1 ? set[0] : null;
};

/** Counts the requests another limit of its set refused (LimiterSet): its counting rule. */
export const countsRefused = (model: LimiterModel): boolean =>
  'counts_refused' in model && model.counts_refused === true;

/**
 * The long-run rate a limiter admits to a client that always has work, requests per second; of a
 * set, the lowest limit's (every limit must admit each request, so the slowest one paces the client).
 */
export function sustainedRate(limits: Limits): number {
  return Math.min(...limitsOf(limits).map(sustainedRateOf));
}

function sustainedRateOf(model: LimiterModel): number {
  switch (model.kind) {
    case 'bucket':
    case 'queue':
      return model.rate_rps;
    case 'fixed-window':
      return model.limit / model.window_s;
    case 'sliding-window':
      return model.limit / model.period_s;
    case 'sliding-counter':
      return model.limit / model.window_s;
  }
}

/** How many requests pass back to back from idle, of one limit (a queue's after waiting their turn; a set's: index.ts, by replaying it). */
export const burstOf = (model: LimiterModel): number =>
  model.kind === 'queue' ? model.burst + 1 : model.kind === 'bucket' ? model.burst : model.limit;

/** The longest a request admitted by a queue waits in it, ms: the last of its `burst` − `delay` waiting places. */
export function queueDelayMs(model: QueueModel): number {
  return (Math.max(0, model.burst - model.delay) / model.rate_rps) * 1000;
}

/** One line a person reads: "token bucket 50 req/s, burst 20"; a set's limits joined by "and". */
export function describeLimiter(limits: Limits): string {
  return limitsOf(limits).map(describeOne).join(' and ');
}

function describeOne(model: LimiterModel): string {
  const refused = (m: FixedWindowModel | SlidingWindowModel | SlidingCounterModel) =>
    m.counts_refused === null
      ? ', refused requests may count (not tested)'
      : m.counts_refused
        ? ', refused requests count'
        : '';
  switch (model.kind) {
    case 'bucket':
      return `token bucket ${model.rate_rps} req/s, burst ${model.burst}${model.fill_interval_s === undefined ? '' : `, refilled every ${model.fill_interval_s} s`}`;
    case 'fixed-window':
      return `fixed window ${model.limit} per ${model.window_s} s${model.edges === 'first-request' ? ', each starting at the first request after a window ends' : ''}${refused(model)}`;
    case 'sliding-window':
      return `sliding window ${model.limit} per ${model.period_s} s${model.or_opened_window ? ', or a fixed window opened at the first request (the two not told apart)' : ''}${refused(model)}`;
    case 'sliding-counter':
      return `sliding-window counter ${model.limit} per ${model.window_s} s${refused(model)}`;
    case 'queue':
      return `queue ${model.rate_rps} req/s, burst ${model.burst}${model.delay > 0 ? ` (the first ${model.delay} without delay)` : ''}: up to ${model.burst - model.delay} wait, at most ${Math.round(queueDelayMs(model))} ms, beyond that refused`;
  }
}
