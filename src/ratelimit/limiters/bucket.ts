// A token bucket, refilled lazily from the elapsed time when a request arrives: no timers, and an
// idle client costs nothing. A leaky bucket as nginx's `limit_req` runs it admits the same requests.

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import type { BucketModel, LimitDecision, Limiter } from './model.js';

export class BucketLimiter implements Limiter {
  protected tokens: number;
  private lastMs: number | null = null;
  protected readonly rate: number;
  protected readonly capacity: number;

  /** A capacity below 1 could never admit anyone, so it is raised to 1. */
  constructor(model: Pick<BucketModel, 'rate_rps' | 'burst'>) {
    this.rate = model.rate_rps;
    this.capacity = Math.max(1, model.burst);
    this.tokens = this.capacity;
  }

  take(nowMs: number): LimitDecision {
    this.refill(nowMs);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil(this.untilTokenMs(nowMs) / 1000)) };
  }

  test(nowMs: number): LimitDecision {
    // Refilling only moves the bucket to now, which any later look would do the same.
    this.refill(nowMs);
    return this.tokens >= 1
      ? { ok: true }
      : { ok: false, retryAfterS: Math.max(1, Math.ceil(this.untilTokenMs(nowMs) / 1000)) };
  }

  /** Truthful Retry-After: how long until one token has dripped back. */
  protected untilTokenMs(_nowMs: number): number {
    return ((1 - this.tokens) / this.rate) * 1000;
  }

  /** The burst as the quota, the time a full refill takes as its window (what gateways over a bucket announce). */
  quota(nowMs: number): QuotaState {
    this.refill(nowMs);
    const windowS = this.capacity / this.rate;
    return {
      limit: this.capacity,
      windowS: Math.max(1, Math.round(windowS)),
      remaining: Math.floor(this.tokens),
      resetS: (this.capacity - this.tokens) / this.rate,
    };
  }

  protected refill(nowMs: number): void {
    if (this.lastMs !== null) {
      // A clock moved backwards (tests may do that) must not drain or overfill the bucket.
      const elapsedS = Math.max(0, nowMs - this.lastMs) / 1000;
      this.tokens = Math.min(this.capacity, this.tokens + elapsedS * this.rate);
    }
    this.lastMs = Math.max(this.lastMs ?? nowMs, nowMs);
  }
}
