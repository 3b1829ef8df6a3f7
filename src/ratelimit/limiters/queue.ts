// nginx's limit_req without `nodelay` (ngx_http_limit_req_module.c, its lookup and account steps):
// a leaky bucket that delays before it refuses. Its state is the excess over the rate in requests,
// drained at `rate_rps`; a request adds one. Beyond `burst` in excess it is refused (not counted);
// admitted, it waits until it conforms to the rate: (excess − delay) / rate seconds, nothing while
// the excess is within `delay` (nginx's `delay=`). The first request of a client, or after an idle
// long enough to drain the excess, finds none (nginx starts a node at 0 and clamps at 0).

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import type { LimitDecision, Limiter, QueueModel } from './model.js';

export class QueueLimiter implements Limiter {
  private excess = 0;
  private lastMs: number | null = null;
  private readonly rate: number;
  private readonly burst: number;
  private readonly delay: number;

  constructor(model: Pick<QueueModel, 'rate_rps' | 'burst' | 'delay'>) {
    this.rate = model.rate_rps;
    this.burst = Math.max(0, model.burst);
    this.delay = Math.min(this.burst, Math.max(0, model.delay));
  }

  take(nowMs: number): LimitDecision {
    // Truthful Retry-After (nginx sends none): until one more fits in the queue.
    const decision = this.test(nowMs);
    if (!decision.ok) return decision;
    this.excess = this.excessAt(nowMs);
    this.lastMs = Math.max(this.lastMs ?? nowMs, nowMs);
    return decision;
  }

  test(nowMs: number): LimitDecision {
    const excess = this.excessAt(nowMs);
    if (excess > this.burst)
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((excess - this.burst) / this.rate)) };
    const waits = excess - this.delay;
    return waits > 0 ? { ok: true, delayMs: (waits / this.rate) * 1000 } : { ok: true };
  }

  /** The queue's room as the quota: how many may pass from now, and when it has drained to idle. */
  quota(nowMs: number): QuotaState {
    const capacity = this.burst + 1;
    return {
      limit: capacity,
      windowS: Math.max(1, Math.round(capacity / this.rate)),
      remaining: Math.max(0, Math.floor(this.burst - this.excessAt(nowMs)) + 1),
      resetS: this.lastMs === null ? 0 : Math.max(0, this.drained(nowMs) + 1) / this.rate,
    };
  }

  /** The excess this request would bring: none for a first request, else what is left plus one. */
  private excessAt(nowMs: number): number {
    if (this.lastMs === null) return 0;
    return Math.max(0, this.drained(nowMs) + 1);
  }

  /** The excess left at `nowMs`, negative once drained past empty. A clock moving backwards drains nothing. */
  private drained(nowMs: number): number {
    const elapsedS = Math.max(0, nowMs - (this.lastMs ?? nowMs)) / 1000;
    return this.excess - elapsedS * this.rate;
  }
}
