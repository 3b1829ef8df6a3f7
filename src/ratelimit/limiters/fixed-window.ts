// A fixed window: a counter that resets at every window edge. Edges fall at phase + k × window on
// the given clock, so a client meets the reset at the same moment whatever it does; or, with
// `edges: 'first-request'` (rate-limiter-flexible), a window after the request that opened it.

import type { QuotaState } from '../../spec/ratelimit-fields.js';
import { WindowLattice, type FixedWindowModel, type LimitDecision, type Limiter } from './model.js';

export class FixedWindowLimiter implements Limiter {
  private windowIndex = Number.NEGATIVE_INFINITY;
  private count = 0;
  /** Where the current window ends, ms. */
  private endMs = Number.NEGATIVE_INFINITY;
  private readonly lattice: WindowLattice;

  constructor(private readonly model: Omit<FixedWindowModel, 'kind'>) {
    this.lattice = new WindowLattice(model.window_s, model.phase_s);
  }

  take(nowMs: number): LimitDecision {
    this.turnOver(nowMs);
    if (this.count < this.model.limit) {
      this.count += 1;
      return { ok: true };
    }
    if (this.model.counts_refused) this.count += 1;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((this.endMs - nowMs) / 1000)) };
  }

  test(nowMs: number): LimitDecision {
    // A window that opens at the first request is not opened by a look: a new one would admit.
    if (this.model.edges === 'first-request' && nowMs >= this.endMs) return { ok: true };
    if (this.model.edges !== 'first-request') this.turnOver(nowMs);
    return this.count < this.model.limit
      ? { ok: true }
      : { ok: false, retryAfterS: Math.max(1, Math.ceil((this.endMs - nowMs) / 1000)) };
  }

  quota(nowMs: number): QuotaState {
    // Read only: a window that opens at the first request must not be opened by a look at it.
    const opensNext = this.model.edges === 'first-request' && nowMs >= this.endMs;
    if (this.model.edges !== 'first-request') this.turnOver(nowMs);
    const endMs = opensNext ? nowMs + this.lattice.windowMs : this.endMs;
    const count = opensNext ? 0 : this.count;
    return {
      limit: this.model.limit,
      windowS: this.model.window_s,
      remaining: Math.max(0, this.model.limit - count),
      resetS: (endMs - nowMs) / 1000,
    };
  }

  /** Starts a new window when the current one has ended. */
  private turnOver(nowMs: number): void {
    if (this.model.edges === 'first-request') {
      if (nowMs >= this.endMs) [this.endMs, this.count] = [nowMs + this.lattice.windowMs, 0];
      return;
    }
    const index = this.lattice.index(nowMs);
    // A clock moved backwards stays in the window it was in rather than reopening an old one.
    if (index > this.windowIndex) {
      this.windowIndex = index;
      this.count = 0;
      this.endMs = this.lattice.startMs(index + 1);
    }
  }
}
