// A window the edge trial could not tell apart (probe/window-path.ts): at 80 req/s a limit of 50
// per 1 s takes too long to send for the trial that tells a window opened at the client's first
// request from a sliding log, and measured from idle the two answer alike. Both are then reported
// as either, never the log alone (CI land38 named rate-limiter-flexible's opened windows a log);
// at 100 req/s the trial runs and the opened window is named. On the virtual clock.

import { describe, expect, it } from 'vitest';
import { discover } from '../../src/ratelimit/discover.js';
import type { LimiterModel } from '../../src/ratelimit/limiters/index.js';
import { fromModel, virtualWorld } from './virtual-limit.js';

const OPENED: LimiterModel = {
  kind: 'fixed-window',
  limit: 50,
  window_s: 1,
  phase_s: 0,
  counts_refused: false,
  edges: 'first-request',
};
const LOG: LimiterModel = { kind: 'sliding-window', limit: 50, period_s: 1, counts_refused: false };

async function probe(model: LimiterModel, maxRps: number) {
  const world = virtualWorld({ limiter: () => fromModel(model), status: 429, announces: 'retry-after' });
  try {
    return await discover({ calls: world.calls, clock: world.clock, maxRps, maxRequests: 3000, maxDurationS: 60 });
  } finally {
    world.stop();
  }
}

describe('a window whose edges the probe could not tell apart', () => {
  it.each([
    ['a window opened at the first request', OPENED],
    ['a sliding log', LOG],
  ])('%s at 80 req/s: either, within 2 %, said so', async (_name, model) => {
    const e = await probe(model, 80);
    const context = JSON.stringify({ limiter: e.limiter, notes: e.notes }, null, 1);
    expect(e.limiter, context).toMatchObject({ kind: 'sliding-window', limit: 50, or_opened_window: true });
    if (e.limiter?.kind === 'sliding-window')
      expect(Math.abs(e.limiter.period_s - 1), context).toBeLessThanOrEqual(0.02);
    expect(e.notes.join('\n'), context).toMatch(
      /^identified: sliding window 50 per [\d.]+ s, or a fixed window opened at the first request \(the two not told apart\)$/m,
    );
  });

  it('a window opened at the first request at 100 req/s: the trial runs, and names it', async () => {
    const e = await probe(OPENED, 100);
    expect(e.limiter, JSON.stringify(e.notes)).toMatchObject({ kind: 'fixed-window', edges: 'first-request' });
  });
});
