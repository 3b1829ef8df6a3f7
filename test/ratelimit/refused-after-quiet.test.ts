// A sliding window the period trials sized is refuted by one of their own clumps of its limit,
// refused in part after two of its periods of quiet or more (discover.ts refusedAfterQuiet): no
// sliding window of that limit and period refuses any of such a clump. Virtually, a fixed window
// whose edge trial could not run was once sized this way at 52 per 0.924 s for 50 per 1 s.

import { describe, expect, it } from 'vitest';
import { refusedAfterQuiet } from '../../src/ratelimit/discover.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';

const LOG: LimiterModel = { kind: 'sliding-window', limit: 52, period_s: 0.924, counts_refused: null };

describe('a sliding window refuted by its own clump refused after quiet', () => {
  it('is refuted after two of its periods of quiet, and says so with its figures', () => {
    expect(refusedAfterQuiet(LOG, 1848)).toMatch(
      /^a clump of 52 from idle was refused in part after 1\.848 s of quiet, .*no sliding window of 52 per 0\.924 s refuses it; not sized$/,
    );
  });

  it('stands after less than two periods (HAProxy forgets only after two), or with no clump refused', () => {
    expect(refusedAfterQuiet(LOG, 1847)).toBeUndefined();
    expect(refusedAfterQuiet(LOG, 0)).toBeUndefined();
  });

  it('concerns sliding windows only', () => {
    const fixed: LimiterModel = { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false };
    expect(refusedAfterQuiet(fixed, 10_000)).toBeUndefined();
    expect(refusedAfterQuiet(null, 10_000)).toBeUndefined();
  });
});
