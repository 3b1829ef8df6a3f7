// A fixed window of 30 per 1 s whose first edge falls a few tens of ms into the probe: the drain
// straddles it (34–40 let through), the recovery comes back 30 at once, the staircase looks for a
// timer and, from idle ticks, finds only 30: a fixed window. Its edge walk then went on from the
// tick before those idle bursts, took the window they spent for the next one, read edges 3.9 s
// apart ("not evenly spaced") and identified nothing; it goes on from an edge timed after them.

import { describe, expect, it } from 'vitest';
import { describeLimiter } from '../../src/ratelimit/limiters/index.js';
import { discoverVirtual, fromModel } from './virtual-limit.js';

describe('a fixed window whose edge the drain straddles', () => {
  it.each([0.02, 0.05])('its edge %s s into the probe: fixed window 30 per 1 s', async (phaseS) => {
    const e = await discoverVirtual(
      {
        limiter: () =>
          fromModel({ kind: 'fixed-window', limit: 30, window_s: 1, phase_s: phaseS, counts_refused: false }),
        status: 429,
        announces: 'retry-after',
      },
      { maxDurationS: 150 },
    );
    expect(e.limiter ? describeLimiter(e.limiter) : e.notes.join('; ')).toBe('fixed window 30 per 1 s');
    expect(e.sustained_rps).toBe(30);
  });
});
