// A sliding log: the times of the requests in the last period, oldest first. A request passes when
// fewer than `limit` are logged; with `counts_refused` a refused request is logged too, so a client
// that keeps hammering never sees the window empty.

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
    while (this.head < this.log.length && this.log[this.head]! <= nowMs - this.periodMs) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.log.length) {
      this.log.splice(0, this.head);
      this.head = 0;
    }
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
}
