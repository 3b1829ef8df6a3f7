// A fixed window: a counter that resets at every window edge. Edges fall at phase + k × window on
// the given clock, so a client meets the reset at the same moment whatever it does.

import type { FixedWindowModel, LimitDecision, Limiter } from './model.js';

export class FixedWindowLimiter implements Limiter {
  private windowIndex = Number.NEGATIVE_INFINITY;
  private count = 0;
  private readonly windowMs: number;
  private readonly phaseMs: number;

  constructor(private readonly model: Omit<FixedWindowModel, 'kind'>) {
    this.windowMs = model.window_s * 1000;
    this.phaseMs = model.phase_s * 1000;
  }

  take(nowMs: number): LimitDecision {
    const index = Math.floor((nowMs - this.phaseMs) / this.windowMs);
    // A clock moved backwards stays in the window it was in rather than reopening an old one.
    if (index > this.windowIndex) {
      this.windowIndex = index;
      this.count = 0;
    }
    if (this.count < this.model.limit) {
      this.count += 1;
      return { ok: true };
    }
    if (this.model.counts_refused) this.count += 1;
    const edgeMs = this.phaseMs + (this.windowIndex + 1) * this.windowMs;
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((edgeMs - nowMs) / 1000)) };
  }
}
