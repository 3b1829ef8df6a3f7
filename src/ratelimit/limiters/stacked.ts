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
  /**
   * The one quota a gateway announcing a single policy names: the one nearest to refusing (fewest
   * remaining, then the smallest), as Envoy's and Kong's single RateLimit fields do; absent when no
   * limit of the set has a quota to speak of (HAProxy's rates).
   */
  readonly quota?: (nowMs: number) => QuotaState;

  constructor(
    private readonly models: LimiterSet,
    create: (model: LimiterModel) => Limiter,
  ) {
    this.limiters = models.map(create);
    if (this.limiters.some((l) => l.quota))
      this.quota = (nowMs) =>
        [...this.quotas(nowMs)].sort((a, b) => a.remaining - b.remaining || a.limit - b.limit)[0]!;
  }

  take(nowMs: number): LimitDecision {
    const asked = this.limiters.map((l) => l.test(nowMs));
    if (asked.every((d) => d.ok)) {
      // A queue among them delays the answer; of several, the longest delay holds it (nginx's zones).
      const delayMs = Math.max(0, ...this.limiters.map((l) => l.take(nowMs)).map((d) => (d.ok ? (d.delayMs ?? 0) : 0)));
      return delayMs > 0 ? { ok: true, delayMs } : { ok: true };
    }
    // A counting limit's own answer comes from its take (counting may move when it frees).
    const decided = this.limiters.map((l, i) => (countsRefused(this.models[i]!) ? l.take(nowMs) : asked[i]!));
    return { ok: false, retryAfterS: longestWait(decided) };
  }

  test(nowMs: number): LimitDecision {
    const asked = this.limiters.map((l) => l.test(nowMs));
    return asked.every((d) => d.ok) ? { ok: true } : { ok: false, retryAfterS: longestWait(asked) };
  }

  /** Each limit's quota as announced (a RateLimit-Policy list, Kong's per-unit fields), in the set's order. */
  quotas(nowMs: number): QuotaState[] {
    return this.limiters.flatMap((l) => (l.quota ? [l.quota(nowMs)] : []));
  }
}

/**
 * Retry-After of a refusal: the longest wait among the limits that refused, the earliest moment all
 * of them can admit again (a limit that admitted now may refuse later; a client finds out then).
 */
const longestWait = (decisions: readonly LimitDecision[]): number =>
  Math.max(1, ...decisions.map((d) => (d.ok ? 0 : d.retryAfterS)));
