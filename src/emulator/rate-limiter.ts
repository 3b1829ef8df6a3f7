// One limiter per client key, of whichever kind the emulator was started with (src/ratelimit/limiters).
// Keys are created lazily and the oldest dropped beyond a bound, so garbage client ids cannot grow memory.

import type { QuotaState } from '../spec/ratelimit-fields.js';
import { createLimiter, type LimitDecision, type Limiter, type Limits } from '../ratelimit/limiters/index.js';

export type { LimitDecision } from '../ratelimit/limiters/index.js';

/** Beyond this many keys the oldest limiter is dropped. */
const MAX_KEYS = 10_000;

export class RateLimiter {
  private readonly limiters = new Map<string, Limiter>();

  /** A null model turns the limiter off. */
  constructor(private readonly model: Limits | null) {}

  /** The token bucket the emulator has always run: rps 0 turns it off. */
  static bucket(rps: number, burst: number): RateLimiter {
    return new RateLimiter(rps > 0 ? { kind: 'bucket', rate_rps: rps, burst } : null);
  }

  get enabled(): boolean {
    return this.model !== null;
  }

  take(key: string, nowMs: number): LimitDecision {
    if (this.model === null) return { ok: true };
    let limiter = this.limiters.get(key);
    if (limiter === undefined) {
      limiter = createLimiter(this.model);
      this.remember(key, limiter);
    }
    return limiter.take(nowMs);
  }

  /** The key's quota as a gateway would announce it; undefined with no limit or a limiter without one. */
  quota(key: string, nowMs: number): QuotaState | undefined {
    if (this.model === null) return undefined;
    const limiter = this.limiters.get(key) ?? createLimiter(this.model);
    return limiter.quota?.(nowMs);
  }

  /**
   * Each limit's quota for the key, in the set's order (a gateway announcing every policy, Kong's
   * per-unit fields): one for a single limit, none with no limit or none that has a quota.
   */
  quotas(key: string, nowMs: number): QuotaState[] {
    if (this.model === null) return [];
    const limiter = this.limiters.get(key) ?? createLimiter(this.model);
    if (limiter.quotas) return limiter.quotas(nowMs);
    const one = limiter.quota?.(nowMs);
    return one ? [one] : [];
  }

  private remember(key: string, limiter: Limiter): void {
    if (this.limiters.size >= MAX_KEYS) {
      // Map iteration is insertion order: the first key is the oldest. One eviction per insert.
      const oldest = this.limiters.keys().next();
      if (!oldest.done) this.limiters.delete(oldest.value);
    }
    this.limiters.set(key, limiter);
  }
}
