// Several limits on one client at once (a LimiterSet: Kong's per-second and per-minute, two nginx
// zones, a gateway in front of an application limit). A request passes when every limit admits it.
// Each limit is asked first without counting (`test`); only then does each count by its own rule:
// when all admit, every limit takes the request; when one refuses, the limits that count refused
// requests take it (a window whose recipe tracks every request fills up even while another limit
// refuses), and the others are left as they were (Kong increments no counter of a refused call).

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import { countsRefused, type LimitDecision, type Limiter, type LimiterModel, type LimiterSet } from './model.js';

export class StackedLimiter implements Limiter {
  private readonly limiters: Limiter[];
  /** Whether each limit counts the requests the set refuses (by the model's recipe). */
  private readonly countingRefused: boolean[];
  /** Each limit's look at the request being taken, kept between calls so that take allocates none. */
  private readonly asked: LimitDecision[] = [];
  /**
   * The one quota a gateway announcing a single policy names: the one nearest to refusing (fewest
   * remaining, then the smallest), as Envoy's and Kong's single RateLimit fields do; absent when no
   * limit of the set has a quota to speak of (HAProxy's rates).
   */
  readonly quota?: (nowMs: number) => QuotaState;

  constructor(models: LimiterSet, create: (model: LimiterModel) => Limiter) {
    this.limiters = models.map(create);
    this.countingRefused = models.map(countsRefused);
    if (this.limiters.some((l) => l.quota))
      this.quota = (nowMs) =>
        [...this.quotas(nowMs)].sort((a, b) => a.remaining - b.remaining || a.limit - b.limit)[0]!;
  }

  // Loops rather than map/every/spread: the stacked inference replays a whole probe and every proof
  // round through each candidate set, so this runs for every request of every replay (a third of
  // stacked-time-virtual's CPU went to the arrays those allocated).
  take(nowMs: number): LimitDecision {
    const { limiters, asked } = this;
    let admitted = true;
    for (let i = 0; i < limiters.length; i++) {
      asked[i] = limiters[i]!.test(nowMs);
      if (!asked[i]!.ok) admitted = false;
    }
    if (admitted) {
      // A queue among them delays the answer; of several, the longest delay holds it (nginx's zones).
      let delayMs = 0;
      for (const l of limiters) {
        const d = l.take(nowMs);
        if (d.ok) delayMs = Math.max(delayMs, d.delayMs ?? 0);
      }
      return delayMs > 0 ? { ok: true, delayMs } : { ok: true };
    }
    // A counting limit's own answer comes from its take (counting may move when it frees).
    // Retry-After: the longest wait among the limits that refused, the earliest moment all of them
    // can admit again (a limit that admitted now may refuse later; a client finds out then).
    let waitS = 1;
    for (let i = 0; i < limiters.length; i++) {
      const d = this.countingRefused[i] ? limiters[i]!.take(nowMs) : asked[i]!;
      if (!d.ok) waitS = Math.max(waitS, d.retryAfterS);
    }
    return { ok: false, retryAfterS: waitS };
  }

  test(nowMs: number): LimitDecision {
    let waitS = 1;
    let admitted = true;
    for (const l of this.limiters) {
      const d = l.test(nowMs);
      if (!d.ok) [admitted, waitS] = [false, Math.max(waitS, d.retryAfterS)];
    }
    return admitted ? { ok: true } : { ok: false, retryAfterS: waitS };
  }

  /** Each limit's quota as announced (a RateLimit-Policy list, Kong's per-unit fields), in the set's order. */
  quotas(nowMs: number): QuotaState[] {
    return this.limiters.flatMap((l) => (l.quota ? [l.quota(nowMs)] : []));
  }
}
