// A sliding log: the times of the requests in the last period, oldest first. A request passes when
// fewer than `limit` are logged; with `counts_refused` a refused request is logged too, so a client
// that keeps hammering never sees the window empty.

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import type { LimitDecision, Limiter, SlidingWindowModel } from './model.js';

export class SlidingWindowLimiter implements Limiter {
  /** Ring of logged times; `head` is the oldest. Bounded: at most `limit` entries are ever needed. */
  private readonly log: number[] = [];
  private head = 0;
  private readonly periodMs: number;

  constructor(private readonly model: Omit<SlidingWindowModel, 'kind'>) {
    this.periodMs = model.period_s * 1000;
  }

  take(nowMs: number): LimitDecision {
    this.forget(nowMs);
    const inWindow = this.log.length - this.head;
    if (inWindow < this.model.limit) {
      this.log.push(nowMs);
      return { ok: true };
    }
    // Refused requests beyond the limit only push the oldest-relevant time forward; keeping `limit`
    // entries is enough to know when the window frees, so the log never grows past it.
    // Unknown (null) is enforced as not counting: whoever replays an identified model decides the
    // worse case first (the fleet simulator does, fleet/limiter-of.ts).
    if (this.model.counts_refused) {
      this.log.push(nowMs);
      this.head += 1;
    }
    const freesAtMs = this.log[this.head]! + this.periodMs;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((freesAtMs - nowMs) / 1000)) };
  }

  test(nowMs: number): LimitDecision {
    this.forget(nowMs);
    if (this.log.length - this.head < this.model.limit) return { ok: true };
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((this.log[this.head]! + this.periodMs - nowMs) / 1000)) };
  }

  /** Whole again once the newest logged request has aged out of the period. */
  quota(nowMs: number): QuotaState {
    this.forget(nowMs);
    const inWindow = this.log.length - this.head;
    const newest = this.log[this.log.length - 1];
    return {
      limit: this.model.limit,
      windowS: this.model.period_s,
      remaining: Math.max(0, this.model.limit - inWindow),
      resetS: inWindow === 0 || newest === undefined ? 0 : (newest + this.periodMs - nowMs) / 1000,
    };
  }

  /** Drops the requests older than a period. */
  private forget(nowMs: number): void {
    while (this.head < this.log.length && this.log[this.head]! <= nowMs - this.periodMs) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log.splice(0, this.head);
      this.head = 0;
    }
  }
}
