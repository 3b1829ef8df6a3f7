// The edge trial (probe/window-edges.ts) when the probe's own process stalls once for 120 ms (a
// busy machine), on a virtual clock: a trial whose requests went out late proves nothing and is
// sent again, so a window opened by the first request is not read as a sliding log, nor a window on
// the clock as one opened by the first request. The stall comes at the first wait after `stallAtMs`
// (moments where a trial that did not check its requests' timing misread the window, or, on the
// clock, placed its ping by a window length that had drifted).

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import type { Clock } from '../../src/time/clock.js';
import { fromModel, virtualWorld } from './virtual-limit.js';

/** `clock`, but the first wait that starts at or after `atMs` lasts `extraMs` longer. */
function stallingOnce(clock: Clock, atMs: number, extraMs: number): Clock {
  let stalled = false;
  return {
    now: clock.now,
    sleep: (ms, signal) => {
      const stall = !stalled && clock.now() >= atMs;
      if (stall) stalled = true;
      return clock.sleep(ms + (stall ? extraMs : 0), signal);
    },
  };
}

const cases: Array<{ name: string; model: LimiterModel; stallAtMs: number }> = [
  {
    name: 'a window opened by the first request, a stall during the edge trial',
    model: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0, counts_refused: false, edges: 'first-request' },
    stallAtMs: 11_100,
  },
  {
    name: 'a window on the clock, a stall during the edge trial',
    model: { kind: 'fixed-window', limit: 50, window_s: 1, phase_s: 0.3, counts_refused: false },
    // Its edges pinned in 5 windows since the walk keeps short of the edge after next (window-edges.ts
    // withinNextWindow): the trial runs 4.6–6.1 s in, where 7 s was before.
    stallAtMs: 5_000,
  },
];

describe('the edge trial on a stalling machine', () => {
  it.each(cases)('$name', async ({ model, stallAtMs }) => {
    const world = virtualWorld({ limiter: () => fromModel(model), status: 429, announces: 'retry-after' });
    try {
      const e = await discover({
        calls: world.calls,
        clock: stallingOnce(world.clock, stallAtMs, 120),
        maxRps: 200,
        maxRequests: 3_000,
        maxDurationS: 60,
      });
      const context = JSON.stringify({ ...e, timeline: e.timeline.length }, null, 1);
      expect(e.notes, context).toContain(
        'an edge trial whose requests went out late (a stalled process) proves nothing: sent again',
      );
      expect(e.limiter?.kind, context).toBe('fixed-window');
      if (e.limiter?.kind === 'fixed-window' && model.kind === 'fixed-window') {
        expect(e.limiter.window_s, context).toBe(1);
        expect(e.limiter.edges ?? 'clock', context).toBe(model.edges ?? 'clock');
      }
      expect(e.partial, context).toBe(false);
    } finally {
      world.stop();
    }
  });
});
