// A token bucket refilled by a timer in whole batches, as Envoy's local rate limit does
// (token_bucket: max_tokens, tokens_per_fill, fill_interval): every `fill_interval_s` on the
// limiter's clock (ticks at whole multiples of it) the bucket gains rate × interval tokens, up to
// its capacity. Between ticks nothing drips back, so a drained client waits for the next tick and
// then gets a whole batch at once: a staircase where a lazily refilled bucket (bucket.ts) is a ramp.

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import { BucketLimiter } from './bucket.js';
import type { BucketModel } from './model.js';

export class BatchBucketLimiter extends BucketLimiter {
  private tick = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;
  private readonly perFill: number;

  constructor(model: Pick<BucketModel, 'rate_rps' | 'burst'> & { fill_interval_s: number }) {
    super(model);
    this.intervalMs = model.fill_interval_s * 1000;
    // Envoy counts whole tokens: a batch of at least one.
    this.perFill = Math.max(1, Math.round(model.rate_rps * model.fill_interval_s));
  }

  override quota(nowMs: number): QuotaState {
    this.refill(nowMs);
    const fillsToFull = Math.ceil((this.capacity - this.tokens) / this.perFill);
    const resetS = fillsToFull === 0 ? 0 : ((this.tick + fillsToFull) * this.intervalMs - nowMs) / 1000;
    return {
      limit: this.capacity,
      windowS: Math.max(1, Math.round((this.capacity / this.perFill) * (this.intervalMs / 1000))),
      remaining: this.tokens,
      resetS,
    };
  }

  /** Nothing comes back before the next tick. */
  protected override untilTokenMs(nowMs: number): number {
    return (this.tick + 1) * this.intervalMs - nowMs;
  }

  protected override refill(nowMs: number): void {
    const tick = Math.floor(nowMs / this.intervalMs);
    // The first look starts the count; a clock moved backwards adds nothing.
    if (tick > this.tick && this.tick !== Number.NEGATIVE_INFINITY)
      this.tokens = Math.min(this.capacity, this.tokens + (tick - this.tick) * this.perFill);
    this.tick = Math.max(this.tick, tick);
  }
}
