// A per-minute sliding-window counter stacked behind a per-second limit: go-chi/httprate's
// Limit(600, 60 s) (LimitByIP used twice, or nginx's 30r/s in front of an application running it).
// Its windows are on the clock, and it weighs the previous window's count by what is left of the
// current one. No bucket or fixed window explains what a proof round sees of it, so the stacked
// inference must try one (stacked-inference.ts fittedCounters): without it the loop found nothing
// to claim and bisected up from a low hold, 4.5 req/s given for 10 after three rounds and 340 s.
// The whole stage on the virtual clock (stack-sizing.ts).

import { describe, expect, it } from 'vitest';
import type { LimiterSet } from '../../src/ratelimit/limiters/index.js';
import { expectSized, HORIZON_S, sizeTimed } from './stack-sizing.js';

const COUNTER = { kind: 'sliding-counter', limit: 600, window_s: 60, phase_s: 0, counts_refused: false } as const;

const STACKS: Array<[string, LimiterSet]> = [
  [
    'a fixed window of 30 per 1 s',
    [{ kind: 'fixed-window', limit: 30, window_s: 1, phase_s: 0, counts_refused: false }, COUNTER],
  ],
  ['a bucket of 30 per 1 s', [{ kind: 'bucket', rate_rps: 30, burst: 30 }, COUNTER]],
];

describe("httprate's 600 per 60 s behind a per-second limit, sized on the virtual clock", () => {
  it.each(STACKS)(
    'behind %s: the figure shown within 2 %, no claim above the truth, recommended within 75–100 %, proven over the horizon',
    async (_name, truth) => {
      const sized = await sizeTimed(truth);
      const { rounds, identified } = sized;
      const context = JSON.stringify({ rounds, identified });
      expectSized(truth, sized, context);
      // What held ran the whole horizon, two of the minute.
      const held = rounds.filter((r) => r.verdict === 'holds');
      expect(held.length, context).toBeGreaterThan(0);
      for (const r of held) expect(r.ranS, context).toBeGreaterThanOrEqual(HORIZON_S);
      expect(rounds.length, context).toBeLessThanOrEqual(2);
    },
    120_000,
  );
});
