// HAProxy's `http_req_rate(<period>)` as a stick table keeps it (freq_ctr.c, HAProxy 2.6): no log of
// times, two counters. The current period counts its requests; when it ends, its count becomes the
// previous period's, and the rate read at any moment is the current count plus the previous one
// weighted by the share of the current period still to come, rounded down. A period starts at the
// first request; after two idle periods the counters start afresh from the request that finds them.
// With `counts_refused` the request is counted first and refused when the rate including it is over
// the limit (the usual recipe: track every request); without, it is refused when the rate before it
// has reached the limit, and only admitted requests are counted.

import type { LimitDecision, Limiter, SlidingWindowModel } from './model.js';

export class InterpolatedWindowLimiter implements Limiter {
  private state: Period = { periodStartMs: Number.NEGATIVE_INFINITY, current: 0, previous: 0 };
  private readonly periodMs: number;

  constructor(private readonly model: Omit<SlidingWindowModel, 'kind'>) {
    this.periodMs = model.period_s * 1000;
  }

  take(nowMs: number): LimitDecision {
    const state = (this.state = this.rotated(nowMs));
    if (this.model.counts_refused) {
      state.current += 1;
      if (this.rate(state, nowMs) <= this.model.limit) return { ok: true };
    } else {
      if (this.rate(state, nowMs) < this.model.limit) {
        state.current += 1;
        return { ok: true };
      }
    }
    return { ok: false, retryAfterS: this.retryAfterS(state, nowMs) };
  }

  /** Counting nothing, and opening no period either: a period starts at a request, not at a look. */
  test(nowMs: number): LimitDecision {
    const state = this.rotated(nowMs);
    const counted = this.model.counts_refused ? 1 : 0;
    return this.rate({ ...state, current: state.current + counted }, nowMs) < this.model.limit + counted
      ? { ok: true }
      : { ok: false, retryAfterS: this.retryAfterS(state, nowMs) };
  }

  // HAProxy's recipes send no Retry-After; this one says when the current period ends, when the
  // previous count stops weighing.
  private retryAfterS(state: Period, nowMs: number): number {
    return Math.max(1, Math.ceil((state.periodStartMs + this.periodMs - nowMs) / 1000));
  }

  /** The counters as they stand at `nowMs`, rotated as time has moved them. */
  private rotated(nowMs: number): Period {
    const { periodStartMs, current, previous } = this.state;
    // A clock moved backwards stays in the period it was in.
    if (nowMs - periodStartMs < this.periodMs) return { periodStartMs, current, previous };
    if (nowMs - periodStartMs >= 2 * this.periodMs) return { periodStartMs: nowMs, current: 0, previous: 0 };
    return { periodStartMs: periodStartMs + this.periodMs, current: 0, previous: current };
  }

  private rate(state: Period, nowMs: number): number {
    const left = this.periodMs - (nowMs - state.periodStartMs);
    return state.current + Math.floor((state.previous * left) / this.periodMs);
  }
}

interface Period {
  periodStartMs: number;
  current: number;
  previous: number;
}
