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
  private periodStartMs = Number.NEGATIVE_INFINITY;
  private current = 0;
  private previous = 0;
  private readonly periodMs: number;

  constructor(private readonly model: Omit<SlidingWindowModel, 'kind'>) {
    this.periodMs = model.period_s * 1000;
  }

  take(nowMs: number): LimitDecision {
    this.rotate(nowMs);
    if (this.model.counts_refused) {
      this.current += 1;
      if (this.rate(nowMs) <= this.model.limit) return { ok: true };
    } else {
      if (this.rate(nowMs) < this.model.limit) {
        this.current += 1;
        return { ok: true };
      }
    }
    // HAProxy's recipes send no Retry-After; this one says when the current period ends, when the
    // previous count stops weighing.
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((this.periodStartMs + this.periodMs - nowMs) / 1000)) };
  }

  private rotate(nowMs: number): void {
    // A clock moved backwards stays in the period it was in.
    if (nowMs - this.periodStartMs < this.periodMs) return;
    if (nowMs - this.periodStartMs >= 2 * this.periodMs) {
      this.previous = 0;
      this.current = 0;
      this.periodStartMs = nowMs;
      return;
    }
    this.previous = this.current;
    this.current = 0;
    this.periodStartMs += this.periodMs;
  }

  private rate(nowMs: number): number {
    const left = this.periodMs - (nowMs - this.periodStartMs);
    return this.current + Math.floor((this.previous * left) / this.periodMs);
  }
}
