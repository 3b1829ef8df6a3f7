// A sliding-window counter as go-chi/httprate keeps it (limiter.go, v0.16.1; Cloudflare's recipe and
// many Redis limiters do the same): per key, the count of the current window and of the previous
// one, on windows aligned to the clock. The rate read is the previous count weighted by the share
// of the current window still to come plus the current count, rounded; a request is refused when
// one more would take it past the limit. Unlike HAProxy's counter (interpolated-window.ts) the
// windows do not start at the first request, and the weight is not rounded down.

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import { WindowLattice, type LimitDecision, type Limiter, type SlidingCounterModel } from './model.js';

export class SlidingCounterLimiter implements Limiter {
  private windowStartMs = Number.NEGATIVE_INFINITY;
  private current = 0;
  private previous = 0;
  private readonly lattice: WindowLattice;

  constructor(private readonly model: Omit<SlidingCounterModel, 'kind'>) {
    this.lattice = new WindowLattice(model.window_s, model.phase_s);
  }

  take(nowMs: number): LimitDecision {
    this.rotate(nowMs);
    if (this.rate(nowMs) + 1 <= this.model.limit) {
      this.current += 1;
      return { ok: true };
    }
    // Unknown (null) is enforced as not counting, as the sliding log does.
    if (this.model.counts_refused) this.current += 1;
    // httprate's Retry-After: a whole window, whatever is left of the current one.
    return { ok: false, retryAfterS: Math.max(1, Math.ceil(this.model.window_s)) };
  }

  test(nowMs: number): LimitDecision {
    this.rotate(nowMs);
    return this.rate(nowMs) + 1 <= this.model.limit
      ? { ok: true }
      : { ok: false, retryAfterS: Math.max(1, Math.ceil(this.model.window_s)) };
  }

  /** httprate's headers: the limit, what is left of it by the rate read now, the window's end. */
  quota(nowMs: number): QuotaState {
    this.rotate(nowMs);
    return {
      limit: this.model.limit,
      windowS: this.model.window_s,
      remaining: Math.max(0, this.model.limit - this.rate(nowMs)),
      resetS: (this.windowStartMs + this.lattice.windowMs - nowMs) / 1000,
    };
  }

  private rotate(nowMs: number): void {
    const startMs = this.lattice.startMs(this.lattice.index(nowMs));
    // A clock moved backwards stays in the window it was in.
    if (startMs <= this.windowStartMs) return;
    this.previous = startMs - this.windowStartMs === this.lattice.windowMs ? this.current : 0;
    this.current = 0;
    this.windowStartMs = startMs;
  }

  private rate(nowMs: number): number {
    const left = this.lattice.windowMs - (nowMs - this.windowStartMs);
    return Math.round((this.previous * left) / this.lattice.windowMs + this.current);
  }
}
