// The fixed window test/cli/hostile-k6.test.ts limits its service with (5 per 1 s, on the clock)
// probed as that test probes it (20 req/s, a 30 s cap), at 20 places of the window where the probe
// starts. Before, 7 of the 20 were not identified (so the stage searched with k6 instead of
// proving, and a probe that ran to its cap proved nothing: proof 'not run', CI):
// - phases 0.2–0.4: the edge walk's first edge was found 0.8 s wide (its pings' gaps double), and
//   the next ping, aimed 1.3 s past it as windows opened by the first request would be, crossed two
//   edges: the edges fitted no lattice, the edge trial then could not tell a window on the clock,
//   and the probe measured a sliding window from idle until 22–29 s (window-edges.ts withinNextWindow);
// - phases 0.05–0.15: read as a timer's staircase whose bursts from idle never settled, each put
//   600 ms past a tick (three margins of 200 ms at 20 req/s), against the next one, ambiguous
//   every time (batch-staircase.ts idleBurst).
// Each must be that window on the clock, whole, and the probe done 3 s before its cap (the proof
// needs an estimate that is not partial): where the drain straddled an edge, the staircase's 10
// ticks cost 11 s, and the edge walk after them, its second edge found by pings whose gaps double,
// took 9 windows more (28.4 s); aimed a tick's period on, 5 (24.4–26.5 s).

import { describe, expect, it } from 'vitest';
import { clockWindow } from './support.js';
import { discoverVirtual, fromModel, type VirtualEndpoint } from './virtual-limit.js';

const PHASES = 20;

const machines: Array<{ name: string; endpoint: Partial<VirtualEndpoint> }> = [
  { name: 'an idle machine', endpoint: {} },
  { name: 'a busy machine, up to 20 ms late', endpoint: { busy: { lateMs: 20, seed: 1 } } },
];

describe('the fixed window 5 per 1 s probed at 20 req/s within 30 s, 20 phases', () => {
  it.each(machines)(
    '$name: read as that window on the clock wherever the probe starts',
    async ({ endpoint }) => {
      const misread: string[] = [];
      for (let p = 0; p < PHASES; p++) {
        const e = await discoverVirtual(
          {
            limiter: () => fromModel(clockWindow(5, 1, p / PHASES)),
            status: 429,
            announces: 'retry-after',
            ...endpoint,
          },
          { maxRps: 20, maxDurationS: 30 },
        );
        const got = e.limiter;
        const onClock =
          got?.kind === 'fixed-window' && (got.edges ?? 'clock') === 'clock' && got.limit === 5 && got.window_s === 1;
        if (!onClock || e.partial || e.duration_s > 27)
          misread.push(
            `phase ${p / PHASES}: ${JSON.stringify(got)} in ${e.duration_s} s${e.partial ? ', partial' : ''}; ${e.notes.slice(0, 3).join(' / ')}`,
          );
      }
      expect(misread, misread.join('\n')).toEqual([]);
    },
    60_000,
  );
});
