// For 2.5 s from the second business call on, each business answer takes 1.5 s longer. A client
// with a sensible timeout waits it out; one that gives up and crashes, or retries at once and piles
// calls on a slow service, shows it here.

import { defineScenario, isBusinessPath } from './types.js';
import { systemClock } from '../../time/clock.js';

export const SLOW_WINDOW_MS = 2_500;
export const SLOW_DELAY_MS = 1_500;

export const scenario = defineScenario({
  name: 'slow-business',
  spec: '§4.4',
  description: `business answers take ${SLOW_DELAY_MS / 1000} s longer for ${SLOW_WINDOW_MS / 1000} s from the second business call on`,
  longestWaitMs: SLOW_DELAY_MS,
  override: (base) => {
    let businessCalls = 0;
    let startMs: number | undefined;
    return {
      guard: async (ctx, route) => {
        if (isBusinessPath(ctx.req.path)) {
          if (startMs === undefined && ++businessCalls >= 2) startMs = ctx.now;
          if (startMs !== undefined && ctx.now < startMs + SLOW_WINDOW_MS) await systemClock.sleep(SLOW_DELAY_MS);
        }
        return base.guard(ctx, route);
      },
    };
  },
});
