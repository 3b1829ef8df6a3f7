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
  // The counters, kept as plain fields and rotated in place: the fit replays thousands of candidate
  // periods over a probe's trace (probe/counter-fit.ts), and a copy per look made that seconds long.
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
      if (this.rate(this.periodStartMs, this.current, this.previous, nowMs) <= this.model.limit) return { ok: true };
    } else if (this.rate(this.periodStartMs, this.current, this.previous, nowMs) < this.model.limit) {
      this.current += 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: this.retryAfterS(this.periodStartMs, nowMs) };
  }

  /** Counting nothing, and opening no period either: a period starts at a request, not at a look. */
  test(nowMs: number): LimitDecision {
    let [startMs, current, previous] = [this.periodStartMs, this.current, this.previous];
    // As rotate() would move them, on copies.
    if (nowMs - startMs >= 2 * this.periodMs) [startMs, current, previous] = [nowMs, 0, 0];
    else if (nowMs - startMs >= this.periodMs) [startMs, current, previous] = [startMs + this.periodMs, 0, current];
    const counted = this.model.counts_refused ? 1 : 0;
    return this.rate(startMs, current + counted, previous, nowMs) < this.model.limit + counted
      ? { ok: true }
      : { ok: false, retryAfterS: this.retryAfterS(startMs, nowMs) };
  }

  // HAProxy's recipes send no Retry-After; this one says when the current period ends, when the
  // previous count stops weighing.
  private retryAfterS(periodStartMs: number, nowMs: number): number {
    return Math.max(1, Math.ceil((periodStartMs + this.periodMs - nowMs) / 1000));
  }

  /** The counters moved as time has moved them by `nowMs`. A clock moved backwards stays in the period it was in. */
  private rotate(nowMs: number): void {
    if (nowMs - this.periodStartMs < this.periodMs) return;
    if (nowMs - this.periodStartMs >= 2 * this.periodMs)
      [this.periodStartMs, this.current, this.previous] = [nowMs, 0, 0];
    else [this.periodStartMs, this.current, this.previous] = [this.periodStartMs + this.periodMs, 0, this.current];
  }

  private rate(periodStartMs: number, current: number, previous: number, nowMs: number): number {
    const left = this.periodMs - (nowMs - periodStartMs);
    return current + Math.floor((previous * left) / this.periodMs);
  }
}
