// What the probe left of each announced quota, from the counts its answers said were left. A probe
// of `run` (30 s) against Kong's second and minute (30 per second, 600 per minute) sent 586
// requests, 561 let through inside one minute: the proof round after it at 8 req/s for 5 s met the
// minute's last 39 at 4.7 s, and the round after that was refused from its start (CI land64). The
// answers had said so (X-RateLimit-Remaining-Minute); the stage now waits for such a window to be
// whole before a round that needs more than is left (proof-quota.ts).

import { announcedKey, type Advertisement } from '../../spec/ratelimit-fields.js';
import type { QuotaLeft, Sample } from '../types.js';

interface Counted {
  ad: Advertisement & { windowS: number; remaining: number };
  remaining: number;
  /** The answer that opened the window counting them (the first heard, or the first after the count rose), its arrival, ms. */
  fromMs: number;
  /** When the last answer's announced reset says the quota is whole, ms; null when none was said. */
  resetByMs: number | null;
}

/** Folds the answers' announced counts (observe), and says what each quota had left at the last one (left). */
export class QuotaWatch {
  private readonly quotas = new Map<string, Counted>();

  observe(sample: Sample, all: readonly Advertisement[]): void {
    // Only the target's own answers: a second client's quota may be its own.
    if (sample.client !== 'primary') return;
    for (const ad of all) {
      if (ad.windowS === null || ad.remaining === null) continue;
      const before = this.quotas.get(announcedKey(ad));
      // A count that rose is a window begun since (or slots a sliding one freed, or two answers
      // swapped in flight): a window counted from here ends later, never sooner than the truth.
      const opened = before === undefined || ad.remaining > before.remaining;
      this.quotas.set(announcedKey(ad), {
        ad: ad as Counted['ad'],
        remaining: opened ? ad.remaining : Math.min(before.remaining, ad.remaining),
        fromMs: opened ? sample.doneMs : before.fromMs,
        resetByMs: ad.resetS === null ? null : sample.doneMs + ad.resetS * 1000,
      });
    }
  }

  left(): QuotaLeft[] {
    return [...this.quotas.values()].map((q) => ({
      limit: q.ad.limit,
      window_s: q.ad.windowS,
      remaining: q.remaining,
      whole_by_ms: Math.min(q.fromMs + q.ad.windowS * 1000, q.resetByMs ?? Infinity),
    }));
  }
}
